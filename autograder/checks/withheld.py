"""Which failing checks may show their expected value to the student (issue 29, item 8).

A randomized check draws its cases per submission (``checks/seeds.py``), so the expected value
it shows answers a case the next submission will not meet. A check with fixed inputs meets every
submission of every student with the same case: showing its expected value would let a student
paste it into a table and pass on resubmission. So a failing fixed check names the mistake and
shows what the student's code returned, but not the right value (``Mismatch.without_expected``),
unless that value is one of the exercise's worked examples (``exercises/<name>/worked.py``),
which the notebook and the course text print anyway. The expected value stays in the check's
``details`` (marked ``withheld``) for the instructor's records (the resume store); the student's
feedback, console table, report.html and results.json never show it.
"""
from __future__ import annotations

import functools

import numpy as np

from autograder.checks.api import WORKED_ATOL, Mismatch
from autograder.checks.helpers import same_value


@functools.lru_cache(maxsize=None)
def _worked_answers(exercise) -> tuple:
    """The worked values of ``exercise``: each as the text prints it and as the reference
    computes it (``course/worked.py``); ``()`` when the exercise has none or they cannot load
    (then every fixed check withholds its expected value)."""
    try:
        from autograder.course.worked import reference, worked_values
        ref = reference(exercise)
        found = []
        for w in worked_values(exercise):
            found.append(w.printed)
            try:
                found.append(w.value(ref))
            except Exception:
                pass
        return tuple(found)
    except Exception:
        return ()


def _alike(a, b) -> bool:
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=0.0, atol=WORKED_ATOL))
    except Exception:
        pass
    return same_value(a, b)


def is_worked(expected, exercise) -> bool:
    """Whether ``expected`` is one of ``exercise``'s worked values (numbers to ``WORKED_ATOL``;
    lists and tuples alike)."""
    return exercise is not None and any(_alike(expected, v) for v in _worked_answers(exercise))


def withholds(item, exc, exercise) -> bool:
    """Whether the failing check ``item`` (a pytest item) must not show ``exc``'s expected
    value: ``exc`` is a ``Mismatch`` that has a version without it, the check takes no ``rng``
    (its inputs are fixed), and the expected value is no worked value of ``exercise``."""
    if not isinstance(exc, Mismatch) or exc.without_expected is None:
        return False
    if "rng" in getattr(item, "fixturenames", ()):
        return False
    return not is_worked(exc.expected, exercise)
