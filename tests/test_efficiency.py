"""The KV-cache efficiency count is taken by the grader.

The weights handed to ``decode_step`` stay in the grader (autograder/counted.py); products
come back over the channel and are counted there. Honest cached code in every usual style
keeps the 2 points; the two fakes found on main (rewriting the child-side tally, and
multiplying plain copies of the weights while reading the cache rows) lose them with a
message saying the prefix was recomputed.
"""
import numpy as np
import pytest

from autograder.child import wire
from autograder.child.probes import Weights
from autograder.counted import CountedWeights, WeightsRegistry
from autograder.exercises import EXERCISES

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

# Fake 2 (main): multiply plain copies of the weights (which no child-side counter saw) and
# read the rows it has not seen from the cache, so a behavioural test passes too.
PLAIN_COPIES = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    W_Q, W_K, W_V = (np.asarray(W).view(np.ndarray) for W in (W_Q, W_K, W_V))
    if not hasattr(cache, "inputs"):
        cache.inputs = []
        cache.known = len(cache)           # rows that were there before we saw anything
    cache.inputs.append(np.asarray(x_new, dtype=float))
    X = np.array(cache.inputs)
    K, V = X @ W_K, X @ W_V                # recompute every key and value seen
    q = X[-1] @ W_Q
    cache.append(K[-1], V[-1])
    keys = np.vstack([cache.keys[:cache.known], K])
    values = np.vstack([cache.values[:cache.known], V])
    return softmax(keys @ q / np.sqrt(len(q))) @ values
'''

# Extracting the matrices through the handle with basis vectors, once, then working on plain copies.
BASIS_EXTRACTION = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    if not hasattr(cache, "plain"):
        eye = np.eye(W_Q.shape[0])
        cache.plain = [eye @ W for W in (W_Q, W_K, W_V)]
    Wq, Wk, Wv = cache.plain
    x = np.asarray(x_new, dtype=float)
    q = x @ Wq
    cache.append(x @ Wk, x @ Wv)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
'''


@pytest.mark.parametrize("style", sorted(HONEST))
def test_honest_cached_code_keeps_every_point(hand_in, style):
    result = hand_in(KV_CACHE, {"decode_step": HONEST[style]})
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []
    assert result.score == result.max_score == 15


@pytest.mark.parametrize("code", [FORGES_TALLY, PLAIN_COPIES, BASIS_EXTRACTION],
                         ids=["rewrites-tally", "plain-copies", "basis-extraction"])
def test_fakes_lose_the_efficiency_points(hand_in, code):
    result = hand_in(KV_CACHE, {"decode_step": code})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert count.score == 0 and count.max_score == 2
    assert "recompute the prefix" in count.output, count.output


def test_rewriting_a_tally_in_the_child_changes_nothing(hand_in):
    result = hand_in(KV_CACHE, {"decode_step": FORGES_TALLY})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert "W_Q 6, W_K 21, W_V 21" in count.output, count.output   # 1 + 2 + ... + 6 = 21


def test_plain_copies_are_counted_as_reading_every_row(hand_in):
    result = hand_in(KV_CACHE, {"decode_step": PLAIN_COPIES})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    # d_model = 32 rows read out per matrix in each of the 6 steps
    assert "W_Q 192, W_K 192, W_V 192" in count.output and "read whole weight matrices out" in count.output


def test_skipping_the_projection_is_not_caching(hand_in):
    lazy = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    return np.zeros(W_V.shape[1])
'''
    result = hand_in(KV_CACHE, {"decode_step": lazy})
    count = next(c for c in result.checks if c.name == COUNT_CHECK)
    assert count.score == 0 and "multiplied no token row by W_Q" in count.output


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
        handles.append(Weights(ask, [(form["__weights__"], tuple(form["shape"]))]))
    return counted, handles


def test_products_are_exact_and_distinct_rows_count_once_per_step():
    W = np.arange(12.0).reshape(4, 3)
    (counted,), (h,) = _handles(W)
    x, X = np.array([1.0, -2.0, 0.5, 3.0]), np.arange(8.0).reshape(2, 4)
    assert np.array_equal(x @ h, x @ W) and np.array_equal(X @ h, X @ W)
    assert np.array_equal(np.dot(x, h), x @ W) and np.array_equal(h.T @ X.T, W.T @ X.T)
    assert np.allclose(np.einsum("td,dk->tk", X, h, optimize=True), X @ W)
    assert np.allclose(np.tensordot(X, h, axes=1), X @ W)
    assert counted.rows_per_step == [3]          # x, and the two rows of X
    counted.new_step()
    x @ h
    x @ h                                         # the same token twice: one row
    assert counted.rows_per_step == [3, 1] and not counted.read_out
    W @ np.ones(3)                                # a plain product: nothing to count
    np.asarray(h)                                 # reading it out: all 4 basis rows
    assert counted.rows_per_step == [3, 5] and counted.read_out


def test_the_grader_refuses_malformed_products():
    registry = WeightsRegistry()
    form = registry.add(CountedWeights(np.eye(3)))
    assert "error" in registry.answer({"op": "project", "weights": form["__weights__"], "tokens": np.ones((2, 5))})
    assert "error" in registry.answer({"op": "project", "weights": 99, "tokens": np.ones((1, 3))})
    assert "error" in registry.answer({"op": "reset", "weights": form["__weights__"]})
    assert "error" in registry.answer(["not", "a", "request"])
