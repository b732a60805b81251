"""Realistic mistakes in the sampling exercise: the ones the course text names."""
from autograder.demo.mistakes import Mistake

E = "sampling"

MISTAKES = [
    Mistake(E, "mean_vector", "wrong_axis", '''
def mean_vector(X):
    return np.asarray(X, dtype=float).mean(axis=1)    # each token's mean, not each column's
''', failing=('mean_vector: the mean of "the cat"', "mean_vector: random cases"),
        feedback="average each token's entries instead of each column"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/test_visible.py hands each in to the released notebook).
NAMED = {
    "wrong_axis": "average each token's entries instead of each column",
}

# Who hands in which of these in the demo class (autograder.demo.students), e.g. {"cy": ["wrong_axis"]}.
DEMO = {}
