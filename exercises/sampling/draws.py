"""Draws of the "sampling" exercise's checks: how many, how they are made in the student's
process, and how they are judged (``checks.py`` holds the checks themselves).

Every judgement on draws uses fixed seeds (never the student's) and an exact test of
``counting.py`` whose chance of failing a correct sampler is below ``ALPHA`` = 1e-9, whatever
the seeds; for the seeds here the reference and the honest styles of
``tests/exercises/test_sampling_draws.py`` pass. ``docs/random-draws.md`` gives the figures.
"""
import numpy as np

from autograder.authoring import Accept, Mismatch, StudentCodeError, fail, fmt
from solutions import sampling as ref

from .counting import binomial_bounds
from .worked import VOCAB, toy_weights
from .wrong import (
    GLOBAL_STATE,
    IGNORES_RNG,
    LARGER_SHARE,
    LIVE_THE,
    NEVER_DRAWS,
    OWN_GENERATOR,
    PROMPT,
    STATE_STEERS,
)

ALPHA = 1e-9            # largest chance that a correct sampler fails one check on draws
# The draws of one check are one exchange with the student's process (``submission.repeat``,
# answered in batches). The numbers below are the fewest that keep the mistakes far outside the
# bounds (docs/random-draws.md gives the figures; tests/exercises/test_sampling.py computes them).
DRAWS = 400             # draws per near-even distribution in the count check (the @check names these numbers)
SKEWED = 1000           # draws on the skewed shares: the argmax(rng.random(V) * p) rule falls outside
PAIRS = 600             # non-overlapping pairs of consecutive draws in the independence check
BLOCKS, BLOCK = 40, 100 # blocks of consecutive draws in the too-even check
RUNS = 100              # toy-model generations in the count check of generate (named in its @check)
STEPS = 300             # draws of the one generation stuck at the fork (named in its @check)
TEXT = 40               # steps of each generation compared in the seeded check of generate


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
        message += ("; each token must come up in proportion to its share (a correct sampler fails this check "
                    f"with probability below {ALPHA:g}). That is what you get when you {LARGER_SHARE}")
        fail(message)
    fail(message + f" (a correct sampler fails this check with probability below {ALPHA:g})")


def _as_id(value, V, what):
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"{what} returned {fmt(value)}; it should return one token id, an int")
    if not 0 <= value < V:
        fail(f"{what} returned {value}; ids run from 0 to {V - 1}")
    return value


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


_EVEN4 = np.full(4, 0.25)   # four equal shares: two unrelated runs of 20 draws agree with chance 4**-20


def _first_random(seed, skip=0):
    """The ``skip``-th ``random()`` of ``np.random.default_rng(seed)``, computed here."""
    return float(np.random.default_rng(seed).random(skip + 1)[-1])


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
        return ("after 20 draws rng is where it started (its next random() is the first one of a new generator "
                f"of the same seed). That is what you get when you {NEVER_DRAWS}")
    if run(11, 0, advance=3)[0] == first:
        return ("a generator of the same seed moved on by 3 numbers before the draws gave the same 20 draws (a "
                f"correct sampler agrees with probability 4**-20, below 1e-12). That is what you get when you {NEVER_DRAWS}")
    if run(12, 0)[0] == first:
        return ("generators seeded 11 and 12 gave the same 20 draws on four equal shares (a correct sampler "
                f"agrees with probability 4**-20, below 1e-12). That is what you get when you {NEVER_DRAWS}")
    return None


def _toy_model(submission):
    w = toy_weights(ref)
    return submission.probe("two_word_model", w["table"], w["W_hidden"], w["b_hidden"], w["W_out"], w["b_out"])


def _ids(value, what):
    if not isinstance(value, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                       for i in value):
        fail(f"{what} returned {fmt(value)}; it should return a list of int token ids")
    return list(value)


def _in_fresh_run(submission, judge):
    """``judge(other)`` on a fresh run of the student's notebook up to ``generate``'s hidden-test
    cell, where none of this submission's calls (the student's ``generate`` among them) ran: a
    ``sample_next`` that answers wrongly only once ``generate`` has run cannot buy ``generate``
    an excuse. Where the notebook cannot be run again (a namespace without its notebook), on
    this submission."""
    other = submission.fresh("test_generate") if hasattr(submission, "fresh") else None
    if other is None:
        return judge(submission)
    try:
        return judge(other)
    finally:
        other.close()


def _loop_of_reference_fails(submission, shares):
    """Whether the reference ``generate`` calling the student's ``sample_next`` fails the counts
    of ``check_generate_sampled`` too (the same seeds; the toy model run here), in a fresh run
    of the notebook (``_in_fresh_run``)."""
    return _in_fresh_run(submission, lambda other: _reference_loop_fails(other, shares))


def _reference_loop_fails(submission, shares):
    weights = toy_weights(ref)
    sample_next = submission.function("sample_next")
    counts = np.zeros(len(VOCAB), dtype=int)
    try:
        for rng in submission.probe_each("generator", [(7000 + seed,) for seed in range(RUNS)]):
            ids = list(PROMPT)
            for _ in range(2):
                ids.append(_as_id(sample_next(ref.apply_temperature(ref.toy_scores(weights, ids), 1), rng),
                                  len(VOCAB), "sample_next"))
            counts[ids[3]] += 1
        stuck = _draws(submission, ref.apply_temperature(LIVE_THE, 1), submission.probe("generator", 8000), STEPS)
        _judge_counts(counts, shares, RUNS, "the reference loop")
        _judge_counts(np.bincount(stuck, minlength=len(VOCAB)), shares, STEPS, "the reference loop")
    except (Mismatch, StudentCodeError):
        return True
    return False


def _sampler_at_fault(submission):
    """Whether the student's ``sample_next`` misuses its generator (or fails on the way), in a
    fresh run of the notebook (``_in_fresh_run``)."""
    def judge(other):
        try:
            return _generator_fault(other) is not None
        except (Mismatch, StudentCodeError):
            return True
    return _in_fresh_run(submission, judge)


def _seeded_fault(submission):
    """What is wrong with how ``generate`` uses its generator (feedback text), or ``None``."""
    seeds = [9000 + k for k in range(6)]
    first = _texts(submission, seeds)
    again = _texts(submission, seeds[::-1])[::-1]
    same_seed = next((k for k in range(len(seeds)) if first[k] != again[k]), None)
    if same_seed is not None:
        return (f"two generators of seed {seeds[same_seed]} gave the texts {_words(first[same_seed])} and "
                f"{_words(again[same_seed])} ({TEXT} steps at T = 2 of a model that always gives the \"live the\" "
                f"scores). That is what you get when you {OWN_GENERATOR}")
    rng = submission.probe("generator", seeds[0])
    _texts(submission, [rng])
    if rng.random() == _first_random(seeds[0]):
        return (f"after {TEXT} steps at T = 2 the generator rng is where it started. That is what you get when "
                f"you {IGNORES_RNG}")
    if all(text == first[0] for text in first):
        return (f"generators of the seeds {seeds[0]} to {seeds[-1]} all gave the same text (a correct sampler "
                f"repeats a text of {TEXT} steps at T = 2 with probability below 1e-12). That is what you get "
                f"when you {IGNORES_RNG}")
    other = submission.fresh("test_generate") if hasattr(submission, "fresh") else None
    if other is None:
        return None
    try:
        fresh = _texts(other, seeds[::-1])[::-1]
    finally:
        other.close()
    changed = next((k for k in range(len(seeds)) if first[k] != fresh[k]), None)
    if changed is not None:
        return (f"seed {seeds[changed]} gave {_words(first[changed])} here and {_words(fresh[changed])} in a "
                f"fresh run of your notebook. That is what you get when you {STATE_STEERS}")
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
