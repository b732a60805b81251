"""Small wrong implementations of the "kv_cache" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a check (``checks.py``) or a visible case
(``visible.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

from solutions import kv_cache as ref


# -- known mistakes, as small wrong implementations -------------------------------------------
def _attend(q, K, V, scale=True):
    """One attention row over the rows of K and V (None when there are no rows)."""
    K, V = np.asarray(K, dtype=float).reshape(-1, len(q)), np.asarray(V, dtype=float)
    if len(K) == 0:
        return None
    scores = K @ q / (np.sqrt(len(q)) if scale else 1.0)
    return ref.softmax(scores) @ V


def _decode_mistakes(x_new, K_cached, V_cached, Ws):
    """Wrong contexts for a token decoded after the rows ``K_cached``, ``V_cached``."""
    x_new = np.asarray(x_new, dtype=float)
    q, k, v = (x_new @ W for W in Ws)
    K_all = np.vstack([np.reshape(K_cached, (-1, len(k))), k])
    V_all = np.vstack([np.reshape(V_cached, (-1, len(v))), v])
    return {"attend before appending the new token's own key and value (a token must read itself "
            "too: append first, then attend)": _attend(q, K_cached, V_cached),
            "ignore the rows already in the cache (recomputing keys and values only from inputs "
            "your own code has seen)": _attend(q, [k], [v]),
            "forget to divide the scores by sqrt(d_k)": _attend(q, K_all, V_all, scale=False)}


def _no_mask(X, Ws):
    Q, K, V = (X @ W for W in Ws)
    return ref.softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def _strict_mask(X, Ws):
    Q, K, V = (X @ W for W in Ws)
    T = len(X)
    with np.errstate(all="ignore"):
        scores = np.where(np.tril(np.ones((T, T), bool), k=-1), Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)
        return ref.softmax(scores) @ V


def _unscaled(X, Ws):
    Q, K, V = (X @ W for W in Ws)
    T = len(X)
    return ref.softmax(np.where(np.tril(np.ones((T, T), bool)), Q @ K.T, -np.inf)) @ V


def _attention_mistakes(X, Ws):
    return {"leave out the causal mask (every token reads the tokens after it too)": _no_mask(X, Ws),
            "mask the diagonal too (a token must be allowed to read itself)": _strict_mask(X, Ws),
            "forget to divide the scores by sqrt(d_k)": _unscaled(X, Ws)}


def _size_mistakes(n_layers, d_model, n_tokens, bytes_per_number):
    def pair(numbers):
        return [numbers, numbers * bytes_per_number]
    return {"leave out the factor 2: every token stores a key row AND a value row":
                pair(n_layers * d_model * n_tokens),
            "leave out the layers: every layer keeps its own keys and values":
                pair(2 * d_model * n_tokens),
            "ignore bytes_per_number": [2 * n_layers * d_model * n_tokens, 2 * n_layers * d_model * n_tokens * 2]
                if bytes_per_number != 2 else None}
