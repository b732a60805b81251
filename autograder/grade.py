"""Grade one notebook: read it, start its code in a child process, run the hidden checks.

``grade_notebook`` never raises for anything a submission does: an unreadable file,
code that crashes, hangs, floods its output or exhausts memory all end as a
``NotebookResult`` whose checks carry 0 points and a message saying why.
"""
import time
from pathlib import Path
from dataclasses import dataclass, field

from . import plugin
from .checking import CheckMeta
from .notebook_code import InvalidNotebook, read_code_cells
from .sandbox import ChildSubmission, Limits, StudentCodeError


@dataclass
class NotebookResult:
    """The grade of one notebook of one student.

    Attributes:
        student_id, assignment_id: who and what (``str``).
        notebook: the notebook's file name.
        checks: list of ``plugin.CheckResult``.
        notes: messages about the whole notebook (cells that raised, a start-up failure).
        seconds: wall-clock time spent grading it.
    """
    student_id: str
    assignment_id: str
    notebook: str
    checks: list
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def score(self):
        return sum(c.score for c in self.checks)

    @property
    def max_score(self):
        return sum(c.max_score for c in self.checks)


class BrokenSubmission:
    """Stands in for a submission that cannot run: every call fails with ``reason``."""

    def __init__(self, reason):
        self.reason = reason

    def _fail(self, name):
        raise StudentCodeError("not run", name, self.reason)

    def function(self, name):
        return lambda *a, **k: self._fail(name)

    def new(self, name, *a, **k):
        self._fail(name)

    def call_keeping_args(self, name, *a, **k):
        self._fail(name)

    def probe(self, name, *a):
        self._fail(name)


def startup_notes(report):
    """Feedback lines for cells that raised or timed out while the notebook started."""
    notes = []
    errors = report.get("errors", [])
    unfinished = any(e["type"] == "NotImplementedError" for e in errors)
    for err in errors:
        if err["type"] == "NotImplementedError" or (unfinished and err["type"] == "NameError"):
            continue  # an unfinished stub (and what it left undefined); its checks say so
        where = err.get("where") or f"cell {err.get('cell')}"
        notes.append(f"{where}: {err['type']}: {err['message']}".rstrip(": "))
    return notes


def grade_notebook(path, exercise, student_id, secret, limits=None):
    """Grade the notebook at ``path`` as a submission of ``exercise``.

    Args:
        path: the .ipynb file.
        exercise: an ``exercises.Exercise``.
        student_id: the student's id (``str``), for seeds and reports.
        secret: the course secret (``bytes``), for the randomized cases.
        limits: ``sandbox.Limits`` (time, memory, output limits).
    Returns:
        ``NotebookResult``.
    Raises:
        plugin.GraderError: only when the grader's own checks are broken.
    """
    t0 = time.perf_counter()
    notes = []
    submission = None
    try:
        try:
            cells = read_code_cells(path)
            submission = ChildSubmission(cells, limits or Limits())
            notes += startup_notes(submission.ensure_started())
            target = submission
        except InvalidNotebook as exc:
            notes.append(str(exc))
            target = BrokenSubmission(str(exc))
        except StudentCodeError as exc:
            notes.append(f"your notebook could not be run: {exc.detail}")
            target = BrokenSubmission(f"your notebook could not be run ({exc.detail})")
        checks = plugin.run_checks(exercise, target, student_id, secret)
    finally:
        if submission is not None:
            submission.close()
    return NotebookResult(student_id, exercise.assignment, Path(path).name, checks, notes,
                          time.perf_counter() - t0)


def check_metas(exercise):
    """The ``CheckMeta`` of every check of ``exercise``, in file order.

    Read from the ``@check(...)`` decorators without importing the check file, so it
    works before the reference solutions are generated (``build.py`` needs the points).

    Raises:
        ValueError: a ``@check`` whose arguments are not literals.
    """
    import ast
    tree = ast.parse(exercise.checks_file.read_text(encoding="utf-8"))
    metas = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("check_")):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "check":
                try:
                    args = [ast.literal_eval(a) for a in deco.args]
                    kwargs = {k.arg: ast.literal_eval(k.value) for k in deco.keywords}
                except ValueError:
                    raise ValueError(f"{exercise.checks_file.name}: @check of {node.name} "
                                     "must use literal arguments") from None
                fn, desc = args[:2]
                points = args[2] if len(args) > 2 else kwargs.get("points", 1.0)
                metas.append(CheckMeta(fn, desc, float(points)))
    return metas


def points_by_function(exercise):
    """``{function: total points}`` of ``exercise``'s checks."""
    totals = {}
    for meta in check_metas(exercise):
        totals[meta.function] = totals.get(meta.function, 0.0) + meta.points
    return totals
