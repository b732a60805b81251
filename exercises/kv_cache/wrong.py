"""Small wrong implementations of the "kv_cache" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a check
(``checks.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

from solutions import kv_cache as ref

# -- what the student did, as the feedback names it ("That is the value you get when you ...") --
ALIAS = ("keep a reference to the caller's array instead of a copy (list.append(k) and np.asarray(k) "
         "do not copy; np.array(k, dtype=float) does)")
ROWS_AS_COLUMNS = ("stack the rows side by side (np.stack(rows, axis=1), or a transpose): keys and values "
                   "hold one ROW per token, shape (t, d_k) and (t, d_v)")
ATTEND_FIRST = ("attend before appending the new token's own key and value (a token must read itself "
                "too: append first, then attend)")
CACHE_IGNORED = ("ignore the rows already in the cache (recomputing keys and values only from inputs "
                 "your own code has seen)")
CACHE_NOT_READ = "recompute the earlier keys and values instead of reading them from the cache"
SEEN_RECOMPUTED = ("recompute the keys and values of the tokens your decode_step was given instead "
                   "of reading them from the cache (a step must attend over what the cache holds)")
PREFIX_RECOMPUTED = "recompute the keys and values of the prefix at every step"
UNSCALED = "forget to divide the scores by sqrt(d_k)"
NO_MASK = "leave out the causal mask (every token reads the tokens after it too)"
DIAGONAL_MASKED = "mask the diagonal too (a token must be allowed to read itself)"
MASK_TRANSPOSED = ("allow reading ahead instead of behind (the mask is transposed: a token reads itself "
                   "and the tokens before it)")
NO_FACTOR_2 = "leave out the factor 2: every token stores a key row AND a value row"
NO_LAYERS = "leave out the layers: every layer keeps its own keys and values"
BYTES_IGNORED = "ignore bytes_per_number"


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
    return {ATTEND_FIRST: _attend(q, K_cached, V_cached), CACHE_IGNORED: _attend(q, [k], [v]),
            UNSCALED: _attend(q, K_all, V_all, scale=False)}


def _no_mask(X, Ws):
    Q, K, V = (X @ W for W in Ws)
    return ref.softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def _strict_mask(X, Ws):
    """Contexts with the diagonal masked too. The first token then has nothing left to read:
    its row depends on how the mask was written (nan with -inf, the mean of every value row with
    -1e9 or np.finfo(float).min, zeros with a multiplied mask), so it is left out (masked)."""
    Q, K, V = (X @ W for W in Ws)
    T = len(X)
    with np.errstate(all="ignore"):
        scores = np.where(np.tril(np.ones((T, T), bool), k=-1), Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)
        contexts = ref.softmax(scores) @ V
    undefined = np.zeros(contexts.shape, bool)
    undefined[0] = True
    return np.ma.masked_array(contexts, mask=undefined)


def _transposed_mask(X, Ws):
    """Contexts with the mask the wrong way round: each token reads itself and the tokens after it."""
    Q, K, V = (X @ W for W in Ws)
    T = len(X)
    return ref.softmax(np.where(np.triu(np.ones((T, T), bool)), Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)) @ V


def _unscaled(X, Ws):
    Q, K, V = (X @ W for W in Ws)
    T = len(X)
    return ref.softmax(np.where(np.tril(np.ones((T, T), bool)), Q @ K.T, -np.inf)) @ V


def _attention_mistakes(X, Ws):
    return {NO_MASK: _no_mask(X, Ws), DIAGONAL_MASKED: _strict_mask(X, Ws), MASK_TRANSPOSED: _transposed_mask(X, Ws),
            UNSCALED: _unscaled(X, Ws)}


def _size_mistakes(n_layers, d_model, n_tokens, bytes_per_number):
    def pair(numbers):
        return [numbers, numbers * bytes_per_number]
    return {NO_FACTOR_2: pair(n_layers * d_model * n_tokens),
            NO_LAYERS: pair(2 * d_model * n_tokens),
            BYTES_IGNORED: [2 * n_layers * d_model * n_tokens, 2 * n_layers * d_model * n_tokens * 2]
                if bytes_per_number != 2 else None}


# -- known mistakes as whole functions: the grader runs a check on one to tell whether a failure
#    that names nothing (a crash on the empty cache) comes from a mistake named in another check
#    of the same function (autograder/checks/charged.py) --
def _decode_attending_first(x_new, cache, W_Q, W_K, W_V):
    """decode_step attending over the cache before appending the new token's key and value."""
    x = np.asarray(x_new, dtype=float)
    q = x @ W_Q
    context = ref.softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
    cache.append(x @ W_K, x @ W_V)
    return context


WRONG_FUNCTIONS = {ATTEND_FIRST: {"decode_step": _decode_attending_first}}
