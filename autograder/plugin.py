"""Run an exercise's hidden checks with pytest against one submission, and collect points.

``run_checks(exercise, submission, student_id, secret)`` calls ``pytest.main`` on
``autograder/checks/check_<exercise>.py`` with ``GradingPlugin``, which supplies the
``submission``, ``student_id`` and ``rng`` fixtures and records, for every check, the
points earned and the feedback text (never a traceback or the check's source).
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pytest

from .checking import Mismatch
from .exercises import CHECKS_DIR
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
        details: for a failed comparison, ``{"what", "expected", "got", "mistakes"}``
            (``checking.Mismatch.details``), for reports that show values; else None.
    """
    function: str
    name: str
    score: float
    max_score: float
    output: str
    details: Optional[dict] = None


class GraderError(RuntimeError):
    """The checks themselves could not run (a defect in the grader, not in the submission)."""


def feedback_for(exc):
    """The student-facing text for an exception raised while a check ran."""
    if isinstance(exc, (Mismatch, StudentCodeError)):
        return str(exc)
    # Anything else means the student's value broke an assumption of the check
    # (wrong type, wrong length ...). Say so without showing the check's code.
    return f"the value returned could not be checked ({type(exc).__name__}: {exc})"


class GradingPlugin:
    def __init__(self, submission, student_id, secret, select=None):
        self.select = select
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
                text = feedback_for(call.excinfo.value) if call.excinfo else "failed"
                details = call.excinfo.value.details if call.excinfo and \
                    isinstance(call.excinfo.value, Mismatch) else None
                self.results[item.nodeid] = CheckResult(meta.function, meta.name, 0.0, meta.points, text,
                                                        details)

    def pytest_collection_modifyitems(self, config, items):
        if self.select:
            keep = [i for i in items if i.get_closest_marker("check")
                    and i.get_closest_marker("check").kwargs["meta"].function == self.select]
            config.hook.pytest_deselected(items=[i for i in items if i not in keep])
            items[:] = keep

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longrepr))


def run_checks(exercise, submission, student_id, secret, select=None):
    """Run the hidden checks of ``exercise`` on ``submission``.

    Args:
        exercise: an ``exercises.Exercise``.
        submission: a ``sandbox.ChildSubmission`` or ``sandbox.LocalSubmission``.
        student_id: used for the per-student seeds (``str``).
        secret: the course secret (``bytes``).
        select: optional student-facing function name; only its checks run.
    Returns:
        list of ``CheckResult`` in the order the checks are written.
    Raises:
        GraderError: the check file could not be collected or run.
    """
    plugin = GradingPlugin(submission, student_id, secret, select)
    args = [str(exercise.checks_file), "-c", str(CHECKS_DIR / "pytest.ini"),
            "--rootdir", str(CHECKS_DIR), "-p", "no:cacheprovider",
            "--import-mode=importlib", "-W", "ignore", "-p", "no:terminal", "-p", "no:logging",
            # (unraisableexception runs gc.collect five times per session: most of the cost)
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler",
            "--capture=no"]
    code = pytest.main(args, plugins=[plugin])
    if plugin.errors or code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GraderError(f"pytest exited with {code!r}: {' '.join(plugin.errors)[:2000]}")
    return list(plugin.results.values())
