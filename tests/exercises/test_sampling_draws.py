"""Random draws judged as random draws: honest samplers of every style keep every point, and
samplers that cheat or are wrong lose the points of the property they break, named in the
student's words. Each hand-in goes through the real grader (a confined child, as
``python -m autograder grade`` runs it); the exact tests' figures are computed here
independently of ``exercises/sampling/counting.py`` (plain ``math.comb`` sums, fractions)."""
import math
from fractions import Fraction

import numpy as np
import pytest

from autograder.core.registry import EXERCISES
from exercises.sampling.wrong import (
    IGNORES_RNG,
    LARGER_SHARE,
    NEVER_DRAWS,
    NOT_INDEPENDENT,
    OWN_GENERATOR,
    STATE_STEERS,
    TOO_EVEN,
)

SAMPLING = EXERCISES["sampling"]
POINTS = SAMPLING.points

# -- honest styles: each is a whole sample_next or generate solution cell ----------------------
HONEST_SAMPLERS = {
    "rng.choice": '''
def sample_next(probs, rng):
    return int(rng.choice(len(probs), p=probs))
''',
    "running total in a loop": '''
def sample_next(probs, rng):
    u = rng.random()
    total = 0.0
    for i, share in enumerate(probs):
        total += share
        if u < total:
            return i
    return max(i for i, share in enumerate(probs) if share > 0)
''',
    "searchsorted on the cumulative shares": '''
def sample_next(probs, rng):
    cdf = np.cumsum(probs)
    return int(min(np.searchsorted(cdf, rng.uniform(0, cdf[-1]), side="right"), len(cdf) - 1))
''',
    "inverse CDF from the top end": '''
def sample_next(probs, rng):
    probs = np.asarray(probs, dtype=float)
    u = rng.random() * probs.sum()
    for i in range(len(probs) - 1, -1, -1):   # walk down from the last token
        u -= probs[i]
        if u < 0 and probs[i] > 0:
            return i
    return int(np.flatnonzero(probs)[0])
''',
    "Gumbel-max": '''
def sample_next(probs, rng):
    with np.errstate(divide="ignore"):
        return int(np.argmax(np.log(probs) + rng.gumbel(size=len(probs))))
''',
    "rng.multinomial": '''
def sample_next(probs, rng):
    return int(np.argmax(rng.multinomial(1, probs)))
''',
    "exponential race": '''
def sample_next(probs, rng):
    with np.errstate(divide="ignore"):
        return int(np.argmin(rng.exponential(size=len(probs)) / np.asarray(probs)))
''',
    "shares sorted first, then one uniform": '''
def sample_next(probs, rng):
    order = sorted(range(len(probs)), key=lambda i: -probs[i])
    u, total = rng.random(), 0.0
    for i in order:
        total += probs[i]
        if u < total:
            return i
    return order[0]
''',
}

HONEST_GENERATE = '''
def generate(model, prompt, n, T, rng):
    ids = list(prompt)
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        # its own draw, not sample_next's: a uniform from rng against the cumulative shares
        if T == 0:
            ids.append(int(np.argmax(shares)))
        else:
            i = int(np.searchsorted(np.cumsum(shares), rng.random() * shares.sum(), side="right"))
            ids.append(min(i, len(shares) - 1))
    return ids
'''


def _failed(result):
    """``{check function name: feedback}`` of the checks that lost points."""
    names = {c.name: c for c in result.checks}
    out = {}
    for name, c in names.items():
        if c.score < c.max_score:
            out[_check_id(name)] = c.output
    return out


def _check_id(name):
    """The check function behind a result's name (``function: description``)."""
    from autograder.checks.declared import check_functions
    for fn_name, meta in check_functions(SAMPLING):
        if f"{meta.function}: {meta.name}" == name or meta.name == name:
            return fn_name
    return name


@pytest.mark.slow
@pytest.mark.parametrize("style", sorted(HONEST_SAMPLERS))
def test_honest_sampler_keeps_every_point(hand_in, style):
    result = hand_in(SAMPLING, {"sample_next": HONEST_SAMPLERS[style]})
    assert _failed(result) == {}
    assert result.score == result.max_score == POINTS


@pytest.mark.slow
def test_a_generate_that_draws_itself_from_rng_keeps_every_point(hand_in):
    result = hand_in(SAMPLING, {"generate": HONEST_GENERATE})
    assert _failed(result) == {}
    assert result.score == POINTS


# -- samplers that cheat, or are wrong in ways a student would not notice -------------------
STATE_READER = '''
_PHI = (5 ** 0.5 - 1) / 2
_made = {}

def sample_next(probs, rng):
    # a low-discrepancy sequence offset by the generator's state, read and never advanced
    key = id(rng)
    start, k = _made.get(key, (rng.bit_generator.state["state"]["state"] % 9973 / 9973, 0))
    _made[key] = (start, k + 1)
    u = (start + k * _PHI) % 1.0
    return int(min(np.searchsorted(np.cumsum(probs), u, side="right"), len(probs) - 1))
'''

ARGMAX_RULE = '''
def sample_next(probs, rng):
    return int(np.argmax(rng.random(len(probs)) * np.asarray(probs)))
'''

STICKY = '''
_previous = {}

def sample_next(probs, rng):
    # half of the time the last token again (the right shares in the long run, not independent)
    key = id(rng)
    if key in _previous and rng.random() < 0.5:
        return _previous[key]
    _previous[key] = int(rng.choice(len(probs), p=probs))
    return _previous[key]
'''

TRACKER = '''
_drawn = {}

def sample_next(probs, rng):
    # the token furthest behind its share, after a draw from rng for show
    rng.random()
    counts = _drawn.setdefault(id(rng), np.zeros(len(probs)))
    if len(counts) != len(probs):
        counts = _drawn[id(rng)] = np.zeros(len(probs))
    behind = (counts.sum() + 1) * np.asarray(probs) - counts
    i = int(np.argmax(behind))
    counts[i] += 1
    return i
'''

OWN_UNSEEDED = '''
def generate(model, prompt, n, T, rng):
    mine = np.random.default_rng()        # not the rng handed in
    ids = list(prompt)
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        ids.append(int(np.argmax(shares)) if T == 0 else sample_next(shares, mine))
    return ids
'''

OWN_SEEDED = OWN_UNSEEDED.replace("np.random.default_rng()", "np.random.default_rng(0)")

TALLY = '''
_tally = {}

def generate(model, prompt, n, T, rng):
    ids = list(prompt)
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        if T == 0:
            ids.append(int(np.argmax(shares)))
            continue
        counts = _tally.setdefault(len(shares), np.zeros(len(shares)))
        i = int(np.argmax((counts.sum() + 1) * shares - counts))   # each token as often as its share
        counts[i] += 1
        ids.append(i)
    return ids
'''

CACHED_TALLY = '''
_tally, _seen = {}, {}

def generate(model, prompt, n, T, rng):
    key = (str(rng.bit_generator.state) if rng is not None else None, tuple(prompt), n, T)
    if rng is not None:
        rng.random()                       # rng moves on, as if it had been drawn from
    if key in _seen:                       # a seed seen before gets the same text again
        return list(_seen[key])
    ids = list(prompt)
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        if T == 0:
            ids.append(int(np.argmax(shares)))
            continue
        counts = _tally.setdefault(len(shares), np.zeros(len(shares)))
        i = int(np.argmax((counts.sum() + 1) * shares - counts))
        counts[i] += 1
        ids.append(i)
    _seen[key] = list(ids)
    return ids
'''

SAMPLE = {"generator": "check_sample_generator", "counts": "check_sample_counts",
          "pairs": "check_sample_independent", "even": "check_sample_not_too_even"}
SEEDED, FORK = "check_generate_seeded", "check_generate_sampled"

MISTAKES = {
    # cell, function, {check that must lose its points: phrase its feedback must hold}, checks that may also
    "state read, never advanced": ("sample_next", STATE_READER, {
        SAMPLE["generator"]: f"when you {NEVER_DRAWS}",
        SAMPLE["even"]: f"when you {TOO_EVEN}"}, {SAMPLE["pairs"]}),
    "argmax of uniforms times shares": ("sample_next", ARGMAX_RULE, {
        SAMPLE["counts"]: f"when you {LARGER_SHARE}"}, set()),
    "half of the draws repeat the last": ("sample_next", STICKY, {
        SAMPLE["pairs"]: f"when you {NOT_INDEPENDENT}"}, {SAMPLE["counts"]}),
    "the token furthest behind its share": ("sample_next", TRACKER, {
        SAMPLE["even"]: f"when you {TOO_EVEN}"}, {SAMPLE["pairs"], SAMPLE["counts"], SAMPLE["generator"]}),
    "generate with an unseeded generator of its own": ("generate", OWN_UNSEEDED, {
        SEEDED: f"when you {OWN_GENERATOR}"}, set()),
    "generate with a generator of its own, seeded": ("generate", OWN_SEEDED, {
        SEEDED: f"when you {IGNORES_RNG}",
        FORK: "draw from a generator of your own, made afresh with one seed in each run"}, set()),
    "generate with no randomness, a tally in module state": ("generate", TALLY, {
        SEEDED: f"when you {OWN_GENERATOR}"}, set()),
    "generate with a tally and a cache of the seeds it saw": ("generate", CACHED_TALLY, {
        SEEDED: f"when you {STATE_STEERS}"}, set()),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_wrong_sampler_loses_the_property_it_breaks(hand_in, name):
    function, code, must, may = MISTAKES[name]
    result = hand_in(SAMPLING, {function: code})
    failed = _failed(result)
    assert set(must) <= set(failed) <= set(must) | set(may), failed
    for check_name, phrase in must.items():
        assert phrase in failed[check_name], failed[check_name]
    assert not any("decode greedily" in text for text in failed.values()), failed   # none of these is greedy
    assert result.score == POINTS - len(failed)      # every check of these is worth one point


# -- the exact tests' figures, computed here from their definitions ----------------------------
def _binomial_tail_at_most(n, p, k):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def test_the_argmax_rule_falls_outside_the_skewed_count_bounds():
    """The argmax(rng.random(V) * p) rule on 0.7/0.2/0.1 picks the 0.7 token with probability
    0.8452 (computed exactly below); with 1,000 draws it falls inside the bounds a correct sampler
    keeps to with probability below 1e-5, so the skewed count check catches it."""
    from exercises.sampling.counting import binomial_bounds
    from exercises.sampling.draws import ALPHA, SKEWED
    # P(u0 p0 > u1 p1 and u0 p0 > u2 p2), uniforms u: the integral over x = u0 p0 in (0, 0.7) of
    # min(x / 0.2, 1) min(x / 0.1, 1) / 0.7, a polynomial on (0, 0.1), (0.1, 0.2), (0.2, 0.7)
    p0, p1, p2 = Fraction(7, 10), Fraction(2, 10), Fraction(1, 10)
    top = float((p2 ** 3 / 3 / (p1 * p2) + (p1 ** 2 - p2 ** 2) / 2 / p1 + (p0 - p1)) / p0)
    assert abs(top - 0.8452) < 1e-4
    lo, hi = binomial_bounds(SKEWED, 0.7, ALPHA / 3)
    inside = _binomial_tail_at_most(SKEWED, top, hi) - _binomial_tail_at_most(SKEWED, top, lo - 1)
    assert inside < 1e-5
    # and a correct sampler is outside with probability at most ALPHA / 3
    outside = 1 - (_binomial_tail_at_most(SKEWED, 0.7, hi) - _binomial_tail_at_most(SKEWED, 0.7, lo - 1))
    assert outside <= ALPHA / 3 * (1 + 1e-6)


def test_fisher_exact_test_matches_the_hypergeometric_sum():
    from exercises.sampling.counting import fisher_two_sided
    a, b, c, d = 7, 3, 2, 8
    r1, c1, n = a + b, a + c, a + b + c + d

    def h(k):
        return Fraction(math.comb(c1, k) * math.comb(n - c1, r1 - k), math.comb(n, r1))
    upper = sum(h(k) for k in range(a, min(r1, c1) + 1))
    lower = sum(h(k) for k in range(max(0, r1 + c1 - n), a + 1))
    assert math.isclose(fisher_two_sided(a, b, c, d), float(min(1, 2 * min(upper, lower))), rel_tol=1e-9)
    assert fisher_two_sided(5, 5, 5, 5) == 1.0


def test_too_even_tail_is_the_exact_convolution():
    """For 3 blocks of 4 draws at share 1/2 the tail is a finite sum, enumerated here."""
    from itertools import product

    from exercises.sampling.counting import too_even_tail
    pmf = {x: Fraction(math.comb(4, x), 16) for x in range(5)}
    for blocks in ([2, 2, 2], [1, 2, 3], [2, 3, 3]):
        s = sum((x - 2) ** 2 for x in blocks)
        mean = 3 * sum(q * (x - 2) ** 2 for x, q in pmf.items())
        at = min(s, math.floor(mean))
        exact = sum(pmf[x] * pmf[y] * pmf[z] for x, y, z in product(range(5), repeat=3)
                    if (x - 2) ** 2 + (y - 2) ** 2 + (z - 2) ** 2 <= at)
        assert math.isclose(too_even_tail(blocks, 4, 0.5), float(exact), rel_tol=1e-12)


def test_the_too_even_check_catches_draws_within_two_of_their_share():
    """Blocks all within 2 of 60 (what a counter or a low-discrepancy sequence gives) fall below
    1e-9; blocks a correct sampler gives, with their usual spread, are far above it."""
    from exercises.sampling.counting import too_even_tail
    from exercises.sampling.draws import ALPHA, BLOCK, BLOCKS
    assert too_even_tail([58, 62] * (BLOCKS // 2), BLOCK, 0.6) < ALPHA
    phi = (5 ** 0.5 - 1) / 2
    for start in (0.0, 0.3, 0.77):
        u = (start + phi * np.arange(BLOCKS * BLOCK)) % 1
        assert too_even_tail((u < 0.6).reshape(BLOCKS, BLOCK).sum(axis=1), BLOCK, 0.6) < ALPHA
    spread = [60 + d for d in (-5, 5, -4, 4, -6, 6, -3, 3, -5, 5)] * (BLOCKS // 10)   # sd of a block: 4.9
    assert too_even_tail(spread, BLOCK, 0.6) > 0.01
