"""Small wrong implementations of the "attention" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a randomized
check (``checks.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

from solutions import attention as ref

# -- what the student did, as the feedback names it ("That is the value you get when you ...") --
OVERFLOW = "exponentiate without first subtracting the largest score (overflow)"
AXIS_COLUMNS = "take the softmax over the wrong axis (columns sum to 1)"
AXIS_ROWS = "take the softmax over the wrong axis (each column sums to 1 instead of each row)"
AXIS_WRONG = "take the softmax over the wrong axis"
AXIS_IGNORED = "ignore the axis argument"
WHOLE_GRID = "normalize over the whole grid instead of each row"
GLOBAL_MAX = "subtract the largest score of the whole array instead of each row's own largest"
GLOBAL_MAX_GRID = "subtract the largest score of the whole grid instead of each row's own largest"
COLUMNS = "use the column convention (W @ x, or X @ W.T) instead of X @ W"
SCALED_ROW_SCORES = "return the scaled scores where the raw dot products K @ q are asked"
SCALED_GRID_SCORES = "return the scaled scores where the raw Q @ K.T is asked"
MASKED_SCORES = "return masked scores where the raw, unmasked Q @ K.T is asked"
TRANSPOSED_SCORES = "compute K @ Q.T (the transpose) instead of Q @ K.T"
UNSCALED = "forget to divide the scores by sqrt(d_k)"
BY_D_K = "divide the scores by d_k instead of sqrt(d_k)"
BY_D_V = "divide the scores by sqrt(d_v), the width of the values, instead of sqrt(d_k)"
KEYS_NOT_VALUES = "multiply the weights by the keys instead of the values"
MASK_HIDES_DIAGONAL = "hide the diagonal too (a token must be allowed to read itself)"
MASK_TRANSPOSED = "allow reading ahead instead of behind (the mask is transposed)"
MASK_AFTER_SOFTMAX = "zero the masked weights after the softmax without renormalizing the rows"
DIAGONAL_MASKED = "mask the diagonal too (a token must be allowed to read itself)"


# -- known mistakes, as small wrong implementations -------------------------------
def _naive_softmax(z, axis=-1):
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(z, dtype=float))
        return e / e.sum(axis=axis, keepdims=True)


def _global_max_softmax(z, axis=-1):
    """Shifts by the largest entry of the whole array, not of each row: rows far below it underflow."""
    z = np.asarray(z, dtype=float)
    with np.errstate(all="ignore"):
        e = np.exp(z - z.max())
        return e / e.sum(axis=axis, keepdims=True)


def _grid_weights(Q, K, scale, axis=-1, causal=False, mask_after=False, strict=False):
    """Attention weights computed with one deliberate deviation from the right recipe."""
    scores = np.asarray(Q, float) @ np.asarray(K, float).T / scale
    T = len(scores)
    allowed = np.tril(np.ones((T, T), bool), k=-1 if strict else 0)
    if causal and not mask_after:
        scores = np.where(allowed, scores, -np.inf)
    with np.errstate(all="ignore"):
        weights = ref.softmax(scores, axis=axis)
    if causal and mask_after:
        weights = np.where(allowed, weights, 0.0)
    if causal and strict:  # the first row has nothing left to read: its values depend on the
        undefined = np.zeros(weights.shape, bool)  # mask's spelling (nan, uniform, zeros): left out
        undefined[0] = True
        return np.ma.masked_array(weights, mask=undefined)
    return weights


def _weight_mistakes(Q, K, causal=False, d_v=None):
    d_k = np.shape(Q)[-1]
    mistakes = {
        UNSCALED: _grid_weights(Q, K, 1.0, causal=causal),
        BY_D_K: _grid_weights(Q, K, d_k, causal=causal),
        AXIS_ROWS: _grid_weights(Q, K, np.sqrt(d_k), axis=0, causal=causal),
    }
    if d_v is not None and d_v != d_k:
        mistakes[BY_D_V] = _grid_weights(Q, K, np.sqrt(d_v), causal=causal)
    if causal:
        mistakes[MASK_AFTER_SOFTMAX] = _grid_weights(Q, K, np.sqrt(d_k), causal=True, mask_after=True)
        mistakes[DIAGONAL_MASKED] = _grid_weights(Q, K, np.sqrt(d_k), causal=True, strict=True)
    return mistakes


def _random_qkv(rng, large=False, min_d_k=1):
    """Random Q, K, V with T up to 12 and d_k from ``min_d_k`` to 16, d_v up to 16, d_v never equal
    to d_k (so a scaling by the values' width instead of the keys' shows for every student).

    With ``large=True`` every query is aligned with its own key so that its scaled score
    is 1000 or more: a softmax that does not subtract the maximum overflows to nan. (d_k = 1 makes
    the sqrt(d_k) scaling a no-op: a check that must see a missing scaling asks for ``min_d_k=2``.)
    """
    T, d_k, d_v = int(rng.integers(2, 13)), int(rng.integers(min_d_k, 17)), int(rng.integers(1, 16))
    d_v += d_v >= d_k  # 1..16 without d_k
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    if large:  # row i's own score is 1000 (i + 1): far apart, so each row needs its own shift
        Q = 1000.0 * np.sqrt(d_k) * np.arange(1, T + 1)[:, None] * K / np.sum(K * K, axis=1, keepdims=True)
    return Q, K, V


# -- known mistakes as whole functions: the grader runs a check on one to tell whether a failure
#    that names nothing (a crash on other shapes) comes from a mistake named in another check of
#    the same function (autograder/checks/charged.py) --
def _project_columns(X, W_Q, W_K, W_V):
    """project_qkv with the column convention: X @ W.T (square weights hide it; others raise)."""
    X = np.asarray(X, dtype=float)
    return tuple(X @ np.asarray(W, dtype=float).T for W in (W_Q, W_K, W_V))


WRONG_FUNCTIONS = {COLUMNS: {"project_qkv": _project_columns}}
