"""What a check file uses: the ``check`` decorator, value comparison and named mistakes.

A check is a function ``check_*`` in ``exercises/<exercise>/checks.py``, run by
pytest. It receives the student's functions by name as fixtures (``attention_row``),
plus ``rng`` (a per-student seeded ``numpy.random.Generator``) and ``submission``. It
compares what the student's code returns with a value the course text prints (the
exercise's ``worked.py``) or with the reference solution, and on a mismatch raises ``Mismatch`` whose text is the
feedback the student reads. Feedback never shows a check's source.

Example::

    @check("attention_row", 'weights for "the cat"', points=1)
    def check_weights_the_cat(attention_row):
        scores, weights, context = attention_row(Q_CAT, K, V)
        expect_close(weights, [0.330238, 0.669762], what="weights",
                     mistakes={"forgot the sqrt(d_k) scaling": [0.268941, 0.731059]})
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder.checks.meta import CheckMeta
from autograder.checks.values import like_mistake, plain, show, show_pair
from autograder.child import wire

WORKED_ATOL = 1e-4  # worked numbers are checked to 1e-4 absolute


def check(function: str, description: str, points: float = 1.0):
    """Decorator that marks a ``check_*`` function as a graded check (see module docstring)."""
    meta = CheckMeta(function, description, float(points))

    def decorate(fn):
        fn.check_meta = meta
        return pytest.mark.check(meta=meta)(fn)
    return decorate


class Mismatch(AssertionError):
    """A check failed; ``str(exc)`` is the feedback for the student.

    Attributes (None when the check did not compare two values):
        what: the label of the compared value, e.g. 'attention weights of "cat"'.
        expected: the right value; got: the student's value (plain data: numbers, lists,
            arrays, strings, tuples).
        mistakes: names of the known mistakes ``got`` matches (list, possibly empty).
    """

    def __init__(self, message, *, what=None, expected=None, got=None, mistakes=None, without_expected=None):
        super().__init__(message)
        self.what, self.expected, self.got, self.mistakes = what, expected, got, list(mistakes or [])
        # the same feedback without the right value, for a fixed check that must not teach it
        # (``checks/withheld.py``); None: the message shows no expected value of its own
        self.without_expected = without_expected

    @property
    def details(self):
        """``{"what", "expected", "got", "mistakes"}`` for reports, or None without values."""
        if self.what is None:
            return None
        return {"what": self.what, "expected": _small(self.expected), "got": _small(self.got),
                "mistakes": self.mistakes}


class Excused(Mismatch):
    """A check's failure that the check itself found explained by a helper of the function
    (``excuse``): the check keeps its points and says so, as when the grader's own replay
    (``checks/helpers.judge_excuse``) excuses it. For failures that replay cannot judge
    (sampling: draws that depend on earlier calls). ``str(exc)``: the failure's feedback;
    ``because``: the excuse's."""

    because: str = ""


def excuse(helper: str, why: str, failure: Mismatch):
    """Pass the current check on account of the student's ``helper``: ``why`` says how the
    helper explains ``failure`` (the ``Mismatch`` the check raised)."""
    exc = Excused(str(failure))
    exc.because = f"passed on account of {helper}: {why}"
    raise exc from None


def _small(value, limit=4096):
    """``value``, or its short text when it is too large to carry into reports."""
    size = value.size if isinstance(value, np.ndarray) else len(value) if isinstance(value, (list, tuple)) else 0
    return fmt(value) if size > limit else value


def fmt(value, limit: int = 300) -> str:
    """Short, readable text for a value in feedback: ``values.show`` (plain numbers to
    6 significant digits, never a numpy repr).

    A text longer than ``limit`` characters keeps its start and its end, joined by " ... ",
    so the feedback around it (the named mistake above all) is never what gets cut.
    """
    if isinstance(value, wire.Opaque):
        return repr(value)
    return show(value, limit=limit)


def expected_got(expected, got, limit: int = 300) -> str:
    """``"expected E, got G"`` with both at one precision that tells them apart, and the
    difference when they would print alike (``values.show_pair``)."""
    if isinstance(got, wire.Opaque):
        return f"expected {fmt(expected, limit)}, got {got!r}"
    want, have, note = show_pair(expected, got, limit)
    return f"expected {want}, got {have}" + (f" ({note})" if note else "")


def returned(got, limit: int = 300) -> str:
    """``"your code returned G, which is not the right value"``: feedback that shows the
    student's value but not the expected one (``checks/withheld.py``)."""
    have = repr(got) if isinstance(got, wire.Opaque) else fmt(got, limit)
    return f"your code returned {have}, which is not the right value"


def as_array(got, what: str):
    """``got`` as a float64 array, or ``Mismatch`` explaining why it is not one."""
    if isinstance(got, wire.Opaque):
        raise Mismatch(f"{what}: expected numbers, got {got!r}")
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise Mismatch(f"{what}: expected numbers, got {fmt(got)}") from None
    return arr


def _close(a, b, atol, rtol):
    return a.shape == b.shape and bool(np.all(np.isfinite(a) == np.isfinite(b))) and \
        bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))


def expect_close(got, expected, *, what, mistakes=None, atol=WORKED_ATOL, rtol=0.0) -> None:
    """Check that ``got`` equals ``expected`` within ``atol`` (+ ``rtol`` * |expected|).

    Args:
        got: the student's value (number or array-like).
        expected: the right value (number or array-like).
        what: a short label for feedback, e.g. 'weights for "the cat"'.
        mistakes: optional ``{name of the misconception: the value it produces}``; when
            ``got`` matches one (``values.like_mistake``: whatever masking constant, container
            or dtype; a ``numpy.ma`` value leaves its masked entries free), the feedback names it.
        atol, rtol: tolerances (absolute, relative).
    Raises:
        Mismatch: with expected value, returned value, and the named mistake if any.
    """
    given, expected = expected, np.asarray(expected, dtype=float)
    arr = as_array(got, what)
    if _close(arr, expected, atol, rtol):
        return
    shown = expected_got(given, got)  # as the student wrote it: a tuple stays a tuple, an int an int
    matched = [name for name, wrong in (mistakes or {}).items()
               if wrong is not None and like_mistake(arr, wrong, atol, rtol)]  # by behaviour (values.py)
    values = {"what": what, "expected": given, "got": got, "mistakes": matched}
    if matched:
        named = (f"That is the value you get when you {' (or when you '.join(matched)}"
                 f"{')' * (len(matched) - 1)}.")
        raise Mismatch(f"{what}: {shown}. {named}", without_expected=f"{what}: {returned(got)}. {named}", **values)
    hint = ""
    if arr.shape != expected.shape:
        if arr.shape == expected.T.shape and expected.ndim == 2 and \
                np.allclose(arr, expected.T, atol=atol, rtol=rtol):
            hint = " It is the transpose of the right answer."
        else:
            hint = f" Expected shape {expected.shape}, got shape {arr.shape}."
    elif not np.all(np.isfinite(arr)):
        hint = " It contains nan or inf (an overflow, or a division by zero?)."
    raise Mismatch(f"{what}: {shown}.{hint}", without_expected=f"{what}: {returned(got)}.{hint}", **values)


def expect_equal(got, expected, *, what, mistakes=None, normalize=None) -> None:
    """Check exact equality (tokens, merges, counts), naming a known mistake if matched.

    Args:
        got, expected: the student's and the right value.
        what: a short label for feedback.
        mistakes: optional ``{name of the misconception: the value it produces}``.
        normalize: optional function applied to ``got`` (and to mistake values) before
            comparing, e.g. to accept lists where tuples are asked.
    Raises:
        Mismatch: with both values and the named mistake if any.
    """
    norm = normalize or (lambda v: v)
    try:
        value = norm(got)
    except Exception:
        raise Mismatch(f"{what}: expected {fmt(expected)}, got {fmt(got)}",
                       without_expected=f"{what}: {returned(got)}") from None
    if value == expected:
        return
    matched = [name for name, wrong in (mistakes or {}).items() if wrong is not None and _same_data(value, norm(wrong))]
    values = {"what": what, "expected": expected, "got": value, "mistakes": matched}
    if matched:
        named = (f"That is what you get when you {' (or when you '.join(matched)}"
                 f"{')' * (len(matched) - 1)}.")
        raise Mismatch(f"{what}: {expected_got(expected, got)}. {named}",
                       without_expected=f"{what}: {returned(got)}. {named}", **values)
    raise Mismatch(f"{what}: {expected_got(expected, got)}", without_expected=f"{what}: {returned(got)}",
                   **values)


def _same_data(a, b) -> bool:
    """Equal as data, whatever the containers: a tuple, a list and an array of the same items
    alike, numpy scalars as Python numbers (a mistake is recognised by what it returns)."""

    try:
        return bool(plain(a) == plain(b))
    except (TypeError, ValueError):
        return False


def fail(message: str, *, without_expected: str | None = None, expected=None, what: str | None = None,
         got=None):
    """Fail the current check with ``message`` as the feedback.

    A message that shows the right value must also give ``without_expected``, the same
    feedback without it (the mistake named, the student's value shown), and ``expected``, the
    right value: a failing check with fixed inputs shows ``without_expected`` instead, unless
    ``expected`` is one of the exercise's worked values (``checks/withheld.py``). ``what`` and
    ``got`` label the values for the instructor's records (``Mismatch.details``), where the
    right value is kept. ``tests/checks/test_withheld_fail_messages.py`` reads every check file
    for a ``fail`` that shows an expected value without these.
    """
    raise Mismatch(message, what=what, expected=expected, got=got, without_expected=without_expected)
