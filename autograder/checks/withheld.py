"""Which failing checks may show their expected value to the student.

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
from autograder.checks.sameness import same_value


@functools.lru_cache(maxsize=None)
def _worked(exercise) -> tuple:
    """``(worked values, reference module)`` of ``exercise`` (``core/worked.py``);
    ``((), None)`` when it has none or they cannot load (then every fixed check withholds its
    expected value)."""
    try:
        from autograder.core.worked import reference, worked_values
        return tuple(worked_values(exercise)), reference(exercise)
    except Exception:
        return (), None


_COMPUTED: dict = {}  # id of a Worked (they live as long as their module) -> (value,) or None


def _computed(w, ref):
    """``(value,)``: the reference's value of the worked value ``w``, computed once per
    process (``None`` when it fails). Some cost seconds (learned_attention trains its model
    1,000 steps for its losses)."""
    if id(w) not in _COMPUTED:
        try:
            _COMPUTED[id(w)] = (w.value(ref),)
        except Exception:
            _COMPUTED[id(w)] = None
    return _COMPUTED[id(w)]


def _could_be(expected, w) -> bool:
    """Whether ``expected`` may match ``w``'s computed value, judged from its printed figure:
    the computed value agrees with the printed one to ``w.tol`` (``tests/course/test_worked.py``),
    so a value farther than ``w.tol + WORKED_ATOL`` from the printed figure, or of another
    shape, cannot match it. An erratum's printed figure says nothing of the value."""
    if w.erratum:
        return True
    try:
        x, y = np.asarray(expected), np.asarray(w.printed)
        if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=0.0, atol=w.tol + WORKED_ATOL + 1e-9))
    except Exception:
        pass
    return True


def _worked_answers(exercise, expected=None) -> list:
    """The worked values of ``exercise`` that ``expected`` could equal: each as the text
    prints it and as the reference computes it; a value is computed only when its printed
    figure is near ``expected`` (``_could_be``), so a failing fixed check does not pay for
    training runs it cannot match."""
    values, ref = _worked(exercise)
    found = []
    for w in values:
        found.append(w.printed)
        if _could_be(expected, w):
            value = _computed(w, ref)
            if value is not None:
                found.append(value[0])
    return found


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
    return exercise is not None and any(_alike(expected, v) for v in _worked_answers(exercise, expected))


def withholds(item, exc, exercise) -> bool:
    """Whether the failing check ``item`` (a pytest item) must not show ``exc``'s expected
    value: ``exc`` is a ``Mismatch`` that has a version without it, the check takes no ``rng``
    (its inputs are fixed), and the expected value is no worked value of ``exercise``."""
    if not isinstance(exc, Mismatch) or exc.without_expected is None:
        return False
    if "rng" in getattr(item, "fixturenames", ()):
        return False
    return not is_worked(exc.expected, exercise)
