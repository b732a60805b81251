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
