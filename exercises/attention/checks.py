"""Hidden checks of the "attention" exercise: one attention row, then the full grid.

Worked values are the course text's (``worked.py`` lists where each comes from): "the cat"
(one attention row) and "river bank loan" (the full QK^T grid). Randomized cases are compared with the reference solution
(solutions/attention.py). Each known mistake is computed by a small wrong variant of ``wrong.py``,
so the feedback can name it when a student's value matches.
"""
import numpy as np

from autograder.authoring import check, expect_close, expect_equal, fail
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
from .wrong import _global_max_softmax, _naive_softmax, _random_qkv, _weight_mistakes


# -- softmax -----------------------------------------------------------------------
@check("softmax", "[1000, 1001] without overflow", points=1)
def check_softmax_large(softmax):
    expect_close(softmax(np.array([1000.0, 1001.0])), ONE_APART, what="softmax([1000, 1001])",
                 mistakes={"exponentiate without first subtracting the largest score (overflow)":
                           _naive_softmax([1000.0, 1001.0])})


@check("softmax", "each row of a grid sums to 1 (axis=-1)", points=1)
def check_softmax_rows(softmax, rng):
    # Rows far apart (offsets 0, +800, -800): each row must be shifted by its own maximum.
    z = rng.normal(size=(3, 5)) * 3 + np.array([[0.0], [800.0], [-800.0]])
    with np.errstate(all="ignore"):
        whole_grid = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    expect_close(softmax(z), ref.softmax(z, axis=-1), what=f"softmax of a (3, 5) grid, z = {np.round(z, 3).tolist()}",
                 mistakes={"take the softmax over the wrong axis (columns sum to 1)": ref.softmax(z, axis=0),
                           "normalize over the whole grid instead of each row": whole_grid,
                           "subtract the largest score of the whole array instead of each row's own largest":
                               _global_max_softmax(z),
                           "exponentiate without first subtracting the largest score (overflow)": _naive_softmax(z)})


@check("softmax", "random cases, including large scores and axis=0", points=1)
def check_softmax_random(softmax, rng):
    """Shapes and values are drawn per student, the conditions under which each named mistake
    shows are not: scores past 1000 (overflow), a 2-D grid with axis=-1 (a softmax over the wrong
    axis) and one with axis=0 (the axis ignored), each with at least 2 rows and 2 columns, and
    a last case of any shape. The same mistake costs every student the same points."""
    def grid():
        return tuple(int(n) for n in rng.integers(2, 7, size=2))
    any_shape = tuple(int(n) for n in rng.integers(1, 7, size=int(rng.integers(1, 3))))
    cases = [(grid(), -1, 1000.0), (grid(), -1, 0.0), (grid(), 0, 0.0), (any_shape, int(rng.choice([-1, 0])), 0.0)]
    for shape, axis, offset in cases:
        # offset 1000: e ** 1000 overflows, only a shifted softmax survives
        z = rng.normal(size=shape) * float(rng.choice([1.0, 5.0, 50.0])) + offset
        expect_close(softmax(z, axis=axis), ref.softmax(z, axis=axis), atol=1e-9, rtol=1e-7,
                     what=f"softmax(z, axis={axis}) for z of shape {shape}, z = {np.round(z, 3).tolist()}",
                     mistakes={"exponentiate without first subtracting the largest score (overflow)":
                               _naive_softmax(z, axis=axis),
                               "take the softmax over the wrong axis": ref.softmax(z, axis=0) if axis == -1 else None,
                               "ignore the axis argument": ref.softmax(z, axis=-1) if axis == 0 else None})


# -- project_qkv -----------------------------------------------------------------------
@check("project_qkv", 'q, k, v of "the cat"', points=1)
def check_project_the_cat(project_qkv):
    result = project_qkv(X_THE_CAT, W_Q, W_K, W_V)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"project_qkv should return a tuple (Q, K, V); got {type(result).__name__}")
    for label, got, want, W in zip("QKV", result, (Q_THE_CAT, K_THE_CAT, V_THE_CAT), (W_Q, W_K, W_V)):
        expect_close(got, want, what=f'{label} for "the cat"',
                     mistakes={"use the column convention (W @ x, or X @ W.T) instead of X @ W": X_THE_CAT @ W.T})


@check("project_qkv", "random shapes, d_k != d_v", points=1)
def check_project_random(project_qkv, rng):
    for _ in range(3):
        T, d_model, d_k, d_v = (int(n) for n in rng.integers(1, 13, size=4))
        X = rng.normal(size=(T, d_model))
        Ws = [rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))]
        result = project_qkv(X, *Ws)
        if not isinstance(result, (tuple, list)) or len(result) != 3:
            fail(f"project_qkv should return a tuple (Q, K, V); got {type(result).__name__}")
        for label, got, want in zip("QKV", result, ref.project_qkv(X, *Ws)):
            expect_close(got, want, atol=1e-9, rtol=1e-9,
                         what=f"{label} for X of shape {X.shape} and W_{label} of shape {Ws['QKV'.index(label)].shape}")


# -- attention_row -----------------------------------------------------------------------
def _row(attention_row, q, K, V):
    result = attention_row(q, K, V)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"attention_row should return a tuple (scores, weights, context); got {type(result).__name__}")
    return result


@check("attention_row", 'raw scores for "the cat"', points=1)
def check_row_scores(attention_row):
    scores, _, _ = _row(attention_row, Q_THE_CAT[1], K_THE_CAT, V_THE_CAT)
    expect_close(scores, CAT_SCORES, what='raw scores of "cat" reading "the" and "cat"',
                 mistakes={"return the scaled scores where the raw dot products K @ q are asked": CAT_SCALED})


@check("attention_row", 'weights for "the cat"', points=1)
def check_row_weights(attention_row):
    _, weights, _ = _row(attention_row, Q_THE_CAT[1], K_THE_CAT, V_THE_CAT)
    expect_close(weights, CAT_WEIGHTS, what='attention weights of "cat"',
                 mistakes={"forget to divide the scores by sqrt(d_k)": CAT_WEIGHTS_UNSCALED,
                           "divide the scores by d_k instead of sqrt(d_k)": ref.softmax(np.array(CAT_SCORES) / 2)})


@check("attention_row", 'context vector for "the cat"', points=1)
def check_row_context(attention_row):
    _, _, context = _row(attention_row, Q_THE_CAT[1], K_THE_CAT, V_THE_CAT)
    expect_close(context, CAT_CONTEXT, what='context vector of "cat"',
                 mistakes={"forget to divide the scores by sqrt(d_k)": np.array(CAT_WEIGHTS_UNSCALED) @ V_THE_CAT,
                           "multiply the weights by the keys instead of the values": np.array(CAT_WEIGHTS) @ K_THE_CAT})


@check("attention_row", "random cases: large scores, d_k != d_v", points=2)
def check_row_random(attention_row, rng):
    for case in range(4):
        Q, K, V = _random_qkv(rng, large=case % 2 == 1)
        q = Q[-1]
        scores, weights, context = _row(attention_row, q, K, V)
        want = ref.attention_row(q, K, V)
        shape = f"q {q.shape}, K {K.shape}, V {V.shape}"
        expect_close(scores, want[0], atol=1e-8, rtol=1e-8, what=f"raw scores ({shape})",
                     mistakes={"return the scaled scores where the raw dot products K @ q are asked":
                               want[0] / np.sqrt(len(q))})
        expect_close(weights, want[1], atol=1e-8, rtol=1e-6, what=f"weights ({shape})",
                     mistakes={"divide the scores by sqrt(d_v), the width of the values, instead of sqrt(d_k)":
                               ref.softmax(want[0] / np.sqrt(V.shape[1])) if V.shape[1] != len(q) else None,
                               "forget to divide the scores by sqrt(d_k)": ref.softmax(want[0]),
                               "divide the scores by d_k instead of sqrt(d_k)": ref.softmax(want[0] / len(q)),
                               "exponentiate without first subtracting the largest score (overflow)":
                                   _naive_softmax(want[0] / np.sqrt(len(q)))})
        expect_close(context, want[2], atol=1e-8, rtol=1e-6, what=f"context ({shape})")


# -- causal_mask -----------------------------------------------------------------------
def _expect_mask(got, T):
    want = np.tril(np.ones((T, T), bool))
    arr = np.asarray(got)
    if arr.shape != (T, T):
        fail(f"causal_mask({T}): expected shape ({T}, {T}), got {arr.shape}")
    expect_equal(arr.astype(bool).tolist(), want.tolist(), what=f"causal_mask({T})",
                 mistakes={"hide the diagonal too (a token must be allowed to read itself)":
                           np.tril(want, k=-1).tolist(),
                           "allow reading ahead instead of behind (the mask is transposed)": want.T.tolist()})
    if arr.dtype != bool:
        fail(f"causal_mask({T}) has the right pattern but dtype {arr.dtype}; return a boolean array")


@check("causal_mask", "3 tokens", points=1)
def check_mask_three(causal_mask):
    _expect_mask(causal_mask(3), 3)


@check("causal_mask", "1 token and random sizes", points=1)
def check_mask_sizes(causal_mask, rng):
    for T in [1, *(int(t) for t in rng.integers(2, 13, size=3))]:
        _expect_mask(causal_mask(T), T)


# -- attention_matrix -------------------------------------------------------------------
def _grid(attention_matrix, Q, K, V, causal=False):
    result = attention_matrix(Q, K, V, causal=causal)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"attention_matrix should return a tuple (scores, weights, output); got {type(result).__name__}")
    return result


@check("attention_matrix", 'raw scores for "river bank loan"', points=1)
def check_grid_scores(attention_matrix):
    scores, _, _ = _grid(attention_matrix, Q_RBL, K_RBL, V_RBL)
    expect_close(scores, RBL_SCORES, what='raw scores Q @ K.T of "river bank loan"',
                 mistakes={"return the scaled scores where the raw Q @ K.T is asked": np.array(RBL_SCORES) / np.sqrt(2),
                           "compute K @ Q.T (the transpose) instead of Q @ K.T": np.array(RBL_SCORES).T})


@check("attention_matrix", 'weights for "river bank loan"', points=1)
def check_grid_weights(attention_matrix):
    _, weights, _ = _grid(attention_matrix, Q_RBL, K_RBL, V_RBL)
    expect_close(weights, RBL_WEIGHTS, what='attention weights of "river bank loan"',
                 mistakes=_weight_mistakes(Q_RBL, K_RBL))


@check("attention_matrix", 'outputs for "river bank loan"', points=1)
def check_grid_output(attention_matrix):
    _, _, output = _grid(attention_matrix, Q_RBL, K_RBL, V_RBL)
    expect_close(output, RBL_OUTPUT, what='outputs of "river bank loan"',
                 mistakes={name: w @ V_RBL for name, w in _weight_mistakes(Q_RBL, K_RBL).items()})


@check("attention_matrix", 'causal weights for "river bank loan"', points=1)
def check_grid_causal(attention_matrix):
    scores, weights, _ = _grid(attention_matrix, Q_RBL, K_RBL, V_RBL, causal=True)
    expect_close(weights, RBL_CAUSAL_WEIGHTS, what='causal attention weights of "river bank loan"',
                 mistakes=_weight_mistakes(Q_RBL, K_RBL, causal=True))
    expect_close(scores, RBL_SCORES, what="raw scores with causal=True (the mask applies to the weights only)",
                 mistakes={"return masked scores where the raw, unmasked Q @ K.T is asked":
                           np.where(np.tril(np.ones((3, 3), bool)), RBL_SCORES, -np.inf)})


@check("attention_matrix", "random cases, causal and not, large scores", points=2)
def check_grid_random(attention_matrix, rng):
    for case in range(4):
        Q, K, V = _random_qkv(rng, large=case % 2 == 1)
        causal = case >= 2
        scores, weights, output = _grid(attention_matrix, Q, K, V, causal=causal)
        want = ref.attention_matrix(Q, K, V, causal=causal)
        shape = f"Q {Q.shape}, K {K.shape}, V {V.shape}, causal={causal}"
        expect_close(scores, want[0], atol=1e-8, rtol=1e-8, what=f"raw scores ({shape})")
        mistakes = _weight_mistakes(Q, K, causal=causal, d_v=V.shape[1])
        scaled = want[0] / np.sqrt(Q.shape[1])
        if causal:
            scaled = np.where(np.tril(np.ones(scaled.shape, bool)), scaled, -np.inf)
        mistakes["exponentiate without first subtracting the largest score (overflow)"] = _naive_softmax(scaled)
        mistakes["subtract the largest score of the whole grid instead of each row's own largest"] = \
            _global_max_softmax(scaled)
        expect_close(weights, want[1], atol=1e-8, rtol=1e-6, what=f"weights ({shape})", mistakes=mistakes)
        expect_close(output, want[2], atol=1e-8, rtol=1e-6, what=f"output ({shape})")


@check("attention_matrix", "each row equals attention_row on that token", points=1)
def check_grid_rows_match(attention_matrix, rng):
    Q, K, V = _random_qkv(rng)
    _, weights, output = _grid(attention_matrix, Q, K, V)
    for i in range(len(Q)):
        _, w, c = ref.attention_row(Q[i], K, V)
        expect_close(np.asarray(weights, float)[i], w, atol=1e-8, rtol=1e-6,
                     what=f"row {i} of the weights vs. one attention row for token {i}")
        expect_close(np.asarray(output, float)[i], c, atol=1e-8, rtol=1e-6,
                     what=f"row {i} of the output vs. the context vector of token {i}")
