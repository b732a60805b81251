"""Hidden checks of the "attention" exercise: one attention row, then the full grid.

The fixed cases ("the cat", one attention row, and "river bank loan", the full QK^T grid, from
the course text) are declared once in ``cases.py``, visible or hidden; the line below makes its
graded ones hidden checks. Here: the randomized and property checks, compared with the
reference solution (solutions/attention.py). Each known mistake is computed by a small wrong
variant of ``wrong.py``, so the feedback can name it when a student's value matches.
"""
import numpy as np

from autograder.authoring import check, expect_close, fail, hidden_checks
from solutions import attention as ref

from .cases import CASES, expect_mask
from .wrong import (
    AXIS_COLUMNS,
    AXIS_IGNORED,
    AXIS_WRONG,
    BY_D_K,
    BY_D_V,
    GLOBAL_MAX,
    GLOBAL_MAX_GRID,
    MASKED_SCORES,
    OVERFLOW,
    SCALED_ROW_SCORES,
    UNSCALED,
    WHOLE_GRID,
    _global_max_softmax,
    _naive_softmax,
    _random_qkv,
    _weight_mistakes,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


# -- softmax -----------------------------------------------------------------------
@check("softmax", "each row of a grid sums to 1 (axis=-1)", points=1)
def check_softmax_rows(softmax, rng):
    # Rows far apart (offsets 0, +800, -800): each row must be shifted by its own maximum.
    z = rng.normal(size=(3, 5)) * 3 + np.array([[0.0], [800.0], [-800.0]])
    with np.errstate(all="ignore"):
        whole_grid = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    expect_close(softmax(z), ref.softmax(z, axis=-1), what=f"softmax of a (3, 5) grid, z = {np.round(z, 3).tolist()}",
                 mistakes={AXIS_COLUMNS: ref.softmax(z, axis=0), WHOLE_GRID: whole_grid,
                           GLOBAL_MAX: _global_max_softmax(z), OVERFLOW: _naive_softmax(z)})


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
                     mistakes={OVERFLOW: _naive_softmax(z, axis=axis),
                               AXIS_WRONG: ref.softmax(z, axis=0) if axis == -1 else None,
                               AXIS_IGNORED: ref.softmax(z, axis=-1) if axis == 0 else None})


# -- project_qkv -----------------------------------------------------------------------
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


@check("attention_row", "random cases: large scores, d_k != d_v", points=2)
def check_row_random(attention_row, rng):
    for case in range(4):
        # case 0 has d_k >= 2: large scores saturate the softmax and d_k = 1 makes sqrt(d_k) = 1, so
        # without it a draw could hide a missing or wrong scaling from one student
        Q, K, V = _random_qkv(rng, large=case % 2 == 1, min_d_k=2 if case == 0 else 1)
        q = Q[-1]
        scores, weights, context = _row(attention_row, q, K, V)
        want = ref.attention_row(q, K, V)
        shape = f"q {q.shape}, K {K.shape}, V {V.shape}"
        expect_close(scores, want[0], atol=1e-8, rtol=1e-8, what=f"raw scores ({shape})",
                     mistakes={SCALED_ROW_SCORES: want[0] / np.sqrt(len(q))})
        expect_close(weights, want[1], atol=1e-8, rtol=1e-6, what=f"weights ({shape})",
                     mistakes={BY_D_V: ref.softmax(want[0] / np.sqrt(V.shape[1])) if V.shape[1] != len(q) else None,
                               UNSCALED: ref.softmax(want[0]),
                               BY_D_K: ref.softmax(want[0] / len(q)),
                               OVERFLOW: _naive_softmax(want[0] / np.sqrt(len(q)))})
        expect_close(context, want[2], atol=1e-8, rtol=1e-6, what=f"context ({shape})")


# -- causal_mask -----------------------------------------------------------------------
@check("causal_mask", "1 token and random sizes", points=1)
def check_mask_sizes(causal_mask, rng):
    for T in [1, *(int(t) for t in rng.integers(2, 13, size=3))]:
        expect_mask(causal_mask(T), T)


# -- attention_matrix -------------------------------------------------------------------
def _grid(attention_matrix, Q, K, V, causal=False):
    result = attention_matrix(Q, K, V, causal=causal)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"attention_matrix should return a tuple (scores, weights, output); got {type(result).__name__}")
    return result


@check("attention_matrix", "random cases, causal and not, large scores", points=2)
def check_grid_random(attention_matrix, rng):
    for case in range(4):
        Q, K, V = _random_qkv(rng, large=case % 2 == 1, min_d_k=2 if case == 0 else 1)  # as check_row_random
        causal = case >= 2
        scores, weights, output = _grid(attention_matrix, Q, K, V, causal=causal)
        want = ref.attention_matrix(Q, K, V, causal=causal)
        shape = f"Q {Q.shape}, K {K.shape}, V {V.shape}, causal={causal}"
        causal_mask = np.tril(np.ones(want[0].shape, bool))
        expect_close(scores, want[0], atol=1e-8, rtol=1e-8, what=f"raw scores ({shape})",
                     mistakes={MASKED_SCORES: np.where(causal_mask, want[0], -np.inf) if causal else None})
        mistakes = _weight_mistakes(Q, K, causal=causal, d_v=V.shape[1])
        scaled = want[0] / np.sqrt(Q.shape[1])
        if causal:
            scaled = np.where(causal_mask, scaled, -np.inf)
        mistakes[OVERFLOW] = _naive_softmax(scaled)
        mistakes[GLOBAL_MAX_GRID] = _global_max_softmax(scaled)
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
