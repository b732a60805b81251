"""Visible cases of the "embeddings" exercise: what students see under each function.

``python -m autograder build`` writes ``VISIBLE`` into the notebook as values only (see
``autograder/course/visible.py``); the figures come from ``worked.py``, the mistakes' values from ``wrong.py``.
"""
import numpy as np

from autograder.authoring import Visible

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
from .wrong import DOT_RANKING, NAN_FOR_ZERO, TIES_HIGH, _cos_mistakes, _cos_variant, _grid_mistakes, _rank


# -- visible checks: written into the notebook by the build, as values (see visible.py) --------
def _ranked(indices, scores):
    return [[int(i), float(scores[i])] for i in indices]


def _search_mistakes(query, documents, k, cosines):
    dots = np.asarray(documents, float) @ np.asarray(query, float)
    n = len(cosines)
    by_index_desc = sorted(range(n), key=lambda i: (-cosines[i], -i))[:k]
    return {"sort the scores lowest first (np.argsort sorts in ascending order)":
                _ranked(_rank([-s for s in cosines], n)[:k], cosines),
            DOT_RANKING: _ranked(_rank(list(dots), k), dots),
            TIES_HIGH: _ranked(by_index_desc, cosines),
            "return (score, index) pairs; each result should be (index, score), in that order":
                [pair[::-1] for pair in _ranked(_rank(cosines, k), cosines)]}


_GRID_ZERO_A = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])


VISIBLE = [
    Visible("cosine_similarity", "(1, 2, 2) and (2, 4, 4) point the same way", "cosine_similarity({a}, {b})",
            inputs={"a": A_122, "b": B_244}, expected=COS_122_244, mistakes=_cos_mistakes(A_122, B_244)),
    Visible("cosine_similarity", "a zero vector gives 0.0, not nan", "cosine_similarity({a}, {b})",
            inputs={"a": np.zeros(3), "b": A_122}, expected=0.0,
            mistakes={NAN_FOR_ZERO: _cos_variant(np.zeros(3), A_122, "nan")}),
    Visible("cosine_similarity", "vectors of different sizes raise ValueError", "cosine_similarity({a}, {b})",
            inputs={"a": np.array([3.0]), "b": A_122}, compare="raises", expected="ValueError"),
    Visible("cosine_similarity_matrix", "rows (1,2,2), (0,0,1) against three rows, by hand",
            "cosine_similarity_matrix({A}, {B})", inputs={"A": GRID_A, "B": GRID_B}, expected=GRID_COS,
            mistakes=_grid_mistakes(GRID_A, GRID_B)),
    Visible("cosine_similarity_matrix", "a row of zeros gives 0.0, not nan", "cosine_similarity_matrix({A}, {B})",
            inputs={"A": _GRID_ZERO_A, "B": GRID_B}, expected=[GRID_COS[0], [0.0, 0.0, 0.0]],
            mistakes=_grid_mistakes(_GRID_ZERO_A, GRID_B, zero_rows=True)),
    Visible("semantic_search", "query (1,2,2), k = 2: length must not count", "semantic_search({q}, {docs}, 2)",
            inputs={"q": SEARCH_Q, "docs": SEARCH_DOCS}, expected=_ranked(SEARCH_TOP2, SEARCH_COS),
            mistakes=_search_mistakes(SEARCH_Q, SEARCH_DOCS, 2, SEARCH_COS)),
    Visible("semantic_search", "equal scores keep the lower index first", "semantic_search({q}, {docs}, 7)",
            inputs={"q": TIE_Q, "docs": TIE_DOCS}, expected=_ranked(TIE_ORDER, TIE_COS),
            mistakes=_search_mistakes(TIE_Q, TIE_DOCS, 7, TIE_COS)),
    Visible("semantic_search", "k larger than the number of documents returns them all",
            "semantic_search({q}, {docs}, 10)", inputs={"q": BIG_K_Q, "docs": BIG_K_DOCS},
            expected=_ranked(BIG_K_ORDER, BIG_K_COS), mistakes=_search_mistakes(BIG_K_Q, BIG_K_DOCS, 10, BIG_K_COS),
            hints={"IndexError": "When k is larger than the number of documents, return all of them "
                                 "(a slice such as order[:k] never runs past the end)."}),
]
