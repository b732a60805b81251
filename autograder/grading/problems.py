"""Kinds of problems the grader reports to the instructor (the ``problems`` column of
``grades.csv``), recorded where they happen rather than guessed from feedback text.

A ``plugin.CheckResult`` carries the problems of its check (the student's function timed
out, crashed, answered too much ...), a ``grade.NotebookResult`` those of the whole notebook
(not a valid notebook, its worker died, the grader failed ...).
"""
from __future__ import annotations

from enum import Enum


class Problem(str, Enum):
    """One kind of problem; its value is the text shown in ``grades.csv``."""
    INVALID_NOTEBOOK = "invalid notebook"
    UNKNOWN_EXERCISE = "unknown exercise"
    NOT_STARTED = "could not start"
    TIMEOUT = "timeout"
    CRASH = "crashed"
    TIME_BUDGET = "time budget used up"
    TOO_LARGE = "answer too large"
    WORKER_KILLED = "killed its grading worker"
    GRADER_ERROR = "grader error"
    UNCONFINED = "unconfined"
    SEVERAL_NOTEBOOKS = "several notebooks"
    IDENTICAL = "identical to another student's (see identical.csv; not graded down)"

    def __str__(self):
        return self.value


# StudentCodeError.kind -> the problem it is (kinds not listed are ordinary wrong answers).
_BY_KIND = {"timeout": Problem.TIMEOUT, "crashed": Problem.CRASH, "time budget": Problem.TIME_BUDGET,
            "too large": Problem.TOO_LARGE}


def of_student_error(exc):
    """The problems (a ``frozenset`` of ``Problem``) a ``limits.StudentCodeError`` stands for."""
    found = _BY_KIND.get(getattr(exc, "kind", None))
    return frozenset([found]) if found else frozenset()


def column(problems) -> str:
    """``grades.csv`` text for a collection of ``Problem``: distinct, in declaration order."""
    present = set(problems)
    return "; ".join(p.value for p in Problem if p in present)
