"""The sampling exercise: the course's temperature figures from the reference, the count
test's bounds, the probes, every named mistake caught in-kernel, and honest styles at full marks."""
import math

import numpy as np
import pytest

from autograder.checks.plugin import run_checks
from autograder.child.probes import PROBES
from autograder.core.registry import EXERCISES
from autograder.demo.styles.sampling import STYLES
from autograder.submission.local import LocalSubmission

SECRET = b"test-secret"
SAMPLING = EXERCISES["sampling"]
POINTS = SAMPLING.points  # declared in exercise.toml; test_exercises.py sums the checks

VOCAB = ["long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now"]
KING, QUEEN, BANANA = 3, 4, 8


@pytest.fixture(scope="module")
def ref():
    from solutions import sampling
    return sampling


@pytest.fixture(scope="module")
def toy(ref):
    """Toy model 1 trained by the reference, and its ten scores after "live the"."""
    weights = ref.train_toy_model()
    return weights, ref.toy_scores(weights, [1, 2])


def _softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


# -- the course's figures (typed here from the course's worked examples, independently of worked.py) --
def test_temperature_shares_at_the_fork(ref, toy):
    _, z = toy
    for T, king, queen in ((1, 0.523, 0.477), (0.5, 0.545, 0.455), (2, 0.502, 0.479)):
        shares = ref.apply_temperature(z, T)
        assert shares.dtype == np.float64 and shares.shape == (10,)
        assert abs(shares.sum() - 1) < 1e-12
        assert abs(shares[KING] - king) < 5e-4 and abs(shares[QUEEN] - queen) < 5e-4, (T, shares)
        assert np.allclose(shares, _softmax(z / T), atol=1e-12)       # the definition, computed here
    assert abs(ref.apply_temperature(z, 2)[BANANA] - 0.0054) < 5e-5
    assert ref.apply_temperature(z, 1)[BANANA] < 1e-4                   # under a hundredth of a percent
    # the text's whole percents: 52/48, 55/45, 50/48
    assert [round(100 * ref.apply_temperature(z, T)[i]) for T in (1, 0.5, 2) for i in (KING, QUEEN)] == \
        [52, 48, 55, 45, 50, 48]


def test_greedy_decoding_says_king(ref, toy):
    weights, _ = toy
    ids = ref.generate(lambda ids: ref.toy_scores(weights, ids), [0, 1], 4, 0, None)
    assert " ".join(VOCAB[i] for i in ids) == "long live the king said yes"


def test_sat_against_the(ref):
    z = np.array([1.669762, 1.0, 2.669762, -0.669762, 0.669762])
    p = ref.apply_temperature(z, 1)
    assert abs(p[2] - 0.5791) < 5e-5 and abs(p[0] - 0.2130) < 5e-5 and int(np.argmax(p)) == 2
    for T in (0.5, 2, 5, 25):   # the logits differ by exactly 1: the ratio of the shares is e^(1/T)
        p = ref.apply_temperature(z, T)
        assert math.isclose(p[2] / p[0], math.exp(1 / T), rel_tol=1e-5)
    gaps = [ref.apply_temperature(z, T)[2] - ref.apply_temperature(z, T)[0] for T in (1, 2, 5, 25)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 0.01      # the gap closes as T grows


def test_temperature_edge_cases(ref):
    assert ref.apply_temperature([1.0, 3.0, -2.0, 3.0], 0).tolist() == [0, 1, 0, 0]   # first of the tied
    with pytest.raises(ValueError, match="temperature"):
        ref.apply_temperature([1.0, 2.0], -0.5)
    big = np.array([3000.0, 2990.0, 0.0])
    assert np.allclose(ref.apply_temperature(big, 0.5), [1.0, math.exp(-20), 0.0], atol=1e-12)
    assert np.allclose(ref.apply_temperature(np.float32([1, 2]), 1), _softmax(np.array([1.0, 2.0])), atol=1e-7)


def test_top_p_contract(ref):
    p = np.array([0.2130, 0.1090, 0.5791, 0.0205, 0.0784])
    assert np.allclose(ref.top_p_filter(p, 0.75), [0.2130 / 0.7921, 0, 0.5791 / 0.7921, 0, 0])
    assert ref.top_p_filter(p, 0.4).tolist() == [0, 0, 1, 0, 0]
    assert ref.top_p_filter([0.1, 0.3, 0.3, 0.3], 0.5).tolist() == [0, 0.5, 0.5, 0]   # lower ids first
    assert np.allclose(ref.top_p_filter(np.full(10, 0.1), 1.0), 0.1)                  # sums to 0.999...
    assert ref.top_p_filter([0.6, 0.4], 0.6).tolist() == [1.0, 0.0]                 # reaching p exactly is enough
    for bad in (0, -0.1, 1.5):
        with pytest.raises(ValueError):
            ref.top_p_filter(p, bad)


def test_sample_next_draws_and_reproducibility(ref):
    shares = np.array([0.5, 0.0, 0.3, 0.2])
    draws = [ref.sample_next(shares, np.random.default_rng(s)) for s in range(3000)]
    assert all(type(d) is int for d in draws) and 1 not in draws
    assert abs(draws.count(0) / 3000 - 0.5) < 0.05
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    np.random.seed(0)
    a = [ref.sample_next(shares, rng_a) for _ in range(30)]
    np.random.seed(1)
    assert a == [ref.sample_next(shares, rng_b) for _ in range(30)]


# -- the count test's bounds -------------------------------------------------------------------------
def _tail_below(n, p, lo):
    return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(lo))


def test_binomial_bounds_hold_their_false_failure_rate():
    from exercises.sampling.counting import binomial_bounds as _binomial_bounds
    for n, p, alpha in ((50, 0.3, 0.01), (400, 0.523, 1e-10), (100, 0.05, 1e-6)):
        lo, hi = _binomial_bounds(n, p, alpha)
        below, above = _tail_below(n, p, lo), 1 - _tail_below(n, p, hi + 1)
        assert below <= alpha / 2 and above <= alpha / 2 + 1e-15, (n, p, lo, hi)
        # and they are the tightest such bounds
        assert _tail_below(n, p, lo + 1) > alpha / 2 and 1 - _tail_below(n, p, hi) > alpha / 2
    assert _binomial_bounds(10, 0.0, 1e-9) == (0, 0) and _binomial_bounds(10, 1.0, 1e-9) == (10, 10)
    # 400 draws: greedy (all king) and uniform draws (40 kings) are both far outside king's bounds
    lo, hi = _binomial_bounds(400, 0.523, 1e-10)
    assert 40 < lo and hi < 400


# -- the probes the checks hand to the student's code --------------------------------------------------
def test_probes(ref, toy):
    weights, z = toy
    model = PROBES["two_word_model"](*(weights[k] for k in ("table", "W_hidden", "b_hidden", "W_out", "b_out")))
    assert np.array_equal(model([0, 1, 2]), ref.toy_scores(weights, [1, 2]))
    assert np.allclose(model(np.array([1, 2])), z)
    with pytest.raises(ValueError, match="two"):
        model([2])
    scores = np.arange(16.0).reshape(4, 4)
    whole = PROBES["whole_list_model"](scores)
    assert whole([1, 2]).tolist() == scores[(3 + 2) % 4].tolist() and whole([2]).tolist() == scores[3].tolist()
    fixed = PROBES["fixed_scores_model"](z)
    out = fixed([5])
    out[:] = 0
    assert np.array_equal(fixed([1, 2, 3]), z)        # a caller changing the scores changes nothing
    a, b = PROBES["generator"](4), PROBES["generator"](4)
    assert a.random() == b.random()
    PROBES["reseed_global"](9)
    first = np.random.random()
    PROBES["reseed_global"](9)
    assert np.random.random() == first


# -- in-kernel grading: the reference, every named mistake ------------------------------------------------
def _graded(ref, code=None):
    """The checks run in-kernel on a namespace like a notebook's: the reference's code run in
    it (so its generate calls the namespace's helpers), then ``code`` over it."""
    namespace = {"__name__": "__main__"}
    exec(compile(SAMPLING.solution_module.read_text(), str(SAMPLING.solution_module), "exec"), namespace)
    if code:
        exec(code, namespace)
    return run_checks(SAMPLING, LocalSubmission(namespace), "s1", SECRET)


def test_reference_full_marks_in_kernel(ref):
    results = _graded(ref)
    assert [(r.name, r.output) for r in results if r.score < r.max_score] == []
    assert sum(r.max_score for r in results) == POINTS


def _mistakes():
    from exercises.sampling.hand_ins import MISTAKES, NAMED
    return [pytest.param(m, id=m.label) for m in MISTAKES if m.label in NAMED]


@pytest.mark.parametrize("mistake", _mistakes())
def test_named_mistake_loses_its_checks_and_is_named(ref, mistake):
    results = _graded(ref, mistake.code)
    failed = {r.name: r.output for r in results if r.score < r.max_score}
    assert set(failed) == set(mistake.failing_checks)
    assert any(mistake.feedback in out for out in failed.values()), failed


def test_named_mistakes_are_the_issues_six():
    from exercises.sampling.hand_ins import NAMED
    assert set(NAMED) == {"multiplies_by_T", "temperature_after_softmax", "crossing_token_dropped",
                          "not_renormalised", "global_random_state", "sorted_ascending"}


def test_a_sampler_bug_is_charged_once(ref):
    """Greedy draws in sample_next cost sample_next's points, not generate's."""
    results = _graded(ref, "def sample_next(probs, rng):\n    return int(np.argmax(probs))\n")
    failed = {r.name for r in results if r.score < r.max_score}
    assert failed and all(name.startswith("sample_next:") for name in failed), failed
    fork = next(r for r in results if r.name.startswith("generate: T = 1"))
    assert fork.score == fork.max_score and fork.output.startswith("passed on account of sample_next"), fork.output


def test_a_greedy_bug_in_apply_temperature_is_charged_once(ref):
    """apply_temperature dividing by T = 0: generate's greedy checks see nan shares, and keep their points."""
    code = "def apply_temperature(logits, T):\n    with np.errstate(all='ignore'):\n        return softmax(np.asarray(logits) / T)\n"
    results = _graded(ref, code)
    failed = {r.name for r in results if r.score < r.max_score}
    assert {name.split(":")[0] for name in failed} == {"apply_temperature"}, failed
    greedy = next(r for r in results if r.name.startswith("generate: greedy"))
    assert greedy.output.startswith("passed on account of apply_temperature"), greedy.output


# -- honest styles keep full marks --------------------------------------------------------------------------
# The demo students' honest styles (autograder/demo/styles/sampling.py), each graded full marks here.
HONEST = {"loops": STYLES["cy"], "einsum, searchsorted, float32 inputs cast up": STYLES["dee"],
          "copies, powers of the shares and multinomial draws": STYLES["eve"]}


def _cells(code):
    """``{function: its solution cell}``: the hand-in split at its top-level ``def``s (what
    comes before the first one, imports, goes with it)."""
    head, *defs = code.split("\ndef ")
    cells = {}
    for i, body in enumerate(defs):
        name = body.split("(", 1)[0]
        cells[name] = (head + "\n" if i == 0 else "") + "def " + body
    assert tuple(cells) == tuple(SAMPLING.functions)
    return cells


@pytest.mark.parametrize("style", sorted(HONEST))
def test_honest_style_keeps_every_point_in_kernel(ref, style):
    results = _graded(ref, HONEST[style])
    assert [(r.name, r.output) for r in results if r.score < r.max_score] == []


@pytest.mark.parametrize("style", [pytest.param(s, marks=() if s == "loops" else pytest.mark.slow)
                                   for s in sorted(HONEST)])
def test_honest_style_keeps_every_point_when_graded(hand_in, style):
    """The same hand-ins, graded as the course grades them (a sandboxed child)."""
    result = hand_in(SAMPLING, _cells(HONEST[style]))
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []
    assert result.score == result.max_score == POINTS
