"""Reference solutions for the "kv_cache" exercise.

GENERATED from exercises/kv_cache/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import numpy as np


def softmax(z, axis=-1):
    """Numerically stable softmax along ``axis`` (given, not graded).

    Args:
        z: scores, any shape, float.
        axis: the axis whose entries should sum to 1.
    Returns:
        ndarray of the same shape as ``z``, float64.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_self_attention(X, W_Q, W_K, W_V):
    """Causal self-attention of a whole sequence, computed from scratch.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q: query weights, shape (d_model, d_k).
        W_K: key weights, shape (d_model, d_k).
        W_V: value weights, shape (d_model, d_v).
    Returns:
        ndarray of shape (T, d_v), float64: row i is the context vector of token i, the
        blend of the value rows of tokens 0..i weighted by
        ``softmax(q_i . k_j / sqrt(d_k))`` over j <= i.
    """
    X = np.asarray(X, dtype=float)
    queries = X @ W_Q                  # all T tokens, projected from scratch
    keys = X @ W_K
    values = X @ W_V
    scores = queries @ keys.T / np.sqrt(queries.shape[-1])
    allowed = np.tril(np.ones((len(X), len(X)), dtype=bool))
    return softmax(np.where(allowed, scores, -np.inf), axis=-1) @ values


class KVCache:
    """The keys and values of every token so far, one row per token, in order.

    ``append(k, v)`` stores copies of one key row, shape (d_k,), and one value row, shape
    (d_v,). ``keys`` is an ndarray of shape (t, d_k) and ``values`` one of shape (t, d_v),
    float64, where ``t = len(cache)``. Rows already stored never change, even when the
    caller later modifies the arrays it passed in.
    """

    def __init__(self):
        self._key_rows = []
        self._value_rows = []

    def append(self, k, v):
        """Store (a copy of) the key row ``k`` and the value row ``v`` of one new token."""
        self._key_rows.append(np.array(k, dtype=float))
        self._value_rows.append(np.array(v, dtype=float))

    @property
    def keys(self):
        """All key rows so far, shape (t, d_k), float64."""
        return np.stack(self._key_rows) if self._key_rows else np.zeros((0, 0))

    @property
    def values(self):
        """All value rows so far, shape (t, d_v), float64."""
        return np.stack(self._value_rows) if self._value_rows else np.zeros((0, 0))

    def __len__(self):
        """The number of tokens stored, t."""
        return len(self._key_rows)


def decode_step(x_new, cache, W_Q, W_K, W_V):
    """Attention output of one new token, reading earlier keys and values from ``cache``.

    Args:
        x_new: the new token's vector, shape (d_model,), float.
        cache: a ``KVCache`` holding the keys and values of the earlier tokens; the new
            token's key and value are appended to it.
        W_Q, W_K: query and key weights, ndarrays of shape (d_model, d_k).
        W_V: value weights, ndarray of shape (d_model, d_v).
    Returns:
        ndarray of shape (d_v,), float64: the context vector of the new token, attending
        over every cached token, itself included. Only ``x_new`` is projected.
    """
    x = np.asarray(x_new, dtype=float)
    # the only projections of this step: one query, one key, one value
    q = x @ W_Q
    cache.append(x @ W_K, x @ W_V)     # in first, so the new token reads itself too
    weights = softmax(cache.keys @ q / np.sqrt(q.shape[-1]))
    return weights @ cache.values


def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    """Size of a full KV cache.

    Args:
        n_layers: number of transformer layers (int).
        d_model: width of each key row and each value row (int).
        n_tokens: tokens held in the cache (int).
        bytes_per_number: storage per number (int; 2 for 16-bit floats).
    Returns:
        tuple ``(numbers, bytes)`` of ints: every layer holds one key row and one value row
        of ``d_model`` numbers per token.
    """
    numbers = 2 * n_layers * d_model * n_tokens
    return numbers, numbers * bytes_per_number
