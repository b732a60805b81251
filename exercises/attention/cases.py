"""Fixed cases of the "attention" exercise: "the cat" (one attention row) and "river bank loan"
(the full QK^T grid), each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The figures come from ``worked.py``, the mistakes' sentences and values from ``wrong.py``.
"""
import functools

import numpy as np

from autograder.authoring import Case, Check, expect_equal, fail
from solutions import attention as ref

from .worked import (
    CAT_CONTEXT,
    CAT_SCALED,
    CAT_SCORES,
    CAT_WEIGHTS,
    CAT_WEIGHTS_UNSCALED,
    K_RBL,
    K_THE_CAT,
    ONE_APART,
    Q_RBL,
    Q_THE_CAT,
    RBL_CAUSAL_WEIGHTS,
    RBL_OUTPUT,
    RBL_SCORES,
    RBL_WEIGHTS,
    V_RBL,
    V_THE_CAT,
    W_K,
    W_Q,
    W_V,
    X_THE_CAT,
)
from .wrong import (
    AXIS_ROWS,
    BY_D_K,
    COLUMNS,
    GLOBAL_MAX,
    KEYS_NOT_VALUES,
    MASK_HIDES_DIAGONAL,
    MASK_TRANSPOSED,
    MASKED_SCORES,
    OVERFLOW,
    SCALED_GRID_SCORES,
    SCALED_ROW_SCORES,
    TRANSPOSED_SCORES,
    UNSCALED,
    WHOLE_GRID,
    _global_max_softmax,
    _naive_softmax,
    _weight_mistakes,
)


def expect_mask(got, T):
    """Judge ``causal_mask(T)``'s value: shape (T, T), the lower triangle, and dtype bool (the
    notebook compares the pattern only). Also the randomized sizes' check (``checks.py``)."""
    want = np.tril(np.ones((T, T), bool))
    arr = np.asarray(got)
    if arr.shape != (T, T):
        fail(f"causal_mask({T}): expected shape ({T}, {T}), got {arr.shape}")
    expect_equal(arr.astype(bool).tolist(), want.tolist(), what=f"causal_mask({T})",
                 mistakes={MASK_HIDES_DIAGONAL: np.tril(want, k=-1).tolist(), MASK_TRANSPOSED: want.T.tolist()})
    if arr.dtype != bool:
        fail(f"causal_mask({T}) has the right pattern but dtype {arr.dtype}; return a boolean array")


_THE_CAT = {"q": Q_THE_CAT[1], "K": K_THE_CAT, "V": V_THE_CAT}
_RBL = {"Q": Q_RBL, "K": K_RBL, "V": V_RBL}
_ROW = ("scores", "weights", "context")
_GRID = ("scores", "weights", "output")
_RBL_SCALED = np.array(RBL_SCORES, dtype=float) / np.sqrt(2)
_FAR_ROWS = np.array([[1.0, 2.0], [1001.0, 1002.0]])
_ROW_MISTAKES = _weight_mistakes(Q_RBL, K_RBL)
_MASK = np.tril(np.ones((3, 3), bool))

CASES = [
    # -- softmax --
    Check("softmax", "[1000, 1001] without overflow", points=1, name="check_softmax_large", cases=[
        Case("softmax({z})", inputs={"z": np.array([1000.0, 1001.0])}, expected=ONE_APART,
             what="softmax([1000, 1001])", mistakes={OVERFLOW: _naive_softmax([1000.0, 1001.0])}),
    ]),
    Check("softmax", 'each row of the scaled "river bank loan" scores sums to 1', cases=[
        Case("softmax({scores} / np.sqrt(2))", inputs={"scores": np.array(RBL_SCORES, dtype=float)},
             expected=RBL_WEIGHTS, mistakes={AXIS_ROWS: ref.softmax(_RBL_SCALED, axis=0),
                                             WHOLE_GRID: np.exp(_RBL_SCALED) / np.exp(_RBL_SCALED).sum()}),
    ]),
    Check("softmax", "rows far apart, [[1, 2], [1001, 1002]]: each row shifted by its own largest", cases=[
        Case("softmax({z})", inputs={"z": _FAR_ROWS}, expected=[ONE_APART, ONE_APART],
             mistakes={GLOBAL_MAX: _global_max_softmax(_FAR_ROWS), OVERFLOW: _naive_softmax(_FAR_ROWS)}),
    ]),
    # -- project_qkv --
    Check("project_qkv", 'q, k, v of "the cat"', points=1, name="check_project_the_cat", cases=[
        Case("project_qkv({X}, {W_Q}, {W_K}, {W_V})", inputs={"X": X_THE_CAT, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
             part=i, parts=("Q", "K", "V"), label=f'{name} for "the cat"', expected=want,
             mistakes={COLUMNS: X_THE_CAT @ W.T})
        for i, (name, want, W) in enumerate(zip("QKV", (Q_THE_CAT, K_THE_CAT, V_THE_CAT), (W_Q, W_K, W_V)))
    ]),
    # -- attention_row --
    Check("attention_row", 'raw scores for "the cat"', points=1, name="check_row_scores", cases=[
        Case("attention_row({q}, {K}, {V})", inputs=_THE_CAT, part=0, parts=_ROW, expected=CAT_SCORES,
             what='raw scores of "cat" reading "the" and "cat"', mistakes={SCALED_ROW_SCORES: CAT_SCALED}),
    ]),
    Check("attention_row", 'weights for "the cat"', points=1, name="check_row_weights", cases=[
        Case("attention_row({q}, {K}, {V})", inputs=_THE_CAT, part=1, parts=_ROW, expected=CAT_WEIGHTS,
             what='attention weights of "cat"',
             mistakes={UNSCALED: CAT_WEIGHTS_UNSCALED, BY_D_K: ref.softmax(np.array(CAT_SCORES) / 2)}),
    ]),
    Check("attention_row", 'context vector for "the cat"', points=1, name="check_row_context", cases=[
        Case("attention_row({q}, {K}, {V})", inputs=_THE_CAT, part=2, parts=_ROW, expected=CAT_CONTEXT,
             what='context vector of "cat"',
             mistakes={UNSCALED: np.array(CAT_WEIGHTS_UNSCALED) @ V_THE_CAT,
                       BY_D_K: ref.softmax(np.array(CAT_SCORES) / 2) @ V_THE_CAT,
                       KEYS_NOT_VALUES: np.array(CAT_WEIGHTS) @ K_THE_CAT}),
    ]),
    # -- causal_mask --
    Check("causal_mask", "3 tokens", points=1, name="check_mask_three", cases=[
        Case("causal_mask(3)", compare="equal", expected=_MASK, judge=functools.partial(expect_mask, T=3),
             mistakes={MASK_HIDES_DIAGONAL: np.tril(np.ones((3, 3), bool), k=-1), MASK_TRANSPOSED: _MASK.T}),
    ]),
    # -- attention_matrix --
    Check("attention_matrix", 'raw scores for "river bank loan"', points=1, name="check_grid_scores", cases=[
        Case("attention_matrix({Q}, {K}, {V})", inputs=_RBL, part=0, parts=_GRID, expected=RBL_SCORES,
             what='raw scores Q @ K.T of "river bank loan"',
             mistakes={SCALED_GRID_SCORES: _RBL_SCALED, TRANSPOSED_SCORES: np.array(RBL_SCORES).T}),
    ]),
    Check("attention_matrix", 'weights for "river bank loan"', points=1, name="check_grid_weights", cases=[
        Case("attention_matrix({Q}, {K}, {V})", inputs=_RBL, part=1, parts=_GRID, expected=RBL_WEIGHTS,
             what='attention weights of "river bank loan"', mistakes=_ROW_MISTAKES),
    ]),
    Check("attention_matrix", 'outputs for "river bank loan"', points=1, name="check_grid_output", cases=[
        Case("attention_matrix({Q}, {K}, {V})", inputs=_RBL, part=2, parts=_GRID, expected=RBL_OUTPUT,
             what='outputs of "river bank loan"', mistakes={name: w @ V_RBL for name, w in _ROW_MISTAKES.items()}),
    ]),
    Check("attention_matrix", 'causal weights for "river bank loan"', points=1, name="check_grid_causal", cases=[
        Case("attention_matrix({Q}, {K}, {V}, causal=True)", inputs=_RBL, part=1, parts=_GRID,
             expected=RBL_CAUSAL_WEIGHTS, what='causal attention weights of "river bank loan"',
             mistakes=_weight_mistakes(Q_RBL, K_RBL, causal=True)),
        Case("attention_matrix({Q}, {K}, {V}, causal=True)", inputs=_RBL, part=0, parts=_GRID, hidden=True,
             expected=RBL_SCORES, what="raw scores with causal=True (the mask applies to the weights only)",
             mistakes={MASKED_SCORES: np.where(_MASK, RBL_SCORES, -np.inf)}),
    ]),
]
