"""Hidden checks of the "sampling" exercise (see ``autograder.checking``).

The worked case is the course's "the cat" inputs (``worked.py``); randomized cases are
compared with the reference solution (``solutions/sampling.py``). The known mistake is computed
by a small wrong variant below, so the feedback can name it when a student's value matches.
"""
import numpy as np

from autograder.checking import check, expect_close
from autograder.visible import Visible
from solutions import sampling as ref

from .worked import X_THE_CAT

MEAN_THE_CAT = [1.0, 0.5]
WRONG_AXIS = "average each token's entries instead of each column"


def _wrong_axis(X):
    return np.asarray(X, dtype=float).mean(axis=1)


@check("mean_vector", 'the mean of "the cat"', points=1)
def check_the_cat(mean_vector):
    expect_close(mean_vector(X_THE_CAT), MEAN_THE_CAT, what="mean vector",
                 mistakes={WRONG_AXIS: _wrong_axis(X_THE_CAT)})


@check("mean_vector", "random cases", points=1)
def check_random(mean_vector, rng):
    X = rng.normal(size=(5, 3))
    expect_close(mean_vector(X), ref.mean_vector(X), what="mean vector",
                 mistakes={WRONG_AXIS: _wrong_axis(X)})


VISIBLE = [
    Visible("mean_vector", 'the mean of "the cat"', "mean_vector({X})", inputs={"X": X_THE_CAT},
            expected=MEAN_THE_CAT, mistakes={WRONG_AXIS: _wrong_axis(X_THE_CAT)}),
]
