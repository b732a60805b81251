"""Hidden checks of the "embeddings" exercise: cosine similarity, semantic search.

The one value the course text commits to here (``worked.py``): cos((1,2,2), (2,4,4)) = 1.0. The other fixed cases are small enough to work by hand (their
cosines are simple fractions, written out beside them). Randomized cases are compared with
the reference solution (solutions/embeddings.py). Each known mistake is computed by a small
wrong variant of ``wrong.py``, so the feedback can name it when a student's value matches.

Ties in ``semantic_search``: copies of one document can score a rounding error apart when the
scores come out of a matrix product (BLAS sums a row differently depending on where it sits).
Scores within ``TIE`` of each other count as tied; within a tie the lower index must come
first, unless the student's own scores put the higher one strictly ahead. The hand-made tie
case uses vectors whose lengths are powers of two, so every way of computing it is exact and
its ties are real ties.
"""
import numpy as np

from autograder.authoring import Opaque, StudentCodeError, check, expect_close, expect_equal, fail, fmt
from solutions import embeddings as ref

from .worked import (
    A_122,
    B_244,
    BIG_K_COS,
    BIG_K_DOCS,
    BIG_K_Q,
    COS_122_244,
    GRID_A,
    GRID_B,
    GRID_COS,
    SEARCH_COS,
    SEARCH_DOCS,
    SEARCH_Q,
    TIE_COS,
    TIE_DOCS,
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
    _random_pair,
    _rank,
)


# -- cosine_similarity ------------------------------------------------------------------
@check("cosine_similarity", "(1, 2, 2) and (2, 4, 4) point the same way", points=1)
def check_cos_worked(cosine_similarity):
    expect_close(cosine_similarity(A_122, B_244), COS_122_244, what="cosine_similarity((1, 2, 2), (2, 4, 4))",
                 mistakes=_cos_mistakes(A_122, B_244))


@check("cosine_similarity", "a zero vector gives 0.0, not nan", points=1)
def check_cos_zero(cosine_similarity):
    for a, b in ((np.zeros(3), A_122), (B_244, np.zeros(3)), (np.zeros(2), np.zeros(2))):
        expect_close(cosine_similarity(a, b), 0.0, what=f"cosine_similarity({a.tolist()}, {b.tolist()})",
                     mistakes={NAN_FOR_ZERO: _cos_variant(a, b, "nan")})


@check("cosine_similarity", "vectors of different sizes raise ValueError", points=1)
def check_cos_lengths(cosine_similarity):
    # The second pair catches numpy broadcasting: a length-1 array stretches to any length.
    for a, b in ((A_122, np.array([2.0, 4.0])), (np.array([3.0]), A_122)):
        call = f"cosine_similarity({a.tolist()}, {b.tolist()})"
        try:
            got = cosine_similarity(a, b)
        except StudentCodeError as exc:
            if exc.kind != "raised":
                raise
            if exc.detail.split(":")[0] != "ValueError":
                fail(f"{call} raised {exc.detail}; vectors of different sizes should raise ValueError")
            continue
        fail(f"{call} returned {fmt(got)}; vectors of different sizes cannot be compared, so it "
             "should raise ValueError (zip() silently drops the unmatched entries, and numpy "
             "broadcasting stretches a length-1 array)")


@check("cosine_similarity", "random vectors, d up to 16, scaled and opposite copies", points=2)
def check_cos_random(cosine_similarity, rng):
    for how in ("scaled", "opposite", "independent", "independent"):
        a, b = _random_pair(rng, how)
        expect_close(cosine_similarity(a, b), ref.cosine_similarity(a, b), atol=1e-9,
                     what=f"cosine_similarity(a, b) for a = {np.round(a, 4).tolist()}, b = {np.round(b, 4).tolist()}",
                     mistakes=_cos_mistakes(a, b))


# -- cosine_similarity_matrix -------------------------------------------------------------
@check("cosine_similarity_matrix", "rows (1,2,2), (0,0,1) against three rows, by hand", points=1)
def check_grid_worked(cosine_similarity_matrix):
    expect_close(cosine_similarity_matrix(GRID_A, GRID_B), GRID_COS,
                 what=f"cosine_similarity_matrix(A, B) for A = {GRID_A.tolist()}, B = {GRID_B.tolist()}",
                 mistakes=_grid_mistakes(GRID_A, GRID_B))


@check("cosine_similarity_matrix", "rows of zeros give 0.0, not nan", points=1)
def check_grid_zero_rows(cosine_similarity_matrix, rng):
    n, m, d = int(rng.integers(2, 7)), int(rng.integers(2, 7)), int(rng.integers(2, 9))
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
        n, m, d = int(rng.integers(1, 13)), int(rng.integers(1, 13)), int(rng.integers(1, 17))
        A, B = rng.normal(size=(n, d)), rng.normal(size=(m, d)) * float(rng.choice([0.1, 1.0, 10.0]))
        expect_close(cosine_similarity_matrix(A, B), ref.cosine_similarity_matrix(A, B), atol=1e-9,
                     what=f"cosine_similarity_matrix(A, B) for A of shape {A.shape} and B of shape {B.shape}",
                     mistakes=_grid_mistakes(A, B))


# -- semantic_search -----------------------------------------------------------------------
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


def _expect_search(result, query, documents, k, scores, what, atol=1e-4):
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


@check("semantic_search", "query (1,2,2), k = 2: length must not count", points=1)
def check_search_worked(semantic_search):
    _expect_search(semantic_search(SEARCH_Q, SEARCH_DOCS, 2), SEARCH_Q, SEARCH_DOCS, 2, SEARCH_COS,
                   f"semantic_search({SEARCH_Q.tolist()}, {SEARCH_DOCS.tolist()}, k=2)")


@check("semantic_search", "equal scores keep the lower index first", points=1)
def check_search_ties(semantic_search):
    _expect_search(semantic_search(TIE_Q, TIE_DOCS, len(TIE_DOCS)), TIE_Q, TIE_DOCS, len(TIE_DOCS),
                   TIE_COS, f"semantic_search({TIE_Q.tolist()}, {TIE_DOCS.tolist()}, k=7)")


@check("semantic_search", "k larger than the number of documents returns them all", points=1)
def check_search_big_k(semantic_search):
    _expect_search(semantic_search(BIG_K_Q, BIG_K_DOCS, 10), BIG_K_Q, BIG_K_DOCS, 10, BIG_K_COS,
                   f"semantic_search({BIG_K_Q.tolist()}, {BIG_K_DOCS.tolist()}, k=10)")


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
        _expect_search(semantic_search(query, documents, k), query, documents, k, scores,
                       f"random search: {len(documents)} documents of width {documents.shape[1]}, k = {k}",
                       atol=1e-8)
