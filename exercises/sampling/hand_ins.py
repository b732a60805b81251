"""Realistic mistakes in the sampling exercise: the ones the course text names, and a few more.

Each hand-in names the checks it must fail by their function names in ``checks.py``."""
from autograder.authoring import Mistake

E = "sampling"

_TOY = "check_temperature_toy"
_THE_CAT = "check_temperature_the_cat"
_RANDOM_T = "check_temperature_random"
_TOP_P = ("check_top_p_the_cat", "check_top_p_toy", "check_top_p_ties", "check_top_p_random")

_FORK = "check_generate_sampled"

MISTAKES = [
    # The first mistake of each helper of generate is one that generate's checks see
    # (tests/checks/test_charged_once.py hands it in): greedy decoding goes through T = 0.
    Mistake(E, "apply_temperature", "divides_by_zero_T", '''
def apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError("T must be 0 or more")
    with np.errstate(all="ignore"):
        return softmax(z / T)      # T = 0: the scores become +-inf, the shares nan
''', failing=("check_temperature_zero",),
        feedback="divide the scores by T = 0"),

    Mistake(E, "apply_temperature", "multiplies_by_T", '''
def apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError("T must be 0 or more")
    if T == 0:
        return np.eye(len(z))[int(np.argmax(z))]
    return softmax(z * T)          # multiplied: T = 2 sharpens instead of flattening
''', failing=(_TOY, _THE_CAT, _RANDOM_T), feedback="multiply the scores by T instead of dividing"),

    Mistake(E, "apply_temperature", "temperature_after_softmax", '''
def apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError("T must be 0 or more")
    if T == 0:
        return np.eye(len(z))[int(np.argmax(z))]
    return softmax(z) / T          # the shares divided, not the scores
''', failing=(_TOY, _THE_CAT, _RANDOM_T), feedback="apply the temperature after the softmax"),

    Mistake(E, "apply_temperature", "unshifted_exponentials", '''
def apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError("T must be 0 or more")
    if T == 0:
        return np.eye(len(z))[int(np.argmax(z))]
    e = np.exp(z / T)              # exp(5000) = inf
    return e / e.sum()
''', failing=(_RANDOM_T,), feedback="without first subtracting the largest one"),

    Mistake(E, "apply_temperature", "negative_T_accepted", '''
def apply_temperature(logits, T):
    z = np.asarray(logits, dtype=float)
    if T == 0:
        return np.eye(len(z))[int(np.argmax(z))]
    return softmax(z / T)          # T = -1 turns the ranking upside down
''', failing=("check_temperature_negative",),
        feedback="should raise ValueError"),

    Mistake(E, "sample_next", "greedy_not_sampling", '''
def sample_next(probs, rng):
    return int(np.argmax(probs))   # the top share every time
''', failing=("check_sample_counts",
              "check_sample_generator"),
        feedback="always return the most likely token"),

    Mistake(E, "sample_next", "global_random_state", '''
def sample_next(probs, rng):
    probs = np.asarray(probs, dtype=float)
    return int(np.random.choice(len(probs), p=probs))   # the global state, not rng
''', failing=("check_sample_generator",),
        feedback="draw from numpy's global random state"),

    Mistake(E, "top_p_filter", "crossing_token_dropped", '''
def top_p_filter(probs, p):
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(-probs, kind="stable")
    keep = order[np.cumsum(probs[order]) < p]      # stops before the token that reaches p
    kept = np.zeros_like(probs)
    kept[keep] = probs[keep]
    return kept / kept.sum()
''', failing=_TOP_P, feedback="drop the token whose share makes the total reach p"),

    Mistake(E, "top_p_filter", "not_renormalised", '''
def top_p_filter(probs, p):
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(-probs, kind="stable")
    k = min(int(np.sum(np.cumsum(probs[order]) < p)) + 1, len(probs))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    return kept                    # the kept shares no longer sum to 1
''', failing=_TOP_P, feedback="forget to renormalise"),

    Mistake(E, "top_p_filter", "sorted_ascending", '''
def top_p_filter(probs, p):
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(probs, kind="stable")       # least likely first
    k = min(int(np.sum(np.cumsum(probs[order]) < p)) + 1, len(probs))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    return kept / kept.sum()
''', failing=_TOP_P, feedback="sort the shares in ascending order"),

    Mistake(E, "top_p_filter", "reversed_ascending_sort", '''
def top_p_filter(probs, p):
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(probs, kind="stable")[::-1]   # right order, but ties reversed
    k = min(int(np.sum(np.cumsum(probs[order]) < p)) + 1, len(probs))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    return kept / kept.sum()
''', failing=("check_top_p_ties",),
        feedback="reverse an ascending sort"),

    Mistake(E, "generate", "prompt_dropped", '''
def generate(model, prompt, n, T, rng):
    ids, new = list(prompt), []
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        nxt = int(np.argmax(shares)) if T == 0 else sample_next(shares, rng)
        ids.append(nxt)
        new.append(nxt)
    return new                     # the prompt is missing in front
''', failing=("check_generate_greedy",
              _FORK,
              "check_generate_seeded",
              "check_generate_whole_list"),
        feedback="return only the new ids"),

    Mistake(E, "generate", "mutates_prompt", '''
def generate(model, prompt, n, T, rng):
    for _ in range(n):
        shares = apply_temperature(model(prompt), T)
        prompt.append(int(np.argmax(shares)) if T == 0 else sample_next(shares, rng))
    return prompt                  # the caller's list has grown
''', failing=("check_generate_prompt",),
        feedback="append to the caller's prompt list"),

    Mistake(E, "generate", "newest_id_only", '''
def generate(model, prompt, n, T, rng):
    ids = list(prompt)
    for _ in range(n):
        shares = apply_temperature(model(ids[-1:]), T)   # the model sees one id
        ids.append(int(np.argmax(shares)) if T == 0 else sample_next(shares, rng))
    return ids
''', failing=("check_generate_greedy",
              "check_generate_prompt",
              _FORK,
              "check_generate_whole_list"),
        feedback="the model only the newest id"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {
    "multiplies_by_T": "multiply the scores by T instead of dividing",
    "temperature_after_softmax": "apply the temperature after the softmax",
    "global_random_state": "draw from numpy's global random state",
    "crossing_token_dropped": "drop the token whose share makes the total reach p",
    "not_renormalised": "forget to renormalise",
    "sorted_ascending": "sort the shares in ascending order",
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['multiplies_by_T'],
    'dee': ['temperature_after_softmax'],
    'eve': ['crossing_token_dropped'],
}
