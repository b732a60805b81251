"""What one hidden check gives beside its ``core.vocabulary.CheckResult``: the feedback and problem flags
of the exception a check ended with (``feedback_for``, ``problems_for``), and ``GraderError`` for a defect
of the grader's own checks."""
from __future__ import annotations

from autograder.checks.api import Mismatch
from autograder.core import safetext
from autograder.core.vocabulary import Problem, of_student_error
from autograder.sandbox.limits import StudentCodeError


class GraderError(RuntimeError):
    """The checks themselves could not run (a defect in the grader, not in the submission)."""


GRADER_ERROR_FEEDBACK = ("grader error: this check could not run (a defect of the grader, not of your "
                         "code); your instructor has the details and will regrade it")


def feedback_for(exc: BaseException) -> str:
    """The student-facing text for an exception raised while a check ran (escaped, capped).

    A ``Mismatch`` or ``StudentCodeError`` speaks for itself; any other exception is taken
    as the student's value breaking an assumption of the check (wrong type, wrong length
    ...) unless ``run_checks`` finds that the reference solution breaks it too (then it is a
    grader error, see ``run_checks``).
    """
    if isinstance(exc, (Mismatch, StudentCodeError)):
        text = str(exc)
    elif isinstance(exc, MemoryError):
        text = "the value returned is too large for the grader to check"
    else:
        text = f"the value returned could not be checked ({type(exc).__name__}: {exc})"
    return safetext.clean(text, safetext.OUTPUT_CHARS, newlines=True)


def feedback_text(text: str) -> str:
    """``text`` as feedback: escaped and capped as ``feedback_for`` does."""
    return safetext.clean(text, safetext.OUTPUT_CHARS, newlines=True)


def problems_for(exc: BaseException):
    """The ``vocabulary.Problem`` set an exception raised in a check stands for."""
    if isinstance(exc, StudentCodeError):
        return of_student_error(exc)
    if isinstance(exc, MemoryError):
        return frozenset([Problem.TOO_LARGE])
    return frozenset()
