"""Worked values of the "embeddings" exercise: cosine similarity, and toy model 1's similarities.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/embeddings.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, FROM_SCRATCH, Source, Worked

COSINE = Source(FOUNDATIONS, "2. Embeddings: Meaning as Geometry / Questions to Work Through")
MODEL_1 = Source(FROM_SCRATCH, "Build it: a language model in 60 lines / What you get")

# The course text's example: one vector is twice the other.
A_122 = np.array([1.0, 2.0, 2.0])
B_244 = np.array([2.0, 4.0, 4.0])
COS_122_244 = 1.0

_RUN = {}


def _toy(ref):
    """Toy model 1 trained as the text trains it (3,001 steps, seed 0), once per reference module."""
    if ref not in _RUN:
        _RUN[ref] = ref.train_toy_model()
    return _RUN[ref]


def _similarity(ref, table, a, b):
    return ref.cosine_similarity(table[ref.TOY_INDEX[a]], table[ref.TOY_INDEX[b]])


WORKED = [
    Worked("cos((1, 2, 2), (2, 4, 4))", COSINE, COS_122_244, lambda ref: ref.cosine_similarity(A_122, B_244),
           tol=1e-12),
    Worked("king~queen before training", MODEL_1, 0.577,
           lambda ref: _similarity(ref, _toy(ref)["start"], "king", "queen"), tol=0.0005),
    Worked("king~banana before training", MODEL_1, -0.487,
           lambda ref: _similarity(ref, _toy(ref)["start"], "king", "banana"), tol=0.0005),
    Worked("king~queen after training", MODEL_1, 0.988,
           lambda ref: _similarity(ref, _toy(ref)["table"], "king", "queen"), tol=0.0005),
    Worked("king~banana after training", MODEL_1, -0.458,
           lambda ref: _similarity(ref, _toy(ref)["table"], "king", "banana"), tol=0.0005),
]


# -- figures worked by hand that the fixed cases compare with (cases.py) --
# Worked by hand: rows (1,2,2), (0,0,1) against (2,4,4), (3,0,0), (0,-2,0).
# |(1,2,2)| = 3, |(2,4,4)| = 6, so the cosines are 18/18, 3/9, -4/6 and 4/6, 0, 0.
GRID_A = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 1.0]])
GRID_B = np.array([[2.0, 4.0, 4.0], [3.0, 0.0, 0.0], [0.0, -2.0, 0.0]])
GRID_COS = [[1.0, 0.333333, -0.666667], [0.666667, 0.0, 0.0]]

# Worked by hand: query (1,2,2) against four documents. The long document (3,0,0) beats
# (0,1,0) on the dot product (3 > 2) but not on the cosine (1/3 < 2/3).
SEARCH_Q = A_122
SEARCH_DOCS = np.array([[0.0, 1.0, 0.0], [2.0, 4.0, 4.0], [-1.0, -2.0, -2.0], [3.0, 0.0, 0.0]])
SEARCH_COS = [0.666667, 1.0, -1.0, 0.333333]
SEARCH_TOP2 = [1, 0]

# Worked by hand, exact in floating point (every length is 2, 4, 3 or 10): query (1,1,1,1).
# Documents 1, 3, 5 point exactly along the query (cos 1), documents 2 and 4 score 3/6 = 0.5,
# documents 0 and 6 are perpendicular to it (cos 0).
TIE_Q = np.array([1.0, 1.0, 1.0, 1.0])
TIE_DOCS = np.array([[1.0, 1.0, -1.0, -1.0], [2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 3.0],
                     [1.0, 1.0, 1.0, 1.0], [3.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0],
                     [0.0, 2.0, -2.0, 0.0]])
TIE_COS = [0.0, 1.0, 0.5, 1.0, 0.5, 1.0, 0.0]
TIE_ORDER = [1, 3, 5, 2, 4, 0, 6]

# Worked by hand: k larger than the number of documents. Query (1,0).
# (1,1): 1/sqrt 2; (0,2): 0; (3,0): 1; (-2,1): -2/sqrt 5.
BIG_K_Q = np.array([1.0, 0.0])
BIG_K_DOCS = np.array([[1.0, 1.0], [0.0, 2.0], [3.0, 0.0], [-2.0, 1.0]])
BIG_K_COS = [0.707107, 0.0, 1.0, -0.894427]
BIG_K_ORDER = [2, 0, 1, 3]
