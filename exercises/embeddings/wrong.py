"""Small wrong implementations of the "embeddings" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a randomized
check (``checks.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

# Scores within TIE of each other count as tied (see checks.py's docstring).
TIE = 1e-9

NAN_FOR_ZERO = ("divide by the length of a zero vector: 0/0 is nan, but a zero vector has no "
                "direction and its cosine should be 0.0")
DOT_ONLY = "return the dot product without dividing by the norms"
ONE_NORM = "divide by only one of the two norms"
SQUARED = "divide by the squared lengths (you forgot the square roots in the norms)"
PRECEDENCE = ("write a @ b / |a| * |b| without parentheses: Python divides by |a| and then "
              "multiplies by |b|; divide by the product (|a| * |b|)")


# -- known mistakes, as small wrong implementations -------------------------------
def _cos_variant(a, b, how):
    a, b = np.asarray(a, float), np.asarray(b, float)
    with np.errstate(all="ignore"):
        if how == "dot":
            return float(a @ b)
        if how == "norm a":
            return float(a @ b / np.linalg.norm(a))
        if how == "norm b":
            return float(a @ b / np.linalg.norm(b))
        if how == "squared":
            return float(a @ b / ((a @ a) * (b @ b)))
        if how == "precedence":
            return float(a @ b / np.linalg.norm(a) * np.linalg.norm(b))
        if how == "nan":
            return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    raise ValueError(how)


def _cos_mistakes(a, b):
    """Named wrong values for two nonzero vectors (for a zero vector, only nan is worth naming)."""
    return {DOT_ONLY: _cos_variant(a, b, "dot"), ONE_NORM: _cos_variant(a, b, "norm a"),
            f"{ONE_NORM} (the second one)": _cos_variant(a, b, "norm b"),
            SQUARED: _cos_variant(a, b, "squared"), PRECEDENCE: _cos_variant(a, b, "precedence")}


def _grid_mistakes(A, B, zero_rows=False):
    A, B = np.asarray(A, float), np.asarray(B, float)
    dots = A @ B.T
    na, nb = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    with np.errstate(all="ignore"):
        mistakes = {DOT_ONLY: dots,
                    f"{ONE_NORM} (the rows of A only)": dots / na[:, None],
                    f"{ONE_NORM} (the rows of B only)": dots / nb[None, :],
                    SQUARED: dots / np.outer(na ** 2, nb ** 2)}
        if zero_rows:
            mistakes[NAN_FOR_ZERO] = dots / np.outer(na, nb)
    return mistakes


def _rank(scores, k):
    """Indices of the ``k`` best scores, highest first; ties (within TIE) lowest index first."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    groups = []
    for i in order:
        if groups and scores[groups[-1][-1]] - scores[i] <= TIE:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [i for group in groups for i in sorted(group)][:k]


TIES_HIGH = ("break ties towards the higher index (reversing an ascending sort also reverses "
             "the order of ties; equal scores must keep the lower index first)")
DOT_RANKING = "rank by the dot product instead of the cosine (a long vector then wins whatever its direction)"
ASCENDING = "sort the scores lowest first (np.argsort sorts in ascending order)"
BEST_K_REVERSED = "return the best k but lowest first"
SCORE_INDEX = "return (score, index) pairs; each result should be (index, score), in that order"


def _order_mistakes(scores, k, dots):
    """Index lists that the usual ranking mistakes produce, by name."""
    n = len(scores)
    return {
        ASCENDING: _rank([-s for s in scores], n)[:k],
        BEST_K_REVERSED: _rank(scores, k)[::-1],
        DOT_RANKING: _rank(list(dots), k),
    }


def _ranked(indices, scores):
    """``[[index, score], ...]``: a search result as the notebook shows it."""
    return [[int(i), float(scores[i])] for i in indices]


def _search_mistakes(query, documents, k, cosines):
    """The search results (``[[index, score], ...]``) the usual mistakes return."""
    dots = np.asarray(documents, float) @ np.asarray(query, float)
    n = len(cosines)
    by_index_desc = sorted(range(n), key=lambda i: (-cosines[i], -i))[:k]
    return {ASCENDING: _ranked(_rank([-s for s in cosines], n)[:k], cosines),
            DOT_RANKING: _ranked(_rank(list(dots), k), dots),
            TIES_HIGH: _ranked(by_index_desc, cosines),
            SCORE_INDEX: [pair[::-1] for pair in _ranked(_rank(cosines, k), cosines)]}


def _random_pair(rng, how):
    d = int(rng.integers(1, 17))
    a = rng.normal(size=d)
    if how == "scaled":
        return a, float(rng.uniform(0.1, 10.0)) * a
    if how == "opposite":
        return a, -float(rng.uniform(0.1, 10.0)) * a
    return a, rng.normal(size=d) * float(rng.choice([0.01, 1.0, 100.0]))
