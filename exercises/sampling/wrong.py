"""Small wrong implementations of the "sampling" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a check
(``checks.py``) can name the mistake when a student's value matches it. Also the inputs both
of those use: toy model 1's scores after "live the" and the greedy run's ids.
"""
import numpy as np

from solutions import sampling as ref

from .worked import GREEDY_TEXT, VOCAB, live_the_logits

LIVE_THE = live_the_logits(ref)          # toy model 1's scores after "live the" (worked.py)
PROMPT = [VOCAB.index("long"), VOCAB.index("live")]
GREEDY_IDS = [VOCAB.index(w) for w in GREEDY_TEXT.split()]   # long live the king said yes

MULTIPLIES = "multiply the scores by T instead of dividing them by T"
AFTER_SOFTMAX = "apply the temperature after the softmax (dividing the shares by T)"
AFTER_RENORMALISED = ("apply the temperature after the softmax and renormalise, which undoes it: "
                      "T must divide the scores, before the softmax")
UNSHIFTED = "exponentiate the divided scores without first subtracting the largest one (overflow)"
LAST_TIE = "take the last of the tied top scores (np.argmax gives the first)"
TIE_SPLIT = "split the share between the tied scores"
ZERO_DIVIDED = "divide the scores by T = 0 instead of giving the top score share 1 (the shares come out nan)"
CROSSING_DROPPED = "drop the token whose share makes the total reach p (it must be kept)"
NOT_RENORMALISED = "keep the right tokens but forget to renormalise their shares to sum to 1"
ASCENDING = "sort the shares in ascending order, keeping the least likely tokens first"
REVERSED_TIES = "reverse an ascending sort, which puts tied tokens in reverse id order"
GLOBAL_STATE = ("draw from numpy's global random state (np.random.choice, np.random.random) or Python's "
                "random module instead of the generator rng you are given")
NEVER_DRAWS = "never draw from the generator rng your sampler is given"
NOT_INDEPENDENT = "make each draw depend on the ones before it"
LARGER_SHARE = "pick the larger share more often than its share (a rule that is not proportional to the shares)"
TOO_EVEN = ("make your draws track the shares (a counter or a fixed sequence) instead of drawing them at "
            "random: the counts come out too even for chance")
OWN_GENERATOR = "draw from a generator of your own in `generate` (or from something it keeps between calls), not from rng"
IGNORES_RNG = "never draw from the generator rng `generate` is given"
STATE_STEERS = ("let what `generate` keeps between calls (a global, a function attribute, a cache) steer it: "
                "the same seed must give the same text, whatever ran before")
SAME_DRAWS_EACH_RUN = ("draw from a generator of your own, made afresh with one seed in each run, instead of "
                       "the rng each run is given (every run then draws the same)")
PROMPT_DROPPED = "return only the new ids, without the prompt in front"
GREEDY_DECODING = "decode greedily whatever T is"
GREEDY_OR_SAME_DRAWS = f"{GREEDY_DECODING} (or {SAME_DRAWS_EACH_RUN})"


def _softmax(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def _temperature_mistakes(logits, T):
    """The values the known wrong temperatures give for ``logits`` at ``T`` > 0."""
    z = np.asarray(logits, dtype=float)
    with np.errstate(all="ignore"):
        e = np.exp(z / T)
        unshifted = e / e.sum()
    return {MULTIPLIES: _softmax(z * T), AFTER_SOFTMAX: _softmax(z) / T, AFTER_RENORMALISED: _softmax(z),
            UNSHIFTED: unshifted if not np.allclose(unshifted, ref.apply_temperature(z, T)) else None}


def _top_p_variant(probs, p, how):
    """``top_p_filter`` done wrong in one way (``how``), for naming the mistake."""
    probs = np.asarray(probs, dtype=float)
    if how == "ascending":
        order = np.argsort(probs, kind="stable")
    elif how == "reversed_ties":
        order = np.argsort(probs, kind="stable")[::-1]
    else:
        order = np.argsort(-probs, kind="stable")
    total = np.cumsum(probs[order])
    k = min(int(np.sum(total < p)) + 1, len(probs))
    if how == "crossing_dropped":
        k = int(np.sum(total < p))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    if how == "not_renormalised":
        return kept
    if kept.sum() == 0:  # nothing kept: renormalising divides 0 by 0, every share nan
        return np.full_like(probs, np.nan) if how == "crossing_dropped" else None
    return kept / kept.sum()


def _top_p_mistakes(probs, p):
    return {CROSSING_DROPPED: _top_p_variant(probs, p, "crossing_dropped"),
            NOT_RENORMALISED: _top_p_variant(probs, p, "not_renormalised"),
            ASCENDING: _top_p_variant(probs, p, "ascending"),
            REVERSED_TIES: _top_p_variant(probs, p, "reversed_ties")}

