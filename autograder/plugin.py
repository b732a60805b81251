"""Run an exercise's hidden checks with pytest against one submission, and collect points.

``run_checks(exercise, submission, student_id, secret)`` calls ``pytest.main`` on
``autograder/checks/check_<exercise>.py`` with ``GradingPlugin``, which supplies the
``submission``, ``student_id`` and ``rng`` fixtures and records, for every check, the
points earned and the feedback text (never a traceback or the check's source).
"""
import traceback
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pytest

from . import safetext
from .checking import Mismatch
from .exercises import CHECKS_DIR
from .problems import Problem, of_student_error
from .sandbox import StudentCodeError
from .seeds import case_seed


@dataclass
class CheckResult:
    """Outcome of one check.

    Attributes:
        function: the student-facing name it checks.
        name: ``"function: description"``, as shown to the student.
        score: points earned (float); max_score: points available (float).
        output: feedback for the student ("" when passed).
        problems: ``frozenset`` of ``problems.Problem`` (a timeout, a crash, a grader error ...).
        grader_trace: the traceback of a grader error, for the instructor's log ("" otherwise).
        details: for a failed comparison, ``{"what", "expected", "got", "mistakes"}``
            (``checking.Mismatch.details``), for reports that show values; else None.
    """
    function: str
    name: str
    score: float
    max_score: float
    output: str
    problems: frozenset = field(default_factory=frozenset)
    grader_trace: str = ""
    details: Optional[dict] = None


class GraderError(RuntimeError):
    """The checks themselves could not run (a defect in the grader, not in the submission)."""


GRADER_ERROR_FEEDBACK = ("grader error: this check could not run (a defect of the grader, not of your "
                         "code); your instructor has the details and will regrade it")


def feedback_for(exc):
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


def problems_for(exc):
    """The ``problems.Problem`` set an exception raised in a check stands for."""
    if isinstance(exc, StudentCodeError):
        return of_student_error(exc)
    if isinstance(exc, MemoryError):
        return frozenset([Problem.TOO_LARGE])
    return frozenset()


class GradingPlugin:
    def __init__(self, submission, student_id, secret, select=None, only=None):
        self.select = select
        self.only = only  # node names to run (rerunning suspect checks on the reference)
        self.suspects = {}  # nodeid -> traceback of an exception that is not a verdict
        self.submission = submission
        self.student_id = student_id
        self.secret = secret
        self.results = {}
        self.errors = []

    @pytest.fixture(name="submission")
    def _submission(self):
        return self.submission

    @pytest.fixture(name="student_id")
    def _student_id(self):
        return self.student_id

    @pytest.fixture(name="rng")
    def _rng(self, request):
        return np.random.default_rng(case_seed(self.secret, self.student_id, request.node.name))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        marker = item.get_closest_marker("check")
        if marker is None:
            return
        meta = marker.kwargs["meta"]
        if report.when == "call" or (report.when == "setup" and report.failed):
            if report.passed:
                self.results[item.nodeid] = CheckResult(meta.function, meta.name, meta.points, meta.points, "")
            else:
                exc = call.excinfo.value if call.excinfo else None
                text = feedback_for(exc) if exc is not None else "failed"
                details = exc.details if isinstance(exc, Mismatch) else None
                self.results[item.nodeid] = CheckResult(meta.function, meta.name, 0.0, meta.points, text,
                                                        problems_for(exc), details=details)
                if exc is not None and not isinstance(exc, (Mismatch, StudentCodeError, MemoryError)):
                    self.suspects[item.nodeid] = "".join(
                        traceback.format_exception(type(exc), exc, call.excinfo.tb))

    def pytest_collection_modifyitems(self, config, items):
        if self.only is not None:
            keep = [i for i in items if i.name in self.only]
            config.hook.pytest_deselected(items=[i for i in items if i not in keep])
            items[:] = keep
        if self.select:
            keep = [i for i in items if i.get_closest_marker("check")
                    and i.get_closest_marker("check").kwargs["meta"].function == self.select]
            config.hook.pytest_deselected(items=[i for i in items if i not in keep])
            items[:] = keep

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longrepr))


def run_checks(exercise, submission, student_id, secret, select=None, only=None):
    """Run the hidden checks of ``exercise`` on ``submission``.

    Args:
        exercise: an ``exercises.Exercise``.
        submission: a ``sandbox.ChildSubmission`` or ``sandbox.LocalSubmission``.
        student_id: used for the per-student seeds (``str``).
        secret: the course secret (``bytes``).
        select: optional student-facing function name; only its checks run.
        only: optional set of check names (``check_x``); only those run.
    Returns:
        list of ``CheckResult`` in the order the checks are written. A check that raised
        something other than a verdict is rerun on the reference solution, with the same
        seeds: when the reference breaks it too, the check itself is at fault, and its
        result says "grader error" (``Problem.GRADER_ERROR``, traceback in ``grader_trace``)
        instead of charging the student.
    Raises:
        GraderError: the check file could not be collected or run.
    """
    plugin = GradingPlugin(submission, student_id, secret, select, only)
    args = [str(exercise.checks_file), "-c", str(CHECKS_DIR / "pytest.ini"),
            "--rootdir", str(CHECKS_DIR), "-p", "no:cacheprovider",
            "--import-mode=importlib", "-W", "ignore", "-p", "no:terminal", "-p", "no:logging",
            # (unraisableexception runs gc.collect five times per session: most of the cost)
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler",
            "--capture=no"]
    code = pytest.main(args, plugins=[plugin])
    if plugin.errors or code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GraderError(f"pytest exited with {code!r}: {' '.join(plugin.errors)[:2000]}")
    if plugin.suspects and only is None:
        _blame(exercise, plugin, student_id, secret)
    return list(plugin.results.values())


def _blame(exercise, plugin, student_id, secret):
    """Mark the suspect checks that fail on the reference solution too as grader errors."""
    names = {nodeid.rsplit("::", 1)[-1]: nodeid for nodeid in plugin.suspects}
    try:
        reference = run_checks(exercise, _reference_submission(exercise), student_id, secret, only=set(names))
        broken = {r.name for r in reference if r.score < r.max_score}
    except Exception:  # the reference cannot even be loaded: every suspect is the grader's
        broken = None
    for nodeid, trace in plugin.suspects.items():
        old = plugin.results[nodeid]
        if broken is None or old.name in broken:
            plugin.results[nodeid] = CheckResult(old.function, old.name, 0.0, old.max_score, GRADER_ERROR_FEEDBACK,
                                                 frozenset([Problem.GRADER_ERROR]), trace)


def _reference_submission(exercise):
    import importlib
    from .local import LocalSubmission
    module = importlib.import_module(f"solutions.{exercise.name}")
    return LocalSubmission(dict(vars(module)))
