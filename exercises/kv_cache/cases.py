"""Fixed cases of the "kv_cache" exercise: "the cat" decoded through a cache, and the cache's
size for 12 layers of width 768 (the course text's figures, ``worked.py``), each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The mistakes' sentences and values come from ``wrong.py``. KVCache's and decode_step's graded
fixed checks stay in ``checks.py`` (they work on objects built in the student's process: the
caller's reused buffers, the grader's cache of the contract and its counted weights); the
cases below are what the notebook shows of them.
"""
import numpy as np

from autograder.authoring import Case, Check

from .worked import (
    BYTES_100K,
    CONTEXT_CAT,
    CONTEXT_THE,
    K_CAT,
    K_THE,
    NUMBERS_100K,
    NUMBERS_PER_TOKEN,
    V_CAT,
    V_THE,
    W_K,
    W_Q,
    W_V,
    X_THE_CAT,
)
from .wrong import (
    ALIAS,
    CACHE_NOT_READ,
    PREFIX_RECOMPUTED,
    ROWS_AS_COLUMNS,
    _attend,
    _attention_mistakes,
    _decode_mistakes,
    _size_mistakes,
)

_WEIGHTS = {"W_Q": W_Q, "W_K": W_K, "W_V": W_V}
_REUSED_BUFFERS = """cache = KVCache()
k, v = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
cache.append(k, v)
k[:] = -1.0   # the caller writes the next token's rows into the same arrays
v[:] = -2.0
cache.append(k, v)
return [len(cache), cache.keys, cache.values]"""
# the rows the cache holds after those appends, right and with the caller's arrays kept (checks.py too)
REUSED_KEYS, REUSED_VALUES = [[1.0, 2.0, 3.0], [-1.0, -1.0, -1.0]], [[4.0, 5.0], [-2.0, -2.0]]
ALIASED_KEYS, ALIASED_VALUES = [[-1.0, -1.0, -1.0]] * 2, [[-2.0, -2.0]] * 2

# Rows in the cache that are no token's projection: a step that reads the cache attends over them.
K_MADE_UP, V_MADE_UP = [2.0, -1.0], [3.0, 0.5]
CONTEXT_CAT_MADE_UP = _attend(X_THE_CAT[1] @ W_Q, [K_MADE_UP, K_CAT], [V_MADE_UP, V_CAT])
_COUNTED_STEPS = """rows = []
class Counted(np.ndarray):  # the weights, counting the token rows multiplied by them (x @ W)
    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        if ufunc is np.matmul and args[-1] is self:
            rows.append(np.asarray(args[0]).size // self.shape[0])
        return getattr(ufunc, method)(*[np.asarray(a) for a in args], **kwargs)
W_Q, W_K, W_V = (np.array(W, dtype=float).view(Counted) for W in ({W_Q}, {W_K}, {W_V}))
cache = KVCache()
for x in {X}:
    decode_step(x, cache, W_Q, W_K, W_V)
if sum(rows) > 3 * len({X}):
    return str(sum(rows)) + " token rows multiplied by W_Q, W_K and W_V"
return "at most one row per matrix and step"
"""
_ONE_ROW = "at most one row per matrix and step"

CASES = [
    # -- KVCache --
    Check("KVCache", "two appends: len 2, one key row and one value row each", cases=[
        Case("cache = KVCache()\ncache.append({k1}, {v1})\ncache.append({k2}, {v2})\n"
             "return [len(cache), cache.keys.tolist(), cache.values.tolist()]",
             inputs={"k1": np.array(K_THE), "v1": np.array(V_THE), "k2": np.array(K_CAT), "v2": np.array(V_CAT)},
             compare="equal", expected=[2, [K_THE, K_CAT], [V_THE, V_CAT]]),
    ]),
    Check("KVCache", "stored rows stay put when the caller reuses its arrays", cases=[
        Case(_REUSED_BUFFERS, compare="equal", expected=[2, REUSED_KEYS, REUSED_VALUES],
             mistakes={ALIAS: [2, ALIASED_KEYS, ALIASED_VALUES],
                       ROWS_AS_COLUMNS: [2, np.transpose(REUSED_KEYS).tolist(), np.transpose(REUSED_VALUES).tolist()]}),
    ]),
    # -- decode_step --
    Check("decode_step", '"the" on an empty cache', cases=[
        Case("decode_step({x}, KVCache(), {W_Q}, {W_K}, {W_V})", inputs={"x": X_THE_CAT[0], **_WEIGHTS},
             expected=CONTEXT_THE),
    ]),
    Check("decode_step", '"cat" with "the" already in the cache', cases=[
        Case("cache = KVCache()\ncache.append({k_the}, {v_the})\nreturn decode_step({x}, cache, {W_Q}, {W_K}, {W_V})",
             inputs={"k_the": np.array(K_THE), "v_the": np.array(V_THE), "x": X_THE_CAT[1], **_WEIGHTS},
             expected=CONTEXT_CAT, mistakes=_decode_mistakes(X_THE_CAT[1], [K_THE], [V_THE], (W_Q, W_K, W_V))),
    ]),
    Check("decode_step", "attends over the keys and values the cache holds (rows no token projects to)", cases=[
        Case("cache = KVCache()\ncache.append({k}, {v})\nreturn decode_step({x}, cache, {W_Q}, {W_K}, {W_V})",
             inputs={"k": np.array(K_MADE_UP), "v": np.array(V_MADE_UP), "x": X_THE_CAT[1], **_WEIGHTS},
             expected=CONTEXT_CAT_MADE_UP,
             mistakes={CACHE_NOT_READ: CONTEXT_CAT,
                       **_decode_mistakes(X_THE_CAT[1], [K_MADE_UP], [V_MADE_UP], (W_Q, W_K, W_V))}),
    ]),
    Check("decode_step", 'decoding "the" then "cat" projects only the new token (x @ W rows counted)', cases=[
        Case(_COUNTED_STEPS, inputs={"X": X_THE_CAT, **_WEIGHTS}, compare="equal", expected=_ONE_ROW,
             mistakes={PREFIX_RECOMPUTED: "8 token rows multiplied by W_Q, W_K and W_V"}),
    ]),
    # -- causal_self_attention --
    Check("causal_self_attention", 'the contexts of "the cat"', points=1, name="check_attention_the_cat", cases=[
        Case("causal_self_attention({X}, {W_Q}, {W_K}, {W_V})", inputs={"X": X_THE_CAT, **_WEIGHTS},
             expected=[CONTEXT_THE, CONTEXT_CAT], what='contexts of "the cat", one row per token',
             mistakes=_attention_mistakes(X_THE_CAT, (W_Q, W_K, W_V))),
    ]),
    # -- kv_cache_size --
    Check("kv_cache_size", "12 layers of width 768: 18,432 numbers per token", points=1, name="check_size_per_token",
          cases=[Case("kv_cache_size(12, 768, 1)", parts=("numbers", "bytes"), atol=0.5,
                      expected=[NUMBERS_PER_TOKEN, 2 * NUMBERS_PER_TOKEN],
                      what="(numbers, bytes) of kv_cache_size(12, 768, 1)", mistakes=_size_mistakes(12, 768, 1, 2))]),
    Check("kv_cache_size", "100,000 tokens: 1,843,200,000 numbers, 3,686,400,000 bytes", points=1,
          name="check_size_long_context", cases=[
              Case("kv_cache_size(12, 768, 100_000)", parts=("numbers", "bytes"), atol=0.5,
                   expected=[NUMBERS_100K, BYTES_100K], what="(numbers, bytes) of kv_cache_size(12, 768, 100000)",
                   mistakes=_size_mistakes(12, 768, 100_000, 2))]),
]
