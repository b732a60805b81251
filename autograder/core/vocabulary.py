"""The words every stage shares: what a grade is made of, passed from the checks up to the reports.

* ``Problem``: a kind of problem the grader reports to the instructor (the ``problems`` column of
  ``grades.csv``), recorded where it happens rather than guessed from feedback text. A
  ``CheckResult`` carries the problems of its check (the student's function timed out, crashed,
  answered too much ...), a ``NotebookResult`` those of the whole notebook (not a valid notebook,
  its worker died, the grader failed ...).
* ``CheckResult``: the outcome of one hidden check.
* ``NotebookResult``: the grade of one notebook of one student.
* ``Job``: one notebook to grade (``grading/discover.py`` finds them).

This module imports nothing of the grader: every package may import it, and it is the reason no
two packages need to import each other (``tests/project/test_package_order.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Optional

from autograder.core import safetext


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
    """The problems (a ``frozenset`` of ``Problem``) a ``sandbox.limits.StudentCodeError`` stands for."""
    found = _BY_KIND.get(getattr(exc, "kind", None))
    return frozenset([found]) if found else frozenset()


def column(problems) -> str:
    """``grades.csv`` text for a collection of ``Problem``: distinct, in declaration order."""
    present = set(problems)
    return "; ".join(p.value for p in Problem if p in present)


@dataclass
class CheckResult:
    """Outcome of one check.

    Attributes:
        function: the student-facing name it checks.
        name: ``"function: description"``, as shown to the student.
        score: points earned (float); max_score: points available (float).
        output: feedback for the student ("" when passed).
        problems: ``frozenset`` of ``Problem`` (a timeout, a crash, a grader error ...).
        grader_trace: the traceback of a grader error, for the instructor's log ("" otherwise).
        details: for a failed comparison, ``{"what", "expected", "got", "mistakes"}``
            (``checks.api.Mismatch.details``), for reports that show values; else None.
    """
    function: str
    name: str
    score: float
    max_score: float
    output: str
    problems: frozenset = field(default_factory=frozenset)
    grader_trace: str = ""
    details: Optional[dict] = None


@dataclass
class NotebookResult:
    """The grade of one notebook of one student.

    Attributes:
        student_id, assignment_id: who and what (``str``).
        notebook: the notebook's file name.
        checks: list of ``CheckResult``.
        notes: messages about the whole notebook (cells that raised, a start-up failure).
        seconds: wall-clock time spent grading it.
        problems: ``set`` of ``Problem`` of the whole notebook (see ``all_problems``).
        grader_log: tracebacks of grader errors, for the instructor's log (never shown to students).
        confinement: how its code ran: "bubblewrap+seccomp (a sandbox uid of its own)",
            "bubblewrap+seccomp (the grading user's uid)", "unconfined", or "not run"
            (``sandbox/bubblewrap.py``).
    """
    student_id: str
    assignment_id: str
    notebook: str
    checks: list
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    problems: set = field(default_factory=set)
    grader_log: list = field(default_factory=list)
    confinement: str = "not run"

    @property
    def all_problems(self):
        """The notebook's problems and those of its checks (a ``set`` of ``Problem``)."""
        found = set(self.problems)
        for c in self.checks:
            found |= set(c.problems)
        return found

    @property
    def score(self):
        return sum(c.score for c in self.checks)

    @property
    def max_score(self):
        return sum(c.max_score for c in self.checks)


@dataclass(frozen=True, slots=True)
class Job:
    """One notebook to grade, or several that hand in the same exercise.

    Attributes:
        path: the notebook graded (the first candidate).
        student_id, exercise: whose and which (``exercise`` is ``None`` when it cannot be told).
        problem: why it cannot be graded, when it cannot.
        alternatives: other notebooks of the same student for the same exercise (copies such
            as ``tokens (1).ipynb`` beside ``tokens.ipynb``): each is graded and the best
            counts; the others are named in the feedback (``grading/class_run.py``).

    Slotted (no ``__dict__``): a class run holds one a notebook until its last file is written.
    """
    path: Path
    student_id: str
    exercise: object  # a registry.Exercise, or None when it cannot be told
    problem: str = ""
    alternatives: tuple = ()


def graded_path(job: Job, result: NotebookResult) -> Path:
    """The notebook of ``job`` whose grade counted (the one ``result.notebook`` names), else ``job.path``."""
    for p in (job.path, *job.alternatives):
        if safetext.display_name(p.name) == result.notebook:
            return Path(p)
    return Path(job.path)
