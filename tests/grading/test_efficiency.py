"""The KV-cache efficiency check: counted in the calls whose outputs are checked.

``decode_step`` gets the weights as real arrays (``child/probes.CountedArray``) whose products
with token rows are reported to the grader's tally (``autograder/submission/counted.py``); reading them
out is free. Before each step the grader puts rows into the cache that no token projects to,
so only a step that reads the cache gives the right context. Honest cached code in every
usual style keeps the 2 points (``np.asarray`` on the weights, ``x.dot(W)``, copies, float32
inputs included); fakes that recompute the prefix lose them, with a message saying so.
"""
import numpy as np
import pytest

from autograder.child import wire
from autograder.child.probes import CountedArray
from autograder.core.registry import EXERCISES
from autograder.submission.counted import CountedWeights, WeightsRegistry

KV_CACHE = EXERCISES["kv_cache"]
COUNT_CHECK = "decode_step: each step projects only the new token (rows counted through W_Q, W_K, W_V)"

HONEST = {
    "matmul operator": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    q = x @ W_Q
    cache.append(x @ W_K, x @ W_V)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
    "np.dot and np.matmul": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    q = np.dot(x_new, W_Q)
    cache.append(np.matmul(x_new, W_K), np.dot(x_new, W_V))
    return softmax(cache.keys @ q / np.sqrt(q.shape[0])) @ cache.values
''',
    "einsum": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    q, k, v = (np.einsum("d,dk->k", x_new, W) for W in (W_Q, W_K, W_V))
    cache.append(k, v)
    scores = np.einsum("tk,k->t", cache.keys, q) / np.sqrt(len(q))
    return np.einsum("t,tv->v", softmax(scores), cache.values)
''',
    "transposed weights": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    q = W_Q.T @ x
    cache.append(W_K.T @ x, (W_V.T @ x[:, None])[:, 0])
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
    "concatenated weights": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    d_k = W_Q.shape[1]
    qkv = np.asarray(x_new, dtype=float)[None, :] @ np.concatenate([W_Q, W_K, W_V], axis=1)
    q, k, v = qkv[0, :d_k], qkv[0, d_k:2 * d_k], qkv[0, 2 * d_k:]
    cache.append(k, v)
    return softmax(cache.keys @ q / np.sqrt(d_k)) @ cache.values
''',
    "np.asarray on the weights": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    W_Q, W_K, W_V = (np.asarray(W, float) for W in (W_Q, W_K, W_V))
    x = np.asarray(x_new, float)
    q = x @ W_Q
    cache.append(x @ W_K, x @ W_V)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
    "x.dot(W)": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    q = x_new.dot(W_Q)
    cache.append(x_new.dot(W_K), x_new.dot(W_V))
    return softmax(cache.keys.dot(q) / np.sqrt(len(q))).dot(cache.values)
''',
    "copies of the weights": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    Wq, Wk, Wv = (np.array(W.copy(), dtype=np.float64) for W in (W_Q, W_K, W_V))
    x = np.array(x_new, dtype=np.float64)
    q, k, v = (x @ W for W in (Wq, Wk, Wv))
    cache.append(k, v)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
    "weights read row by row": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    q, k, v = (sum(x_new[i] * W[i] for i in range(len(x_new))) for W in (W_Q, W_K, W_V))
    cache.append(k, v)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
    "preallocated buffers": '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    q, k, v = np.empty(W_Q.shape[1]), np.empty(W_K.shape[1]), np.empty(W_V.shape[1])
    np.matmul(x, W_Q, out=q)
    np.dot(x, W_K, out=k)
    v[:] = x @ W_V
    cache.append(k, v)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
''',
}

# Fake 1 (main): find the counting probe's tally in the child's memory and reset it, while
# recomputing the whole prefix. Nothing of the count lives in the child any more.
FORGES_TALLY = '''
import gc

def decode_step(x_new, cache, W_Q, W_K, W_V):
    for obj in gc.get_objects():
        for name in ("_tally", "steps", "_steps", "reads"):
            try:
                if isinstance(getattr(obj, name, None), (dict, list)):
                    setattr(obj, name, {"steps": [set()]} if name == "_tally" else [set()])
            except Exception:
                pass
    if not hasattr(cache, "inputs"):
        cache.inputs = [None]              # the grader's own first row
    cache.inputs.append(np.asarray(x_new, dtype=float))
    X = np.array(cache.inputs[1:])
    K, V = X @ W_K, X @ W_V                # the whole prefix again
    q = X[-1] @ W_Q
    cache.append(K[-1], V[-1])
    keys = np.vstack([cache.keys[:1], K])  # plus the row only the cache knows
    values = np.vstack([cache.values[:1], V])
    return softmax(keys @ q / np.sqrt(len(q))) @ values
'''

# The fake found on main: branch on the grader's counting handles (they were not arrays)
# and recompute the prefix everywhere else. The counted weights are arrays now.
ISINSTANCE_FAKE = '''
_SEEN = []

def decode_step(x_new, cache, W_Q, W_K, W_V):
    if not isinstance(W_Q, np.ndarray):        # the grader counting: behave
        q = x_new @ W_Q
        cache.append(x_new @ W_K, x_new @ W_V)
        return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
    if len(cache) == 0:                        # a new sequence: forget the tokens of the last one
        _SEEN.clear()
    _SEEN.append(np.array(x_new, dtype=float))
    X = np.array(_SEEN)                        # every token it was given since the cache was empty
    K, V = X @ W_K, X @ W_V                    # recomputed at every step
    cache.append(K[-1], V[-1])
    q = X[-1] @ W_Q
    return softmax(K @ q / np.sqrt(len(q))) @ V
'''

# Recompute the prefix at every step, but attend over what the cache holds (right contexts,
# wasted work): the count catches it.
RECOMPUTES_AND_READS = '''
_SEEN = []

def decode_step(x_new, cache, W_Q, W_K, W_V):
    _SEEN.append(np.array(x_new, dtype=float))
    X = np.array([s for s in _SEEN if len(s) == len(x_new)][-(len(cache) + 1):])
    K, V = X @ W_K, X @ W_V                    # the whole prefix again
    cache.append(K[-1], V[-1])
    q = X[-1] @ W_Q
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
'''


@pytest.mark.parametrize("style", sorted(HONEST))
def test_honest_cached_code_keeps_every_point(hand_in, style):
    result = hand_in(KV_CACHE, {"decode_step": HONEST[style]})
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []
    assert result.score == result.max_score == 15


@pytest.mark.parametrize("code", [FORGES_TALLY, ISINSTANCE_FAKE, RECOMPUTES_AND_READS],
                         ids=["rewrites-tally", "isinstance", "recomputes-and-reads-cache"])
def test_fakes_lose_the_efficiency_points(hand_in, code):
    result = hand_in(KV_CACHE, {"decode_step": code})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert count.score == 0 and count.max_score == 2
    assert any(s in count.output for s in ("recompute", "the grader changed the", "context of decode step")), \
        count.output
    if code is not FORGES_TALLY:  # every other check passes: only the efficiency points are lost
        assert [c.name for c in result.checks if c.score < c.max_score] == [COUNT_CHECK]


def test_recomputing_while_reading_the_cache_is_counted(hand_in):
    result = hand_in(KV_CACHE, {"decode_step": RECOMPUTES_AND_READS})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    # Step t projects every row its cache holds through W_K and W_V: the t tokens it was given,
    # plus one more for each key and value the grader appended through the cache before that
    # step (one before each step from a drawn step on, step 3 at the earliest). So the first two
    # steps project 1 and 2 rows, step t at least t and at least one more than step t - 1, and
    # the totals are the sums of the steps.
    import re
    found = re.search(r"W_Q (\d+), W_K (\d+), W_V (\d+) \(through W_K, step by step: \[([\d, ]+)\]\)", count.output)
    assert found, count.output
    w_q, w_k, w_v = (int(found.group(i)) for i in (1, 2, 3))
    steps = [int(n) for n in found.group(4).split(",")]
    assert w_q == 6 and len(steps) == 6 and steps[:2] == [1, 2]
    assert all(rows >= t for t, rows in enumerate(steps, start=1))
    assert all(b >= a + 1 for a, b in zip(steps, steps[1:], strict=False))
    assert w_k == w_v == sum(steps) >= 21


def test_a_step_that_ignores_what_the_cache_holds_is_named(hand_in):
    result = hand_in(KV_CACHE, {"decode_step": ISINSTANCE_FAKE})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert "after the grader changed the cache by appending the key and value of a token" in count.output
    assert "instead of reading them from the cache (a step must attend over what the cache holds)" in count.output


def test_skipping_the_projection_is_not_caching(hand_in):
    lazy = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    return np.zeros(W_V.shape[1])
'''
    result = hand_in(KV_CACHE, {"decode_step": lazy})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert count.score == 0 and "context of decode step 1 of 6" in count.output


# -- the counting itself, in one process -----------------------------------------------------------------
def _handles(*matrices):
    registry = WeightsRegistry()

    def ask(request):
        answer = registry.answer(wire.loads(wire.dumps(request)))
        if "ok" not in answer:
            raise ValueError(answer["error"])
        return wire.loads(wire.dumps(answer["ok"]))
    counted = [CountedWeights(m) for m in matrices]
    handles = []
    for c in counted:
        form = registry.add(c)
        handles.append(CountedArray.of(form["values"], ask, form["__weights__"]))
    return counted, handles


def test_products_are_exact_and_distinct_rows_count_once_per_step():
    W = np.arange(12.0).reshape(4, 3)
    (counted,), (h,) = _handles(W)
    assert isinstance(h, np.ndarray) and h.dtype == np.float64 and np.array_equal(h, W)
    x, X = np.array([1.0, -2.0, 0.5, 3.0]), np.arange(8.0).reshape(2, 4)
    assert np.array_equal(x @ h, x @ W) and np.array_equal(X @ h, X @ W)
    assert np.array_equal(np.dot(x, h), x @ W) and np.array_equal(h.T @ X.T, W.T @ X.T)
    assert np.allclose(np.einsum("td,dk->tk", X, h, optimize=True), X @ W)
    assert np.allclose(np.tensordot(X, h, axes=1), X @ W)
    assert counted.rows_per_step == [3]          # x, and the two rows of X
    counted.new_step()
    x @ h
    x @ h                                         # the same token twice: one row
    assert counted.rows_per_step == [3, 1]
    plain = np.asarray(h)                         # reading it out costs nothing
    h.copy(), h[0], h * 2.0, h.sum()
    assert type(plain) is np.ndarray and np.array_equal(plain, W)
    assert counted.rows_per_step == [3, 1]
    X @ h.copy()                                  # a copy that stays counted: two more rows
    assert counted.rows_per_step == [3, 3]


def test_the_grader_refuses_malformed_products():
    registry = WeightsRegistry()
    form = registry.add(CountedWeights(np.eye(3)))
    assert "error" in registry.answer({"op": "project", "weights": form["__weights__"], "tokens": np.ones((2, 5))})
    assert "error" in registry.answer({"op": "project", "weights": 99, "tokens": np.ones((1, 3))})
    assert "error" in registry.answer({"op": "reset", "weights": form["__weights__"]})
    assert "error" in registry.answer(["not", "a", "request"])
