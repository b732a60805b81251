"""Worked values of the "attention" exercise: one attention row ("the cat") and the full grid
("river bank loan").

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/attention.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, Source, Worked

PROJECT = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Project Each Token into a Query, a Key, and a Value")
ROW = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Attention Scores, Softmax, and the Context Vector")
GRID = Source(FOUNDATIONS, "Going Deeper: The Full QK^T Matrix, By Hand")

# "the cat": inputs (embedding + position stamp) and the three projections.
X_THE_CAT = np.array([[1.0, 0.0], [1.0, 1.0]])
W_Q = np.array([[0.0, 1.0], [1.0, 0.0]])
W_K = np.array([[1.0, 1.0], [0.0, 1.0]])
W_V = np.array([[0.0, 1.0], [1.0, 0.0]])
# "river bank loan": queries, keys and values as the text gives them.
Q_RBL = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
K_RBL = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V_RBL = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])


def _cat_row(ref):
    Q, K, V = ref.project_qkv(X_THE_CAT, W_Q, W_K, W_V)
    return ref.attention_row(Q[1], K, V)


def _grid(ref):
    return ref.attention_matrix(Q_RBL, K_RBL, V_RBL)


WORKED = [
    Worked('keys of "the" and "cat"', PROJECT, [[1, 1], [1, 2]],
           lambda ref: ref.project_qkv(X_THE_CAT, W_Q, W_K, W_V)[1]),
    Worked('raw scores of "cat" (k . q)', ROW, [2, 3], lambda ref: _cat_row(ref)[0]),
    Worked('attention weights of "cat"', ROW, [0.3302, 0.6698], lambda ref: _cat_row(ref)[1], tol=5e-5),
    Worked('context vector of "cat"', ROW, [0.6698, 1.0], lambda ref: _cat_row(ref)[2], tol=5e-5),
    Worked("raw scores Q K^T", GRID, [[1, 0, 1], [1, 1, 2], [1, 1, 2]], lambda ref: _grid(ref)[0]),
    Worked('weights of the "river" row', GRID, [0.40, 0.20, 0.40], lambda ref: _grid(ref)[1][0], tol=0.005),
    Worked('weights of the "bank" row', GRID, [0.25, 0.25, 0.50], lambda ref: _grid(ref)[1][1], tol=0.005),
    Worked('output of the "river" row', GRID, [0.80, 1.20], lambda ref: _grid(ref)[2][0], tol=0.005),
    Worked('output of the "bank" row', GRID, [0.74, 1.26], lambda ref: _grid(ref)[2][1], tol=0.005),
]


# -- figures the fixed cases and the checks compare with (cases.py, checks.py) --
Q_THE_CAT = np.array([[0.0, 1.0], [1.0, 1.0]])
K_THE_CAT = np.array([[1.0, 1.0], [1.0, 2.0]])
V_THE_CAT = np.array([[0.0, 1.0], [1.0, 1.0]])
CAT_SCORES = [2.0, 3.0]
CAT_SCALED = [1.414214, 2.121320]
CAT_WEIGHTS = [0.330238, 0.669762]
# softmax of two scores one apart, e.g. [2, 3] unscaled or [1000, 1001]: 1 / (1 + e) and e / (1 + e)
ONE_APART = [0.268941, 0.731059]
CAT_WEIGHTS_UNSCALED = ONE_APART
CAT_CONTEXT = [0.669762, 1.0]
RBL_SCORES = [[1, 0, 1], [1, 1, 2], [1, 1, 2]]
RBL_WEIGHTS = [[0.401112, 0.197776, 0.401112],
               [0.248255, 0.248255, 0.503490],
               [0.248255, 0.248255, 0.503490]]
RBL_OUTPUT = [[0.796664, 1.203336], [0.744765, 1.255235], [0.744765, 1.255235]]
RBL_CAUSAL_WEIGHTS = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], RBL_WEIGHTS[2]]
