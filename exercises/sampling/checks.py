"""Hidden checks of the "sampling" exercise: temperature, one weighted draw, top-p, the loop.

The fixed cases of temperature and top-p (the course text's figures, ``worked.py``: toy model 1
at the fork after "live the", the "sat"/"the" shares of "the cat") are declared once in
``cases.py``, visible or hidden; the line below makes its graded ones hidden checks. Here: the
draws of sample_next and generate, judged by their counts (fixed seeds; the toy models run in
the student's process, so these are not declared cases), and the randomized cases against the
reference (``solutions/sampling.py``); the named mistakes' values come from ``wrong.py``.

Random draws are judged by counts. Every count check uses fixed seeds (never the student's)
and, per word, exact binomial bounds whose two tails together hold ``ALPHA / V`` of the
probability, so a correct sampler fails a check with probability below ``ALPHA`` = 1e-9
(union bound over the words), whatever the seeds; for the seeds below the reference and the
honest styles of ``tests/exercises/test_sampling.py`` pass.
"""
import numpy as np

from autograder.authoring import (
    PROBES,
    Accept,
    Mismatch,
    StudentCodeError,
    check,
    expect_close,
    expect_equal,
    fail,
    fmt,
    hidden_checks,
)
from solutions import sampling as ref

from .cases import CASES
from .counting import binomial_bounds, fisher_two_sided, too_even_tail
from .worked import KING, VOCAB, toy_weights
from .wrong import (
    GLOBAL_STATE,
    GREEDY_DECODING,
    GREEDY_IDS,
    IGNORES_RNG,
    LARGER_SHARE,
    LIVE_THE,
    NEVER_DRAWS,
    NOT_INDEPENDENT,
    OWN_GENERATOR,
    PROMPT,
    PROMPT_DROPPED,
    STATE_STEERS,
    TOO_EVEN,
    _temperature_mistakes,
    _top_p_mistakes,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)

ALPHA = 1e-9            # largest chance that a correct sampler fails one check on draws
# The draws of one check are one exchange with the student's process (``submission.repeat``,
# answered in batches). The numbers below are the fewest that keep the mistakes far outside the
# bounds (docs/random-draws.md gives the figures; tests/exercises/test_sampling.py computes them).
DRAWS = 400             # draws per near-even distribution in the count check (the @check names these numbers)
SKEWED = 1000           # draws on the skewed shares: the argmax(rng.random(V) * p) rule falls outside
PAIRS = 800             # non-overlapping pairs of consecutive draws in the independence check
BLOCKS, BLOCK = 30, 100 # blocks of consecutive draws in the too-even check
RUNS = 100              # toy-model generations in the count check of generate (named in its @check)
STEPS = 300             # draws of the one generation stuck at the fork (named in its @check)
TEXT = 40               # steps of each generation compared in the seeded check of generate


# -- counting draws: exact binomial bounds (counting.py) -----------------------------------------
def _judge_counts(counts, shares, n, what, mistakes=None):
    """Fail unless every word's count lies in its bounds (``binomial_bounds`` at ``ALPHA / V``:
    by the union bound a correct sampler fails with probability below ``ALPHA``); name a
    mistake whose shares fit instead, or the larger share picked too often.

    Args:
        counts: draws per word, shape (V,). shares: the right shares (V,). n: draws in all.
        what: what was drawn, for the feedback.
        mistakes: ``{name: shares that mistake draws with}``.
    """
    V = len(shares)
    bounds = [binomial_bounds(n, float(s), ALPHA / V) for s in shares]
    off = [i for i, (c, (lo, hi)) in enumerate(zip(counts, bounds)) if not lo <= c <= hi]
    if not off:
        return
    named = []
    for name, wrong in (mistakes or {}).items():
        wrong_bounds = [binomial_bounds(n, float(s), ALPHA / V) for s in wrong]
        if all(lo <= c <= hi for c, (lo, hi) in zip(counts, wrong_bounds)):
            named.append(name)
    top = int(np.argmax(shares))
    lines = [f"token {i}: drawn {int(counts[i])} times in {n}, a correct sampler gives "
             f"{bounds[i][0]} to {bounds[i][1]} (share {float(shares[i]):.4f})" for i in off[:3]]
    message = f"{what}: the draws do not follow the shares; " + "; ".join(lines)
    if named:
        message += f". That is what you get when you {' (or when you '.join(named)}"
    elif counts[top] > bounds[top][1]:
        message += f". {LARGER_SHARE[0].upper() + LARGER_SHARE[1:]}: each token must come up in proportion to its share"
    fail(message + f" (a correct sampler fails this check with probability below {ALPHA:g})")


def _as_id(value, V, what):
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"{what} returned {fmt(value)}; it should return one token id, an int")
    if not 0 <= value < V:
        fail(f"{what} returned {value}; ids run from 0 to {V - 1}")
    return value


# -- apply_temperature --------------------------------------------------------------------------
@check("apply_temperature", "random scores and temperatures, large scores at small T", points=1)
def check_temperature_random(apply_temperature, rng):
    for case in range(5):
        V = int(rng.integers(2, 40))
        z = rng.normal(scale=3.0, size=V)
        T = float(rng.uniform(0.2, 5.0))
        if case == 4:
            z, T = z * 20.0, 0.02            # scores / T in the thousands: exp overflows unless shifted
        if case == 3:
            z = z.astype(np.float32)         # float32 scores (shares to float32 precision are fine)
        expect_close(apply_temperature(z, T), ref.apply_temperature(z, T), atol=1e-6 if case == 3 else 1e-9,
                     what=f"shares of {V} random {z.dtype} scores at T = {T:.4f}",
                     mistakes=_temperature_mistakes(z, T))


# -- sample_next ----------------------------------------------------------------------------------
def _draws(submission, shares, rng, n, allowed=None):
    """``n`` calls ``sample_next(shares, rng)`` in one exchange (``submission.repeat``: the
    arguments arrive afresh each time, ``rng`` is the same generator), as token ids (``_as_id``).

    The draws stop after the first that is not an id of ``allowed`` (default: every id), which
    the caller fails on: no draw is made after it, as with separate calls."""
    V = len(shares)
    accept = set(range(V)) if allowed is None else set(allowed)
    return [_as_id(value, V, "sample_next")
            for value in submission.repeat("sample_next", n, (shares, rng), accept=accept)]


def _count_draws(submission, shares, seed, n):
    rng = submission.probe("generator", seed)
    return np.bincount(np.asarray(_draws(submission, shares, rng, n), dtype=int), minlength=len(shares))


@check("sample_next", 'the counts follow the shares: 400 draws after "live the" at T = 1 and T = 2, '
                      '1,000 on skewed shares; a share of 1 is always drawn, a share of 0 never', points=1)
def check_sample_counts(submission):
    for shares, seed, n in ((ref.apply_temperature(LIVE_THE, 1), 20261, DRAWS),
                            (ref.apply_temperature(LIVE_THE, 2), 20262, DRAWS),
                            (np.array([0.2, 0.7, 0.1]), 20263, SKEWED)):
        counts = _count_draws(submission, shares, seed, n)
        greedy = np.eye(len(shares))[int(np.argmax(shares))]
        where = f'after "live the" at T = {1 if seed == 20261 else 2}' if len(shares) == len(VOCAB) else \
            f"on the shares {shares.tolist()}"
        _judge_counts(counts, shares, n, f"{n} draws {where}",
                      mistakes={"always return the most likely token (that is greedy, not sampling)": greedy,
                                "draw every token with the same chance, ignoring the shares":
                                np.full(len(shares), 1 / len(shares))})
    rng = submission.probe("generator", 5)
    for shares in ([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.0, 1.0]):
        for got in _draws(submission, np.array(shares), rng, 20, [i for i, s in enumerate(shares) if s > 0]):
            if shares[got] == 0.0:
                fail(f"sample_next({shares}, rng) drew {got}, a token whose share is 0")


_EVEN4 = np.full(4, 0.25)   # four equal shares: two unrelated runs of 20 draws agree with chance 4**-20


def _first_random(seed, skip=0):
    """The ``skip``-th ``random()`` of ``np.random.default_rng(seed)``, computed here."""
    return float(np.random.default_rng(seed).random(skip + 1)[-1])


@check("sample_next", "draws from the generator it is given: the same seed gives the same draws whatever "
                      "np.random's state, another seed or an advanced generator other draws, and rng moves on",
       points=1)
def check_sample_generator(submission):
    fault = _generator_fault(submission)
    if fault:
        fail(fault)


def _generator_fault(submission):
    """What is wrong with how ``sample_next`` uses its generator (feedback text), or ``None``."""
    def run(seed, global_seed, advance=0):
        submission.probe("reseed_global", global_seed)
        rng = submission.probe("generator", seed)
        if advance:
            rng.random(advance)           # the generator moved on before the draws
        return _draws(submission, _EVEN4, rng, 20), rng
    (first, rng), (again, _), (reseeded, _) = run(11, 0), run(11, 1), run(11, 0)
    if not first == again == reseeded:
        return ("two generators made with the same seed gave different draws (20 draws on four equal shares, "
                f"np.random reseeded in between). That is what you get when you {GLOBAL_STATE}")
    if rng.random() == _first_random(11):
        return (f"{NEVER_DRAWS}: after 20 draws rng is where it started (its next random() is the first one "
                "of a new generator of the same seed)")
    if run(11, 0, advance=3)[0] == first:
        return (f"{NEVER_DRAWS}: a generator of the same seed moved on by 3 numbers before the draws "
                "gave the same 20 draws (a correct sampler agrees with probability 4**-20, below 1e-12)")
    if run(12, 0)[0] == first:
        return (f"{NEVER_DRAWS}: generators seeded 11 and 12 gave the same 20 draws on four equal shares "
                "(a correct sampler agrees with probability 4**-20, below 1e-12)")
    return None


@check("sample_next", "consecutive draws are independent: 800 pairs of draws in a row, each kind counted "
                      "(Fisher's exact test)", points=1)
def check_sample_independent(submission):
    for shares, seed in ((np.array([0.6, 0.4]), 3101), (ref.apply_temperature(LIVE_THE, 1), 3102)):
        draws = _draws(submission, shares, submission.probe("generator", seed), 2 * PAIRS)
        top = int(np.argmax(shares))
        first, second = (np.asarray(draws[0::2]) == top), (np.asarray(draws[1::2]) == top)
        table = [int(np.sum(first & second)), int(np.sum(first & ~second)),
                 int(np.sum(~first & second)), int(np.sum(~first & ~second))]
        if fisher_two_sided(*table) <= ALPHA / 2:
            after_top = table[0] / max(1, table[0] + table[1])
            after_other = table[2] / max(1, table[2] + table[3])
            fail(f"{NOT_INDEPENDENT}: in {PAIRS} pairs of draws in a row on the shares "
                 f"{np.round(shares, 4).tolist()[:4]}{'...' if len(shares) > 4 else ''}, token {top} followed "
                 f"itself {after_top:.1%} of the time and followed another token {after_other:.1%} of the time; "
                 "each draw must be made afresh, whatever came before (a correct sampler fails this check "
                 f"with probability below {ALPHA:g})")


@check("sample_next", "the counts vary as chance makes them: 30 blocks of 100 draws are not all near "
                      "their share", points=1)
def check_sample_not_too_even(submission):
    shares = np.array([0.6, 0.4])
    draws = _draws(submission, shares, submission.probe("generator", 4101), BLOCKS * BLOCK)
    blocks = (np.asarray(draws).reshape(BLOCKS, BLOCK) == 0).sum(axis=1)
    if too_even_tail(blocks, BLOCK, 0.6) <= ALPHA:
        fail(f"{TOO_EVEN}: in {BLOCKS} blocks of {BLOCK} draws on the shares [0.6, 0.4], token 0 came up "
             f"{int(blocks.min())} to {int(blocks.max())} times, never far from 60; chance spreads it wider "
             f"(a correct sampler fails this check with probability below {ALPHA:g})")


# -- top_p_filter -----------------------------------------------------------------------------------
def _random_cut(rng, probs):
    """A p in (0, 1) at least 1e-6 away from every running total of the sorted shares."""
    totals = np.cumsum(np.sort(np.asarray(probs, dtype=float))[::-1])
    while True:
        p = float(rng.uniform(0.05, 0.99))
        if np.min(np.abs(totals - p)) > 1e-6:
            return p


@check("top_p_filter", "random shares and p", points=1)
def check_top_p_random(top_p_filter, rng):
    for case in range(5):
        V = int(rng.integers(3, 40))
        probs = ref.apply_temperature(rng.normal(scale=2.0, size=V), 1)
        if case == 4:
            probs = probs.astype(np.float32)   # float32 shares (results to float32 precision are fine)
        p = _random_cut(rng, probs)
        expect_close(top_p_filter(probs, p), ref.top_p_filter(probs, p), atol=1e-6 if case == 4 else 1e-9,
                     what=f"top-p {p:.4f} of {V} random {probs.dtype} shares", mistakes=_top_p_mistakes(probs, p))


# -- generate ---------------------------------------------------------------------------------------------
def _toy_model(submission):
    w = toy_weights(ref)
    return submission.probe("two_word_model", w["table"], w["W_hidden"], w["b_hidden"], w["W_out"], w["b_out"])


def _ids(value, what):
    if not isinstance(value, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                       for i in value):
        fail(f"{what} returned {fmt(value)}; it should return a list of int token ids")
    return list(value)


@check("generate", 'greedy (T = 0) from "long live", 4 steps: long live the king said yes', points=1)
def check_generate_greedy(generate, submission):
    got = _ids(generate(_toy_model(submission), list(PROMPT), 4, 0, None), "generate")
    words = " ".join(VOCAB[i] if 0 <= i < len(VOCAB) else "?" for i in got)
    expect_equal(got, GREEDY_IDS, what=f'greedy decoding from "long live" (it said "{words}")',
                 mistakes={PROMPT_DROPPED: GREEDY_IDS[2:]})


@check("generate", "leaves the caller's prompt list unchanged", points=1)
def check_generate_prompt(submission):
    model = _toy_model(submission)
    _, args_after = submission.call_keeping_args("generate", model, list(PROMPT), 2, 0, None)
    expect_equal(list(args_after[1]), PROMPT, what="the prompt list you were given, after the call",
                 mistakes={"append to the caller's prompt list instead of a copy of it": GREEDY_IDS[:4]})


@check("generate", 'T = 1: queen at the fork about half the time (100 seeds from "long live"; '
                   '300 steps of a model stuck at the fork)', points=1)
def check_generate_sampled(generate, submission):
    model = _toy_model(submission)
    counts = np.zeros(len(VOCAB), dtype=int)
    # RUNS calls generate(model, PROMPT, 2, 1, rng), each with its own generator (seeds 7000, 7001,
    # ...), in one exchange; they stop after the first run the loop below fails on.
    rngs = submission.probe_each("generator", [(7000 + seed,) for seed in range(RUNS)])
    runs = submission.repeat("generate", RUNS, (model, list(PROMPT), 2, 1, None), vary={4: rngs},
                             accept=Accept(range(len(VOCAB)), length=len(PROMPT) + 2, at=3))
    for value in runs:
        got = _ids(value, "generate")
        if len(got) != len(PROMPT) + 2:
            fail(f"generate(model, {PROMPT}, 2, 1, rng) returned {len(got)} ids; it should return "
                 "the 2 ids of the prompt and 2 new ones")
        if not 0 <= got[3] < len(VOCAB):
            fail(f"generate returned the id {got[3]}; ids run from 0 to {len(VOCAB) - 1}")
        counts[got[3]] += 1
    shares = ref.apply_temperature(ref.toy_scores(toy_weights(ref), GREEDY_IDS[1:3]), 1)
    greedy = {GREEDY_DECODING: np.eye(len(VOCAB))[KING]}
    # The same fork, STEPS times in one call: a model that always gives the "live the" scores.
    stuck = _ids(generate(submission.probe("fixed_scores_model", LIVE_THE), [1, 2], STEPS, 1,
                          submission.probe("generator", 8000)), "generate")
    if len(stuck) != 2 + STEPS or not all(0 <= i < len(VOCAB) for i in stuck):
        fail(f"generate(model, [1, 2], {STEPS}, 1, rng) returned {len(stuck)} ids; it should return "
             f"the 2 ids of the prompt and {STEPS} new ones, each from 0 to {len(VOCAB) - 1}")
    _judge_counts(counts, shares, RUNS, f'the word after "long live the" in {RUNS} runs at T = 1', mistakes=greedy)
    _judge_counts(np.bincount(stuck[2:], minlength=len(VOCAB)), shares, STEPS,
                  f'{STEPS} steps at T = 1 of a model that always gives the "live the" scores', mistakes=greedy)


@check("generate", "the same seed gives the same text, other seeds other texts, and rng moves on (40 steps "
                   "at T = 2, again in reverse order and in a fresh run of the notebook)", points=1)
def check_generate_seeded(submission):
    fault = _seeded_fault(submission)
    # One bug, charged once: a sampler that does not draw from its generator makes any loop
    # around it fail here; sample_next's own check charges it (its feedback says why).
    if fault and not _sampler_at_fault(submission):
        fail(fault)


def _sampler_at_fault(submission):
    """Whether the student's ``sample_next`` misuses its generator (or fails on the way)."""
    try:
        return _generator_fault(submission) is not None
    except (Mismatch, StudentCodeError):
        return True


def _seeded_fault(submission):
    """What is wrong with how ``generate`` uses its generator (feedback text), or ``None``."""
    seeds = [9000 + k for k in range(6)]
    first = _texts(submission, seeds)
    again = _texts(submission, seeds[::-1])[::-1]
    same_seed = next((k for k in range(len(seeds)) if first[k] != again[k]), None)
    if same_seed is not None:
        return (f"{OWN_GENERATOR} (or from something it keeps between calls), not from rng: two generators of "
                f"seed {seeds[same_seed]} gave the texts {_words(first[same_seed])} and {_words(again[same_seed])} "
                f"({TEXT} steps at T = 2 of a model that always gives the \"live the\" scores)")
    rng = submission.probe("generator", seeds[0])
    _texts(submission, [rng])
    if rng.random() == _first_random(seeds[0]):
        return (f"{IGNORES_RNG}: after {TEXT} steps at T = 2 the generator rng is where it started")
    if all(text == first[0] for text in first):
        return (f"{IGNORES_RNG}: generators of the seeds {seeds[0]} to {seeds[-1]} all gave the same text "
                f"(a correct sampler repeats a text of {TEXT} steps at T = 2 with probability below 1e-12)")
    other = submission.fresh("test_generate") if hasattr(submission, "fresh") else None
    if other is None:
        return None
    try:
        fresh = _texts(other, seeds[::-1])[::-1]
    finally:
        other.close()
    changed = next((k for k in range(len(seeds)) if first[k] != fresh[k]), None)
    if changed is not None:
        return (f"{STATE_STEERS}: seed {seeds[changed]} gave {_words(first[changed])} here and "
                f"{_words(fresh[changed])} in a fresh run of your notebook")
    return None


def _texts(submission, seeds):
    """``generate(model, [1, 2], TEXT, 2, rng)`` for each seed (or generator handle) in one exchange,
    ``model`` always giving the "live the" scores; a list of lists of ids, checked as such."""
    model = submission.probe("fixed_scores_model", LIVE_THE)
    rngs = [s for s in seeds if not isinstance(s, int)] or submission.probe_each("generator", [(s,) for s in seeds])
    runs = submission.repeat("generate", len(rngs), (model, [1, 2], TEXT, 2, None), vary={4: rngs},
                             accept=Accept(range(len(VOCAB)), length=2 + TEXT, at=2 + TEXT - 1))
    out = []
    for value in runs:
        got = _ids(value, "generate")
        if len(got) != 2 + TEXT or not all(0 <= i < len(VOCAB) for i in got):
            fail(f"generate(model, [1, 2], {TEXT}, 2, rng) returned {len(got)} ids; it should return "
                 f"the 2 ids of the prompt and {TEXT} new ones, each from 0 to {len(VOCAB) - 1}")
        out.append(got)
    return out


def _words(ids):
    text = " ".join(VOCAB[i] for i in ids[2:12])
    return f'"{text} ..."'


@check("generate", "a model that reads the whole list: n steps, greedy and sampled, against the reference", points=1)
def check_generate_whole_list(generate, submission, rng):
    V = int(rng.integers(5, 12))
    scores = rng.normal(scale=3.0, size=(V, V))
    model = submission.probe("whole_list_model", scores)
    local = PROBES["whole_list_model"](scores)
    for n in (0, 1, 7):
        prompt = [int(i) for i in rng.integers(0, V, size=int(rng.integers(1, 4)))]
        want = ref.generate(local, prompt, n, 0, None)
        got = _ids(generate(model, list(prompt), n, 0, None), "generate")
        only_new = ref.generate(lambda ids: local(ids[-1:]), prompt, n, 0, None)
        expect_equal(got, want, what=f"greedy generate from {prompt}, n = {n}, {V} words",
                     mistakes={PROMPT_DROPPED: want[len(prompt):],
                               "give the model only the newest id instead of the whole list so far": only_new})
    prompt = [int(rng.integers(0, V))]
    got = _ids(generate(model, list(prompt), 6, 1.5, submission.probe("generator", 99)), "generate")
    if len(got) != 7 or got[:1] != prompt or not all(0 <= i < V for i in got):
        fail(f"generate(model, {prompt}, 6, 1.5, rng) returned {got}; it should return the prompt "
             f"followed by 6 ids from 0 to {V - 1}")

