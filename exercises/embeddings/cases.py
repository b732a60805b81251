"""Fixed cases of the "embeddings" exercise: the course text's cos((1,2,2), (2,4,4)) = 1.0 and
small cases worked by hand (their cosines are simple fractions, ``worked.py``), each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The mistakes' sentences and values come from ``wrong.py``.

Ties in ``semantic_search``: copies of one document can score a rounding error apart when the
scores come out of a matrix product (BLAS sums a row differently depending on where it sits).
Scores within ``TIE`` of each other count as tied; within a tie the lower index must come
first, unless the student's own scores put the higher one strictly ahead (``expect_search``,
which the hidden checks use instead of comparing the pairs). The hand-made tie case uses
vectors whose lengths are powers of two, so every way of computing it is exact and its ties
are real ties.
"""
import functools

import numpy as np

from autograder.authoring import Case, Check, Opaque, expect_close, expect_equal, fail, fmt

from .worked import (
    A_122,
    B_244,
    BIG_K_COS,
    BIG_K_DOCS,
    BIG_K_ORDER,
    BIG_K_Q,
    COS_122_244,
    GRID_A,
    GRID_B,
    GRID_COS,
    SEARCH_COS,
    SEARCH_DOCS,
    SEARCH_Q,
    SEARCH_TOP2,
    TIE_COS,
    TIE_DOCS,
    TIE_ORDER,
    TIE_Q,
)
from .wrong import (
    DOT_RANKING,
    NAN_FOR_ZERO,
    TIE,
    TIES_HIGH,
    _cos_mistakes,
    _cos_variant,
    _grid_mistakes,
    _order_mistakes,
    _rank,
    _ranked,
    _search_mistakes,
)


# -- judging a search result (also the randomized search check's, checks.py) ---------------------
def _pairs(result, what, n, k):
    """The student's result as ``(indices, scores)``, or a failure saying what is wrong with it."""
    if isinstance(result, np.ndarray) and result.ndim == 2:
        items = list(result)
    elif isinstance(result, (list, tuple)):
        items = list(result)
    else:
        fail(f"{what}: expected a list of (index, score) pairs, got {fmt(result)}")
    indices, scores = [], []
    for item in items:
        if isinstance(item, Opaque) or not isinstance(item, (list, tuple, np.ndarray)) or len(item) != 2:
            fail(f"{what}: each result should be an (index, score) pair; got {fmt(item)}")
        index, score = item
        try:
            index_f, score_f = float(index), float(score)
        except (TypeError, ValueError):
            fail(f"{what}: each result should be an (index, score) pair of numbers; got {fmt(item)}")
        if isinstance(index, bool) or not np.isfinite(index_f) or index_f != round(index_f):
            fail(f"{what}: the first element of each pair should be a document index (an int); got "
                 f"{fmt(item)}. Return (index, score) pairs, in that order.")
        indices.append(int(round(index_f)))
        scores.append(score_f)
    want = min(k, n)
    if len(indices) != want:
        fail(f"{what}: asked for k = {k} of {n} documents, expected {want} results, got {len(indices)}",
             without_expected=f"{what}: asked for k = {k} of {n} documents, your code returned {len(indices)} "
                              "results, which is not the right number",
             expected=want, got=len(indices), what=f"{what}: the number of results")
    if any(not 0 <= i < n for i in indices) or len(set(indices)) != len(indices):
        fail(f"{what}: the indices {indices} should be distinct rows of documents (0 to {n - 1})")
    return indices, np.array(scores)


def expect_search(result, query, documents, k, scores, what, atol=1e-4):
    """Check a search result against the true cosines ``scores`` of all documents."""
    scores = [float(s) for s in scores]
    dots = np.asarray(documents, float) @ np.asarray(query, float)
    indices, got = _pairs(result, what, len(scores), k)
    expect_close(got, [scores[i] for i in indices], atol=atol,
                 what=f"{what}: the scores of documents {indices}", mistakes={DOT_RANKING: dots[indices]})
    want = _rank(scores, k)
    verdict = _compare_order(indices, got, scores, want)
    if verdict == "ok":
        return
    if verdict == "ties":
        fail(f"{what}: the indices, best first: expected {want}, got {indices}. "
             f"That is what you get when you {TIES_HIGH}.",
             without_expected=f"{what}: the indices, best first: your code returned {indices}, which is not the "
                              f"right order. That is what you get when you {TIES_HIGH}.",
             expected=want, got=indices, what=f"{what}: the indices, best first")
    expect_equal(indices, want, what=f"{what}: the indices, best first",
                 mistakes=_order_mistakes(scores, k, dots))


def _compare_order(indices, got, scores, want):
    """How ``indices`` (with the student's own scores ``got``) compares with the ranking ``want``.

    Returns "ok" when it lists the same scores in the same order and every tie is lowest
    index first, except where the student's own scores split the tie by a rounding error
    (their higher score first); "ties" when only the order inside ties is wrong; "wrong"
    otherwise.
    """
    if any(abs(scores[i] - scores[j]) > TIE for i, j in zip(indices, want)):
        return "wrong"
    for p in range(len(indices) - 1):
        i, j = indices[p], indices[p + 1]
        if abs(scores[i] - scores[j]) <= TIE and i > j and not got[p] > got[p + 1]:
            return "ties"
    return "ok"


def _search(q, docs, k, cosines, order, **more):
    """The case ``semantic_search(q, docs, k)``: shown as ``[[index, score], ...]``, judged by
    ``expect_search``."""
    what = f"semantic_search({q.tolist()}, {docs.tolist()}, k={k})"
    return Case(f"semantic_search({{q}}, {{docs}}, {k})", inputs={"q": q, "docs": docs},
                expected=_ranked(order, cosines), mistakes=_search_mistakes(q, docs, k, cosines),
                judge=functools.partial(expect_search, query=q, documents=docs, k=k, scores=cosines, what=what),
                **more)


def _cos(a, b, expected, mistakes, hidden=False):
    return Case("cosine_similarity({a}, {b})", inputs={"a": a, "b": b}, expected=expected, mistakes=mistakes,
                what=f"cosine_similarity({a.tolist()}, {b.tolist()})", hidden=hidden)


def _different_sizes(a, b, hidden=False):
    # zip() silently drops the unmatched entries; numpy broadcasting stretches a length-1 array
    return Case("cosine_similarity({a}, {b})", inputs={"a": a, "b": b}, compare="raises", expected="ValueError",
                what=f"cosine_similarity({a.tolist()}, {b.tolist()})", hidden=hidden,
                why="vectors of different sizes cannot be compared (zip() silently drops the unmatched entries, "
                    "and numpy broadcasting stretches a length-1 array)")


_GRID_ZERO_A = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
_ZEROS_3 = np.zeros(3)

CASES = [
    # -- cosine_similarity --
    Check("cosine_similarity", "(1, 2, 2) and (2, 4, 4) point the same way", points=1, name="check_cos_worked",
          cases=[Case("cosine_similarity({a}, {b})", inputs={"a": A_122, "b": B_244}, expected=COS_122_244,
                      what="cosine_similarity((1, 2, 2), (2, 4, 4))", mistakes=_cos_mistakes(A_122, B_244))]),
    Check("cosine_similarity", "a zero vector gives 0.0, not nan", points=1, name="check_cos_zero", cases=[
        _cos(a, b, 0.0, {NAN_FOR_ZERO: _cos_variant(a, b, "nan")}, hidden=i > 0)
        for i, (a, b) in enumerate(((_ZEROS_3, A_122), (B_244, _ZEROS_3), (np.zeros(2), np.zeros(2))))
    ]),
    # The second pair catches numpy broadcasting: a length-1 array stretches to any length.
    Check("cosine_similarity", "vectors of different sizes raise ValueError", points=1, name="check_cos_lengths",
          cases=[_different_sizes(A_122, np.array([2.0, 4.0]), hidden=True), _different_sizes(np.array([3.0]), A_122)]),
    # -- cosine_similarity_matrix --
    Check("cosine_similarity_matrix", "rows (1,2,2), (0,0,1) against three rows, by hand", points=1,
          name="check_grid_worked", cases=[
              Case("cosine_similarity_matrix({A}, {B})", inputs={"A": GRID_A, "B": GRID_B}, expected=GRID_COS,
                   what=f"cosine_similarity_matrix(A, B) for A = {GRID_A.tolist()}, B = {GRID_B.tolist()}",
                   mistakes=_grid_mistakes(GRID_A, GRID_B))]),
    Check("cosine_similarity_matrix", "a row of zeros gives 0.0, not nan", cases=[
        Case("cosine_similarity_matrix({A}, {B})", inputs={"A": _GRID_ZERO_A, "B": GRID_B},
             expected=[GRID_COS[0], [0.0, 0.0, 0.0]], mistakes=_grid_mistakes(_GRID_ZERO_A, GRID_B, zero_rows=True)),
    ]),
    # -- semantic_search --
    Check("semantic_search", "query (1,2,2), k = 2: length must not count", points=1, name="check_search_worked",
          cases=[_search(SEARCH_Q, SEARCH_DOCS, 2, SEARCH_COS, SEARCH_TOP2)]),
    Check("semantic_search", "equal scores keep the lower index first", points=1, name="check_search_ties",
          cases=[_search(TIE_Q, TIE_DOCS, len(TIE_DOCS), TIE_COS, TIE_ORDER)]),
    Check("semantic_search", "k larger than the number of documents returns them all", points=1,
          name="check_search_big_k", cases=[_search(
              BIG_K_Q, BIG_K_DOCS, 10, BIG_K_COS, BIG_K_ORDER,
              hints={"IndexError": "When k is larger than the number of documents, return all of them "
                                   "(a slice such as order[:k] never runs past the end)."})]),
]
