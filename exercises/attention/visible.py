"""Visible cases of the "attention" exercise: what students see under each function.

``python -m autograder build`` writes ``VISIBLE`` into the notebook as values only (see
``autograder/course/visible.py``); the figures come from ``worked.py``, the mistakes' values from ``wrong.py``.
"""
import numpy as np

from autograder.authoring import Visible
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
from .wrong import _global_max_softmax, _naive_softmax, _weight_mistakes

# -- visible checks: written into the notebook by the build, as values (see visible.py) --------
_THE_CAT = {"q": Q_THE_CAT[1], "K": K_THE_CAT, "V": V_THE_CAT}
_RBL = {"Q": Q_RBL, "K": K_RBL, "V": V_RBL}
_RBL_SCALED = np.array(RBL_SCORES, dtype=float) / np.sqrt(2)
_FAR_ROWS = np.array([[1.0, 2.0], [1001.0, 1002.0]])
_COLUMNS = "use the column convention (W @ x, or X @ W.T) instead of X @ W"
_ROW_MISTAKES = _weight_mistakes(Q_RBL, K_RBL)
_CAUSAL_MISTAKES = _weight_mistakes(Q_RBL, K_RBL, causal=True)

VISIBLE = [
    Visible("softmax", "[1000, 1001] without overflow", "softmax({z})", inputs={"z": np.array([1000.0, 1001.0])},
            expected=ONE_APART,
            mistakes={"exponentiate without first subtracting the largest score (overflow)":
                      _naive_softmax([1000.0, 1001.0])}),
    Visible("softmax", 'each row of the scaled "river bank loan" scores sums to 1',
            "softmax({scores} / np.sqrt(2))", inputs={"scores": np.array(RBL_SCORES, dtype=float)},
            expected=RBL_WEIGHTS,
            mistakes={"take the softmax over the wrong axis (each column sums to 1 instead of each row)":
                      ref.softmax(_RBL_SCALED, axis=0),
                      "normalize over the whole grid instead of each row":
                      np.exp(_RBL_SCALED) / np.exp(_RBL_SCALED).sum()}),
    Visible("softmax", "rows far apart, [[1, 2], [1001, 1002]]: each row shifted by its own largest",
            "softmax({z})", inputs={"z": _FAR_ROWS}, expected=[ONE_APART, ONE_APART],
            mistakes={"subtract the largest score of the whole array instead of each row's own largest":
                      _global_max_softmax(_FAR_ROWS),
                      "exponentiate without first subtracting the largest score (overflow)": _naive_softmax(_FAR_ROWS)}),
    Visible("project_qkv", 'Q, K, V of "the cat"', "project_qkv({X}, {W_Q}, {W_K}, {W_V})",
            inputs={"X": X_THE_CAT, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
            expected=[Q_THE_CAT, K_THE_CAT, V_THE_CAT],
            mistakes={_COLUMNS: [X_THE_CAT @ W.T for W in (W_Q, W_K, W_V)]}),
    Visible("attention_row", 'raw scores for "the cat"', "attention_row({q}, {K}, {V})", inputs=_THE_CAT,
            part=0, parts=3, expected=CAT_SCORES,
            mistakes={"return the scaled scores where the raw dot products K @ q are asked": CAT_SCALED}),
    Visible("attention_row", 'weights for "the cat"', "attention_row({q}, {K}, {V})", inputs=_THE_CAT,
            part=1, parts=3, expected=CAT_WEIGHTS,
            mistakes={"forget to divide the scores by sqrt(d_k)": CAT_WEIGHTS_UNSCALED,
                      "divide the scores by d_k instead of sqrt(d_k)": ref.softmax(np.array(CAT_SCORES) / 2)}),
    Visible("attention_row", 'context vector for "the cat"', "attention_row({q}, {K}, {V})", inputs=_THE_CAT,
            part=2, parts=3, expected=CAT_CONTEXT,
            mistakes={"forget to divide the scores by sqrt(d_k)": np.array(CAT_WEIGHTS_UNSCALED) @ V_THE_CAT,
                      "divide the scores by d_k instead of sqrt(d_k)":
                      ref.softmax(np.array(CAT_SCORES) / 2) @ V_THE_CAT,
                      "multiply the weights by the keys instead of the values": np.array(CAT_WEIGHTS) @ K_THE_CAT}),
    Visible("causal_mask", "3 tokens", "causal_mask(3)", compare="equal",
            expected=np.tril(np.ones((3, 3), bool)),
            mistakes={"hide the diagonal too (a token must be allowed to read itself)":
                      np.tril(np.ones((3, 3), bool), k=-1),
                      "allow reading ahead instead of behind (the mask is transposed)":
                      np.tril(np.ones((3, 3), bool)).T}),
    Visible("attention_matrix", 'raw scores for "river bank loan"', "attention_matrix({Q}, {K}, {V})",
            inputs=_RBL, part=0, parts=3, expected=RBL_SCORES,
            mistakes={"return the scaled scores where the raw Q @ K.T is asked": _RBL_SCALED,
                      "compute K @ Q.T (the transpose) instead of Q @ K.T": np.array(RBL_SCORES).T}),
    Visible("attention_matrix", 'weights for "river bank loan"', "attention_matrix({Q}, {K}, {V})",
            inputs=_RBL, part=1, parts=3, expected=RBL_WEIGHTS, mistakes=_ROW_MISTAKES),
    Visible("attention_matrix", 'outputs for "river bank loan"', "attention_matrix({Q}, {K}, {V})",
            inputs=_RBL, part=2, parts=3, expected=RBL_OUTPUT,
            mistakes={name: w @ V_RBL for name, w in _ROW_MISTAKES.items()}),
    Visible("attention_matrix", 'causal weights for "river bank loan"',
            "attention_matrix({Q}, {K}, {V}, causal=True)", inputs=_RBL, part=1, parts=3,
            expected=RBL_CAUSAL_WEIGHTS, mistakes=_CAUSAL_MISTAKES),
]
