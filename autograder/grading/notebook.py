"""Grade one notebook (``grade_notebook``), as the list of stages ``STAGES`` names; a class is
``class_run.py``.

``grade_notebook`` never raises for anything a submission does: an unreadable file,
code that crashes, hangs, floods its output or exhausts memory all end as a
``NotebookResult`` whose checks carry 0 points and a message saying why.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from autograder.checks import plugin
from autograder.core import safetext
from autograder.core.vocabulary import NotebookResult, Problem
from autograder.sandbox import one_submission
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.submission import digest as code_digest
from autograder.submission.notebook import InvalidNotebook, read_notebook
from autograder.submission.remote import ChildSubmission


class BrokenSubmission:
    """Stands in for a submission that cannot run: every call fails with ``reason``
    (implements ``submission.Submission``)."""

    def __init__(self, reason):
        self.reason = reason

    def ensure_started(self):
        return {"defined": [], "errors": []}

    def close(self):
        pass

    def counted_weights(self, values):
        self._fail("weights")

    def _fail(self, name):
        raise StudentCodeError("not run", name, self.reason)

    def function(self, name):
        return lambda *a, **k: self._fail(name)

    def new(self, name, *a, **k):
        self._fail(name)

    def call_keeping_args(self, name, *a, **k):
        self._fail(name)

    def repeat(self, name, times, args=(), kwargs=None, accept=None, vary=None):
        self._fail(name)

    def probe_each(self, name, arg_lists):
        self._fail(name)

    def probe(self, name, *a):
        self._fail(name)


MAX_STARTUP_NOTES = 20


def _scratch_full(limits):
    limits = limits or Limits()
    return (f" (the notebook's writable folder /tmp is full: it holds at most {limits.scratch_inodes} files "
            f"and folders and {limits.scratch_bytes // 1024 ** 2} MB; the cell was stopped there)")


def startup_notes(report: dict, limits=None) -> list[str]:
    """Feedback lines for cells that raised or timed out while the notebook started
    (``limits``: the ``Limits`` graded under, named when a cell filled the scratch folder)."""
    notes = []
    errors = report.get("errors", [])
    unfinished = any(e["type"] == "NotImplementedError" for e in errors)
    for err in errors:
        if err["type"] == "NotImplementedError" or (unfinished and err["type"] == "NameError"):
            continue  # an unfinished stub (and what it left undefined); its checks say so
        if err["type"] == "VisibleCheckFailed":
            continue  # the visible checks' summary (or an older release's check cell); the hidden checks say why
        cell, where = err.get("cell"), err.get("where")
        cell = safetext.clean(cell if isinstance(cell, str) else f"cell {cell}", safetext.WHERE_CHARS)
        where = safetext.clean(where, safetext.WHERE_CHARS) if where else None
        kind = safetext.clean(err["type"], safetext.NAME_CHARS)
        message = safetext.clean(err.get("message") or "", safetext.MESSAGE_CHARS)
        line = f"{cell}: {kind}: {message}".rstrip(": ")
        if "[Errno 28]" in message or "[Errno 122]" in message:  # ENOSPC, EDQUOT: the scratch is full
            line += _scratch_full(limits)
        if where and where != cell and not where.startswith(cell + ","):
            line += f" (raised at {where})"
        notes.append(line)
    if len(notes) > MAX_STARTUP_NOTES:  # a notebook of 10,000 failing cells must not flood the report
        notes[MAX_STARTUP_NOTES:] = [f"... and {len(notes) - MAX_STARTUP_NOTES} more cells that raised"]
    return notes


def redefinition_notes(notebook, exercise) -> list[str]:
    """Feedback lines for functions defined again after their hidden-test cell."""
    notes = []
    for name, labels in notebook.later_definitions(exercise.functions).items():
        at = notebook.checkpoint_position(f"test_{name}")
        notes.append(f"{name} is defined again after its hidden-test cell (in {', '.join(labels)}); "
                     f"it was graded as it stood at cell {at}, where nbgrader checks it too")
    return notes


@dataclasses.dataclass
class Grading:
    """One notebook's grading in progress: what each stage of ``STAGES`` reads and adds to.

    Attributes:
        path, exercise, student_id, secret, limits, host: ``grade_notebook``'s arguments.
        notes: feedback lines (``str``) for the student. problems: ``Problem`` flags.
        notebook: the ``submission.notebook`` reading of the file (``None`` until read, or unreadable).
        digests: the code digests seeding the randomized cases (``submission.digest``).
        submission: the running ``ChildSubmission`` (``None`` when none was started).
        target: what the checks call: ``submission``, or a ``BrokenSubmission`` saying why it cannot run.
        checks: the ``CheckResult`` list.
    """
    path: Path
    exercise: object
    student_id: str
    secret: bytes
    limits: Limits
    host: object = None
    notes: list = dataclasses.field(default_factory=list)
    problems: set = dataclasses.field(default_factory=set)
    notebook: object = None
    digests: object = None
    submission: object = None
    target: object = None
    checks: list = dataclasses.field(default_factory=list)

    def cannot_run(self, exc: Exception) -> None:
        """The notebook is unreadable (``InvalidNotebook``) or its code cannot start (``StudentCodeError``):
        every check then fails through a ``BrokenSubmission`` saying why."""
        if isinstance(exc, InvalidNotebook):
            self.notes.append(safetext.clean(exc, safetext.MESSAGE_CHARS))
            self.problems.add(Problem.INVALID_NOTEBOOK)
            self.target = BrokenSubmission(safetext.clean(exc, safetext.MESSAGE_CHARS))
        else:
            detail = safetext.clean(exc.detail, safetext.MESSAGE_CHARS)
            self.notes.append(f"your notebook could not be run: {detail}")
            self.problems.add(Problem.NOT_STARTED)
            self.target = BrokenSubmission(f"your notebook could not be run ({detail})")


def read_submission(g: Grading) -> None:
    """Stage 1: read the notebook (read-only cells restored from the release), note functions defined
    again after their hidden-test cell, and take the code digests that seed the randomized cases."""
    try:
        release = g.exercise.release_notebook
        g.notebook = read_notebook(g.path, release if release.is_file() else None)
        g.notes += g.notebook.notes + redefinition_notes(g.notebook, g.exercise)
        g.digests = code_digest.digests_for_notebook(g.notebook, g.exercise)
    except (InvalidNotebook, StudentCodeError) as exc:
        g.cannot_run(exc)


def start_submission(g: Grading) -> None:
    """Stage 2: start the student's code in a confined child, up to the first hidden-test cell (the
    checks run the rest, ``checks/plugin.py``)."""
    if g.target is not None:
        return
    try:
        g.submission = ChildSubmission(g.notebook.cells, g.limits, host=g.host)
        g.submission.checkpoint = next(iter(g.submission.checkpoint_order), None)
        g.submission.ensure_started()
        g.target = g.submission
    except (InvalidNotebook, StudentCodeError) as exc:
        g.cannot_run(exc)


def run_hidden_checks(g: Grading) -> None:
    """Stage 3: the exercise's hidden checks, in one pytest run (``plugin.run_checks``)."""
    g.checks = plugin.run_checks(g.exercise, g.target, g.student_id, g.secret, code_digests=g.digests)


def startup_feedback(g: Grading) -> None:
    """Stage 4: what the notebook's own cells raised as it started (``startup_notes``)."""
    if g.target is g.submission and g.submission is not None and g.submission.startup is not None:
        g.notes += startup_notes(g.submission.startup, g.limits)


def flag_unconfined(g: Grading) -> None:
    """Stage 5: flag a submission that ran without confinement (``--unconfined``)."""
    if not g.limits.confine or getattr(g.submission, "confinement", "") == "unconfined":
        g.problems.add(Problem.UNCONFINED)


# One notebook's grading, in order (as nbgrader's autograde converter lists its preprocessors).
# Each stage takes the ``Grading`` and adds to it; ``grade_notebook`` runs them and closes the child.
STAGES = (read_submission, start_submission, run_hidden_checks, startup_feedback, flag_unconfined)


def grade_notebook(path, exercise, student_id: str, secret: bytes, limits: Limits | None = None,
                   host=None) -> NotebookResult:
    """Grade the notebook at ``path`` as a submission of ``exercise``: run ``STAGES`` in order.

    Args:
        path: the .ipynb file.
        exercise: a ``core.registry.Exercise``.
        student_id: the student's id (``str``), for seeds and reports.
        secret: the course secret (``bytes``), for the randomized cases.
        limits: ``sandbox.limits.Limits`` (time, memory, output limits).
        host: this student's ``warm.StudentSandbox`` (a warm start), or ``None``.
    Returns:
        ``NotebookResult``.
    Raises:
        results.GraderError: only when the grader's own checks are broken.
    """
    t0 = time.perf_counter()
    g = Grading(Path(path), exercise, student_id, secret, limits or Limits(), host)
    try:
        with one_submission.grading(student_id):  # the setuid level may refuse a second one
            for stage in STAGES:
                stage(g)
    finally:
        if g.submission is not None:
            g.submission.close()
    checks = g.checks
    return NotebookResult(safetext.display_name(student_id), exercise.assignment,
                          safetext.display_name(Path(path).name), checks, g.notes,
                          time.perf_counter() - t0, g.problems,
                          [c.grader_trace for c in checks if c.grader_trace],
                          g.submission.confinement if g.submission is not None else "not run")
