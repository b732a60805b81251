"""Reference solutions for the "attention" exercise.

GENERATED from exercises/attention/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import numpy as np


def softmax(z, axis=-1):
    """Numerically stable softmax of ``z`` along ``axis``.

    Args:
        z: array-like of scores, any shape (float).
        axis: the axis whose entries should sum to 1 (default: the last one).
    Returns:
        ndarray of the same shape as ``z``, float64, positive, summing to 1 along ``axis``.
    """
    z = np.asarray(z, dtype=float)
    shifted = z - np.max(z, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def project_qkv(X, W_Q, W_K, W_V):
    """Project every token (a row of ``X``) to its query, key and value.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q: query weights, shape (d_model, d_k).
        W_K: key weights, shape (d_model, d_k).
        W_V: value weights, shape (d_model, d_v).
    Returns:
        tuple ``(Q, K, V)`` of float64 arrays with shapes (T, d_k), (T, d_k), (T, d_v).
    """
    X = np.asarray(X, dtype=float)
    return X @ np.asarray(W_Q, dtype=float), X @ np.asarray(W_K, dtype=float), X @ np.asarray(W_V, dtype=float)


def attention_row(q, K, V):
    """Scaled dot-product attention for one query.

    Args:
        q: the query, shape (d_k,), float.
        K: the keys of the tokens it may read, shape (T, d_k).
        V: their values, shape (T, d_v).
    Returns:
        tuple ``(scores, weights, context)``: raw dot products ``K @ q``, shape (T,);
        ``softmax(scores / sqrt(d_k))``, shape (T,), summing to 1; and ``weights @ V``,
        shape (d_v,). All float64.
    """
    q = np.asarray(q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    scores = K @ q
    weights = softmax(scores / np.sqrt(q.shape[-1]))
    return scores, weights, weights @ V


def causal_mask(T):
    """Which token may read which, for a sequence of ``T`` tokens.

    Args:
        T: number of tokens (int, at least 1).
    Returns:
        ndarray of shape (T, T), dtype bool: entry [i, j] is True when token i may read
        token j, that is when j <= i.
    """
    return np.tril(np.ones((T, T), dtype=bool))


def attention_matrix(Q, K, V, causal=False):
    """Scaled dot-product attention for every token at once.

    Args:
        Q: queries, shape (T, d_k), float.
        K: keys, shape (T, d_k).
        V: values, shape (T, d_v).
        causal: when True, token i reads only tokens j <= i.
    Returns:
        tuple ``(scores, weights, output)``: the raw scores ``Q @ K.T``, shape (T, T),
        never masked; the attention weights, shape (T, T), softmax of the scaled (and, if
        causal, masked) scores along each row, with masked entries exactly 0; and
        ``weights @ V``, shape (T, d_v). All float64.
    """
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    scores = Q @ K.T
    scaled = scores / np.sqrt(Q.shape[-1])
    if causal:
        scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)
    weights = softmax(scaled, axis=-1)
    return scores, weights, weights @ V
