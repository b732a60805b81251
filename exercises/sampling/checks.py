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
import functools
import math

import numpy as np

from autograder.authoring import PROBES, Accept, check, expect_close, expect_equal, fail, fmt, hidden_checks
from solutions import sampling as ref

from .cases import CASES
from .worked import KING, VOCAB, toy_weights
from .wrong import (
    GLOBAL_STATE,
    GREEDY_DECODING,
    GREEDY_IDS,
    LIVE_THE,
    PROMPT,
    PROMPT_DROPPED,
    _temperature_mistakes,
    _top_p_mistakes,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)

ALPHA = 1e-9            # largest chance that a correct sampler fails one count check
# The draws of one check are one exchange with the student's process (``submission.repeat``),
# but each ``generate`` run is a call of its own; the counts are kept to a few hundred draws per
# check, and the bounds are set for those numbers and still far from what greedy, uniform or
# shifted draws give.
DRAWS = 400             # draws per distribution in the count check of sample_next (named in its @check)
RUNS = 100              # toy-model generations in the count check of generate (named in its @check)
STEPS = 300             # draws of the one generation stuck at the fork (named in its @check)


# -- counting draws: exact binomial bounds --------------------------------------------------------
@functools.lru_cache(maxsize=16)
def _log_choose(n):
    """``log C(n, k)`` for k = 0 .. n (log-gamma), float64 array; the same for every notebook."""
    return math.lgamma(n + 1) - np.array([math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in range(n + 1)])


@functools.lru_cache(maxsize=256)
def _binomial_bounds(n, p, alpha):
    """``(lo, hi)``: the counts a Binomial(n, p) variable falls outside with probability at most
    ``alpha`` (``alpha / 2`` in each tail), from the exact distribution (log-gamma). Kept per
    grading process: the checks ask for the same few (n, p) for every notebook."""
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    k = np.arange(n + 1)
    log_pmf = _log_choose(n) + k * math.log(p) + (n - k) * math.log1p(-p)
    pmf = np.exp(log_pmf - log_pmf.max())
    pmf /= pmf.sum()
    below = np.cumsum(pmf)                 # P(X <= k)
    above = np.cumsum(pmf[::-1])[::-1]     # P(X >= k)
    lo = int(np.argmax(below > alpha / 2))                 # P(X < lo) <= alpha / 2
    hi = int(n - np.argmax(above[::-1] > alpha / 2))       # P(X > hi) <= alpha / 2
    return lo, hi


def _judge_counts(counts, shares, n, what, mistakes=None):
    """Fail unless every word's count lies in its bounds; name a mistake whose shares fit instead.

    Args:
        counts: draws per word, shape (V,). shares: the right shares (V,). n: draws in all.
        what: what was drawn, for the feedback.
        mistakes: ``{name: shares that mistake draws with}``.
    """
    V = len(shares)
    bounds = [_binomial_bounds(n, float(s), ALPHA / V) for s in shares]
    off = [i for i, (c, (lo, hi)) in enumerate(zip(counts, bounds)) if not lo <= c <= hi]
    if not off:
        return
    named = []
    for name, wrong in (mistakes or {}).items():
        wrong_bounds = [_binomial_bounds(n, float(s), ALPHA / V) for s in wrong]
        if all(lo <= c <= hi for c, (lo, hi) in zip(counts, wrong_bounds)):
            named.append(name)
    lines = [f"token {i}: drawn {int(counts[i])} times in {n}, a correct sampler gives "
             f"{bounds[i][0]} to {bounds[i][1]} (share {float(shares[i]):.4f})" for i in off[:3]]
    message = f"{what}: the draws do not follow the shares; " + "; ".join(lines)
    if named:
        message += f". That is what you get when you {' (or when you '.join(named)}"
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


@check("sample_next", '400 draws follow the shares after "live the" at T = 1 and T = 2', points=2)
def check_sample_counts(submission):
    for T, seed in ((1, 20261), (2, 20262)):
        shares = ref.apply_temperature(LIVE_THE, T)
        counts = _count_draws(submission, shares, seed, DRAWS)
        greedy = np.eye(len(shares))[int(np.argmax(shares))]
        _judge_counts(counts, shares, DRAWS, f'{DRAWS} draws after "live the" at T = {T}',
                      mistakes={"always return the most likely token (that is greedy, not sampling)": greedy,
                                "draw every token with the same chance, ignoring the shares":
                                np.full(len(shares), 1 / len(shares))})


@check("sample_next", "a share of 1 is always drawn, a share of 0 never", points=1)
def check_sample_certain(submission):
    rng = submission.probe("generator", 5)
    for shares in ([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.0, 1.0]):
        for got in _draws(submission, np.array(shares), rng, 20, [i for i, s in enumerate(shares) if s > 0]):
            if shares[got] == 0.0:
                fail(f"sample_next({shares}, rng) drew {got}, a token whose share is 0")


@check("sample_next", "uses the generator it is given: same seed, same draws; the global state plays no part",
       points=1)
def check_sample_generator(submission):
    shares = ref.apply_temperature(LIVE_THE, 2)

    def run(seed, global_seed):
        submission.probe("reseed_global", global_seed)
        return _draws(submission, shares, submission.probe("generator", seed), 20)
    first, again, reseeded = run(11, 0), run(11, 1), run(11, 0)
    if not first == again == reseeded:
        fail("two generators made with the same seed gave different draws (20 draws after "
             f"\"live the\" at T = 2, np.random reseeded in between). That is what you get when you {GLOBAL_STATE}")
    if first == run(12, 0) == run(13, 0):
        fail("three generators with different seeds gave the same 20 draws; each draw must come "
             "from the generator rng you are given")


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

