"""Hidden checks of the "embeddings" exercise: cosine similarity, semantic search.

The fixed cases (the course text's cos((1,2,2), (2,4,4)) = 1.0 and small cases worked by hand)
are declared once in ``cases.py``, visible or hidden; the line below makes its graded ones hidden
checks. Here: the randomized checks, compared with the reference solution
(solutions/embeddings.py). Each known mistake is computed by a small wrong variant of
``wrong.py``, so the feedback can name it when a student's value matches. How a search result
is judged (ties within a rounding error): ``cases.expect_search``.
"""
import numpy as np

from autograder.authoring import check, expect_close, hidden_checks
from solutions import embeddings as ref

from .cases import CASES, expect_search
from .wrong import _cos_mistakes, _grid_mistakes, _random_pair

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


# -- cosine_similarity ------------------------------------------------------------------
@check("cosine_similarity", "random vectors, d up to 16, scaled and opposite copies", points=2)
def check_cos_random(cosine_similarity, rng):
    for how in ("scaled", "opposite", "independent", "independent"):
        a, b = _random_pair(rng, how)
        expect_close(cosine_similarity(a, b), ref.cosine_similarity(a, b), atol=1e-9,
                     what=f"cosine_similarity(a, b) for a = {np.round(a, 4).tolist()}, b = {np.round(b, 4).tolist()}",
                     mistakes=_cos_mistakes(a, b))


# -- cosine_similarity_matrix -------------------------------------------------------------
@check("cosine_similarity_matrix", "rows of zeros give 0.0, not nan", points=1)
def check_grid_zero_rows(cosine_similarity_matrix, rng):
    # n != m, so a grid of shape (m, n) never passes (two zero rows can make a square grid symmetric)
    n, m, d = int(rng.integers(2, 7)), int(rng.integers(2, 6)), int(rng.integers(2, 9))
    m += m >= n
    A, B = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    A[int(rng.integers(n))] = 0.0
    B[int(rng.integers(m))] = 0.0
    expect_close(cosine_similarity_matrix(A, B), ref.cosine_similarity_matrix(A, B), atol=1e-9,
                 what=f"cosine_similarity_matrix(A, B) with a row of zeros in each, A = "
                      f"{np.round(A, 3).tolist()}, B = {np.round(B, 3).tolist()}",
                 mistakes=_grid_mistakes(A, B, zero_rows=True))


@check("cosine_similarity_matrix", "random shapes (n, d) and (m, d), d up to 16", points=2)
def check_grid_random(cosine_similarity_matrix, rng):
    for _ in range(3):
        n, m, d = int(rng.integers(1, 13)), int(rng.integers(1, 12)), int(rng.integers(1, 17))
        m += m >= n  # n != m: a (1, 1) grid is its own transpose
        A, B = rng.normal(size=(n, d)), rng.normal(size=(m, d)) * float(rng.choice([0.1, 1.0, 10.0]))
        expect_close(cosine_similarity_matrix(A, B), ref.cosine_similarity_matrix(A, B), atol=1e-9,
                     what=f"cosine_similarity_matrix(A, B) for A of shape {A.shape} and B of shape {B.shape}",
                     mistakes=_grid_mistakes(A, B))


# -- semantic_search -----------------------------------------------------------------------
def _random_search_case(rng, k_past_end):
    """Documents with exact copies (the best one at least twice), a query, and a k that never
    cuts a group of copies in two. Rows get lengths from 0.1 to 10: length must not count."""
    d, unique = int(rng.integers(2, 17)), int(rng.integers(2, 7))
    while True:
        base = rng.normal(size=(unique, d)) * rng.uniform(0.1, 10.0, size=(unique, 1))
        query = rng.normal(size=d)
        base_scores = ref.cosine_similarity_matrix(query[None, :], base)[0]
        if np.min(np.diff(np.sort(base_scores))) > 1e-6:
            break
    which = list(range(unique)) + [int(np.argmax(base_scores))] + \
        [int(i) for i in rng.integers(0, unique, size=int(rng.integers(1, 6)))]
    rng.shuffle(which)
    documents = base[which]
    if k_past_end:
        return query, documents, len(which) + int(rng.integers(1, 5))
    sizes = [which.count(u) for u in np.argsort(-base_scores)]
    return query, documents, int(np.cumsum(sizes)[int(rng.integers(0, unique))])


@check("semantic_search", "random cases with copies of documents, d up to 16", points=2)
def check_search_random(semantic_search, rng):
    for case in range(4):
        query, documents, k = _random_search_case(rng, k_past_end=case == 0)
        scores = ref.cosine_similarity_matrix(query[None, :], documents)[0]
        expect_search(semantic_search(query, documents, k), query, documents, k, scores,
                       f"random search: {len(documents)} documents of width {documents.shape[1]}, k = {k}",
                       atol=1e-8)
