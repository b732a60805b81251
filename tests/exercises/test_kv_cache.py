"""The kv_cache exercise: reference and stubs graded end to end, worked values, the counting
weights (products computed and counted by the grader), in the child and in-kernel, and
the solution notebook run by nbclient."""

import numpy as np
import pytest

from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
from autograder.submission.local import LocalSubmission

SECRET = b"test-secret"
KV_CACHE = EXERCISES["kv_cache"]
POINTS = EXERCISES["kv_cache"].points  # declared in exercise.toml; test_exercises.py sums the checks
COUNT_CHECK = "decode_step: each step projects only the new token (rows counted through W_Q, W_K, W_V)"


# -- the reference reproduces every worked value (typed from the course text, docs/worked-examples.md: attention and kv_cache
#    and 7, independently of the check file) -------------------------------------------------------
@pytest.fixture(scope="module")
def ref():
    from solutions import kv_cache
    return kv_cache


THE_CAT = np.array([[1.0, 0.0], [1.0, 1.0]])
WEIGHTS = (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[1.0, 1.0], [0.0, 1.0]]),
           np.array([[0.0, 1.0], [1.0, 0.0]]))


def test_worked_decoding_the_cat(ref):
    cache = ref.KVCache()
    assert len(cache) == 0
    first = ref.decode_step(THE_CAT[0], cache, *WEIGHTS)
    second = ref.decode_step(THE_CAT[1], cache, *WEIGHTS)
    assert np.allclose(first, [0.0, 1.0], atol=1e-6)
    assert np.allclose(second, [0.669762, 1.0], atol=1e-6)
    assert len(cache) == 2
    assert cache.keys.tolist() == [[1.0, 1.0], [1.0, 2.0]]
    assert cache.values.tolist() == [[0.0, 1.0], [1.0, 1.0]]
    full = ref.causal_self_attention(THE_CAT, *WEIGHTS)
    assert np.allclose(full, [[0.0, 1.0], [0.669762, 1.0]], atol=1e-6)
    assert np.allclose(np.array([first, second]), full, atol=1e-12)


def test_worked_cache_sizes(ref):
    assert ref.kv_cache_size(12, 768, 1) == (18_432, 36_864)
    assert ref.kv_cache_size(12, 768, 100_000) == (1_843_200_000, 3_686_400_000)
    numbers, size = ref.kv_cache_size(12, 768, 100_000, bytes_per_number=4)
    assert (numbers, size) == (1_843_200_000, 7_372_800_000)


def test_decoding_equals_full_recomputation(ref):
    rng = np.random.default_rng(7)
    X, Wq, Wk, Wv = rng.normal(size=(16, 6)), rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 5))
    cache = ref.KVCache()
    decoded = np.array([ref.decode_step(x, cache, Wq, Wk, Wv) for x in X])
    assert np.allclose(decoded, ref.causal_self_attention(X, Wq, Wk, Wv), atol=1e-12)


def test_cache_stores_copies(ref):
    cache, k, v = ref.KVCache(), np.ones(2), np.zeros(3)
    cache.append(k, v)
    k[:] = 5.0
    v[:] = 5.0
    assert cache.keys.tolist() == [[1.0, 1.0]] and cache.values.tolist() == [[0.0, 0.0, 0.0]]


# -- the counted weights (products computed and counted by the grader; tests/grading/test_efficiency.py
#    covers every style and both fakes) ---------------------------------------------------------------


RECOMPUTING = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    if not hasattr(cache, "inputs"):
        cache.inputs = []
    cache.inputs.append(np.asarray(x_new, dtype=float))
    X = np.array(cache.inputs)
    K, V = X @ W_K, X @ W_V
    cache.append(K[-1], V[-1])
    q = X[-1] @ W_Q
    return softmax(K @ q / np.sqrt(len(q))) @ V
'''

UNCOUNTABLE_BUT_CACHED = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    W_Q, W_K, W_V = (np.asarray(W, dtype=float) for W in (W_Q, W_K, W_V))   # copies: not counted
    x = np.asarray(x_new, dtype=float)
    q = np.einsum("i,ij->j", x, W_Q)
    cache.append(x.dot(W_K), x.dot(W_V))
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
'''


def test_recomputing_only_keys_and_values_is_caught(hand_in):
    """Keys and values recomputed from inputs kept on the cache object miss the rows the
    grader put into the cache: the context is wrong, and the feedback says why."""
    result = hand_in(KV_CACHE, {"decode_step": RECOMPUTING})
    failed = {c.name: c.output for c in result.checks if c.score < c.max_score}
    assert COUNT_CHECK in failed
    assert "the grader changed the" in failed[COUNT_CHECK], failed[COUNT_CHECK]


def test_reading_the_weights_out_costs_nothing(hand_in):
    """np.asarray on the weights, einsum and x.dot(W) on the copies: cached, full marks."""
    result = hand_in(KV_CACHE, {"decode_step": UNCOUNTABLE_BUT_CACHED})
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []


def _namespace_with(ref, code):
    namespace = dict(vars(ref))
    exec(code, namespace)
    return namespace


def test_checks_run_in_kernel_with_local_submission(ref):
    """Under nbgrader the checks call the kernel's own objects: handles, probes, counting."""
    results = run_checks(KV_CACHE, LocalSubmission(dict(vars(ref))), "s1", SECRET)
    assert [(r.name, r.output) for r in results if r.score < r.max_score] == []
    assert sum(r.max_score for r in results) == POINTS


def test_in_kernel_counting_catches_recomputation(ref):
    results = run_checks(KV_CACHE, LocalSubmission(_namespace_with(ref, RECOMPUTING)), "s1", SECRET)
    failed = {r.name: r.output for r in results if r.score < r.max_score}
    assert COUNT_CHECK in failed and "the grader changed the" in failed[COUNT_CHECK]


def test_in_kernel_aliasing_is_caught(ref):
    from exercises.kv_cache.hand_ins import MISTAKES
    alias = next(m for m in MISTAKES if m.label == "aliases_inputs")
    results = run_checks(KV_CACHE, LocalSubmission(_namespace_with(ref, alias.code)), "s1", SECRET)
    failed = {r.name: r.output for r in results if r.score < r.max_score}
    assert list(failed) == ["KVCache: stored rows stay put when the caller reuses its arrays"]
    assert "instead of a copy" in next(iter(failed.values()))


def test_a_kvcache_bug_costs_kvcache_points_only(ref):
    """decode_step's checks decode into the grader's cache of the contract, so
    a KVCache whose append swaps keys and values loses KVCache's 2 points and nothing else."""
    from exercises.kv_cache.hand_ins import MISTAKES
    swapped = next(m for m in MISTAKES if m.label == "keys_and_values_swapped")
    results = run_checks(KV_CACHE, LocalSubmission(_namespace_with(ref, swapped.code)), "s1", SECRET)
    failed = {r.function for r in results if r.score < r.max_score}
    assert failed == {"KVCache"}
    assert sum(r.max_score - r.score for r in results) == 2


# A cheat that recognises the caches the grader fills (rows it did not append, or no mark of
# its own) and reads them honestly; in a cache it has marked, it recomputes the prefix from the tokens
# it was given (and still attend over what the cache holds, so the contexts are right).
MARKS_ITS_OWN_CACHE = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    mine = getattr(cache, "seen", None)
    if mine is None and len(cache) > 0:          # filled by the grader: be honest
        q = x @ W_Q
        cache.append(x @ W_K, x @ W_V)
        return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
    if mine is None:
        cache.seen = mine = []
    mine.append(x)
    X = np.array(mine)
    K, V = X @ W_K, X @ W_V                      # the whole prefix again
    cache.append(K[-1], V[-1])
    q = X[-1] @ W_Q
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
'''


def test_a_step_that_recomputes_in_caches_it_filled_loses_the_efficiency_points(ref):
    """The counted steps decode into one cache the student's code fills itself, with the
    grader's rows appended between steps: the marked-cache path is taken, and counted."""
    for student in ("s1", "s2", "s3"):
        results = run_checks(KV_CACHE, LocalSubmission(_namespace_with(ref, MARKS_ITS_OWN_CACHE)), student,
                             SECRET)
        failed = {r.name: r.output for r in results if r.score < r.max_score}
        assert list(failed) == [COUNT_CHECK], failed
        assert "1 + 2 + ... + 6 = 21" in failed[COUNT_CHECK]


# -- one mistake, charged as one (autograder/checks/charged.py) ----------------------------------
def test_attending_before_appending_is_charged_on_every_lost_point(hand_in):
    """Attending before appending gives a wrong context when the cache holds rows (named) and
    crashes on an empty cache: every one of decode_step's 7 points names the mistake, and "what to
    fix first" charges all 7 to it, once."""
    from autograder.reports.student import fix_first
    from exercises.kv_cache.hand_ins import MISTAKES
    from exercises.kv_cache.wrong import ATTEND_FIRST
    attend_first = next(m for m in MISTAKES if m.label == "attends_before_appending")
    result = hand_in(KV_CACHE, {"decode_step": attend_first.code})
    lost = [c for c in result.checks if c.score < c.max_score]
    assert {c.function for c in lost} == {"decode_step"} and sum(c.max_score for c in lost) == 7
    for c in lost:
        assert ATTEND_FIRST in c.output, c.output
        assert (c.details or {}).get("mistakes") == [ATTEND_FIRST]
    crashed = [c for c in lost if "raised ValueError" in c.output]
    assert crashed and all(c.output.startswith('This too comes from the mistake named in "decode_step: ')
                           for c in crashed)
    assert fix_first(result) == [(ATTEND_FIRST, 7.0, [c.name for c in lost])]


ATTENDS_FIRST_BUT_SAFE_WHEN_EMPTY = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    q = x @ W_Q
    if len(cache) == 0:
        context = np.zeros(W_V.shape[1])      # nothing to attend over yet
    else:
        context = softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
    cache.append(x @ W_K, x @ W_V)
    return context
'''


def test_a_failure_the_mistake_does_not_explain_keeps_its_own_feedback(hand_in):
    """The named mistake alone would crash on the empty cache; this code returns zeros there
    instead: that check's feedback shows its own values, not the mistake's name."""
    from exercises.kv_cache.wrong import ATTEND_FIRST
    result = hand_in(KV_CACHE, {"decode_step": ATTENDS_FIRST_BUT_SAFE_WHEN_EMPTY})
    lost = {c.name: c for c in result.checks if c.score < c.max_score}
    first = lost['decode_step: "the" on an empty cache']
    assert ATTEND_FIRST not in first.output and "returned [0, 0]" in first.output, first.output
    assert ATTEND_FIRST in lost['decode_step: "cat" with "the" already in the cache'].output


@pytest.mark.parametrize("exercise, function, label", [("attention", "project_qkv", "column_convention"),
                                                       ("next_token", "forward", "column_convention")])
def test_a_named_mistake_that_crashes_other_shapes_is_charged_there_too(exercise, function, label, hand_in):
    """The column convention gives a named value on square weights and raises on the others:
    the crash is charged to the mistake, in every lost point."""
    from autograder.demo.mistakes import all_mistakes
    mistake = next(m for m in all_mistakes() if (m.exercise, m.label) == (exercise, label))
    result = hand_in(EXERCISES[exercise], {function: mistake.code})
    lost = [c for c in result.checks if c.score < c.max_score]
    assert lost and all("use the column convention" in c.output for c in lost), [c.output for c in lost]
    assert any("raised ValueError" in c.output for c in lost)


RETURNS_THE_CACHE = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    cache.append(x @ W_K, x @ W_V)
    return cache                        # the cache, not the context vector
'''


def test_a_decode_step_that_returns_the_cache_is_told_so_in_the_students_terms(hand_in):
    """The grader's own cache is shown as the cache decode_step was given, never by the grader's class name."""
    result = hand_in(KV_CACHE, {"decode_step": RETURNS_THE_CACHE})
    lost = [c.output for c in result.checks if c.function == "decode_step" and c.score < c.max_score]
    assert lost and all("ContractCache" not in o and "child.probes" not in o for o in lost), lost
    assert any("the cache decode_step was given, holding 1 key and value rows" in o for o in lost), lost
