"""Run an exercise's hidden checks with pytest against one submission, and collect points.

``run_checks(exercise, submission, student_id, secret)`` runs pytest on
``exercises/<exercise>/checks.py`` with ``GradingPlugin`` (one ``pytest.main`` per call; in
a grading worker, after ``keep_sessions()``, one ``CheckSession`` per exercise that
collects the checks once and runs them for each notebook), which supplies the
``submission``, ``student_id`` and ``rng`` fixtures (``autograder/checks/conftest.py`` adds
one per student-facing name) and records, for every check, the
points earned and the feedback text (never a traceback or the check's source).

Two things make the grade match ``nbgrader autograde`` and charge each bug once:

* **Checks run where nbgrader runs them.** Before the checks of ``function``, the
  submission is run on to its hidden-test cell ``test_<function>``
  (``ChildSubmission.advance_to``), and the checks are ordered by where those cells sit
  in the notebook. A later cell that redefines the function does not change its grade.
  Pausing (not a snapshot of the namespace) is what nbgrader does, so objects mutated later,
  closures, classes and module state come out the same; every cell still runs once. A child
  restarted after a crash runs again up to the current stop.
* **One bug, charged once.** ``Exercise.helpers`` lists functions whose reference calls
  other student functions (``learn_bpe`` calls ``merge_pair``). When a check of such a
  function fails, the grader computes, on its side, the reference function calling the
  student's helpers through the submission (``helpers.judge_excuse``): if that gives
  exactly what the student's function returned on every call of the check, and differs
  from the plain reference, the function is right and its helper is wrong; the check
  keeps its points and the feedback names the helper, whose own checks charge the bug.
  The excuse also needs the helper's answers to hold in a fresh run of the notebook and the
  student's function, given right answers from its helpers, to return the right value
  (``helpers.judge_excuse``, ``answered.py``): a stub beside a helper that answers on cue
  excuses nothing. Within one function, a failure that a mistake named in another of its
  checks explains (the same crash, the same values) is charged to that mistake (``charged.py``).
"""
from __future__ import annotations

import importlib
import traceback
import types

import numpy as np
import pytest

from autograder.checks import conftest as name_fixtures
from autograder.checks import declared
from autograder.checks.api import Excused, Mismatch
from autograder.checks.charged import charge_named
from autograder.checks.helpers import (
    FreshRuns,
    RecordingSubmission,
    judge_excuse,
    reference_submission,
)
from autograder.checks.results import (
    GRADER_ERROR_FEEDBACK,
    GraderError,
    feedback_for,
    feedback_text,
    problems_for,
)
from autograder.checks.seeds import case_seed
from autograder.checks.withheld import withholds
from autograder.core.registry import CHECKS_DIR
from autograder.core.vocabulary import CheckResult, Problem
from autograder.sandbox.limits import StudentCodeError


class GradingPlugin:
    def __init__(self, submission, student_id, secret, select=None, only=None, exercise=None,
                 code_digests=None):
        self.exercise = exercise
        self.rank = {name: i for i, (name, _) in enumerate(declared.check_functions(exercise))} if exercise else {}
        self.errors = []  # collection errors
        self.requests = None  # a CheckSession's queue of notebooks (see pytest_runtestloop)
        self.reset(submission, student_id, secret, select, only, code_digests)

    def reset(self, submission, student_id, secret, select=None, only=None, code_digests=None, charged=()):
        """Forget the previous notebook; the next checks run on ``submission``."""
        self.code_digests = dict(code_digests or {})  # {function or "*": digest} (code_digest.py)
        self.select = select
        self.only = only  # node names to run (rerunning suspect checks on the reference)
        self.suspects = {}  # nodeid -> traceback of an exception that is not a verdict
        self.charged_before = set(charged)  # functions charged in earlier runs (see run_checks)
        self.submission = submission
        self.student_id = student_id
        self.secret = secret
        self.results = {}
        self.order = []
        self.close_fresh()

    def close_fresh(self):
        """End the fresh runs of the notebook made to judge helper excuses (``FreshRuns``)."""
        if getattr(self, "fresh_runs", None) is not None:
            self.fresh_runs.close()
        self.fresh_runs = FreshRuns(self.submission)

    def pytest_configure(self, config):
        # A failed check's report gets pytest's plain traceback text, never its default
        # source excerpt, which parses the check file once per failure (40 ms each: a
        # notebook of stubs fails every check). The text is never shown; the exception is.
        config.option.tbstyle = "native"

    @pytest.fixture(name="submission")
    def _submission(self, request):
        request.node.student_calls = []
        return RecordingSubmission(self.submission, request.node.student_calls)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        """Run the notebook on to this function's hidden-test cell before its checks."""
        marker = item.get_closest_marker("check")
        advance = getattr(self.submission, "advance_to", None)
        if marker is not None and advance is not None:
            try:
                advance(f"test_{marker.kwargs['meta'].function}")
            except StudentCodeError:
                pass  # the checks' calls fail with the reason

    def _helper_excuse(self, item, meta):
        """``(True, feedback naming the helper)`` when the student's helpers alone explain the
        failure (``judge_excuse``), ``(False, why not)`` when they would but their answers depend
        on what ran before, else ``None``."""
        declared = self.exercise.helpers.get(meta.function) if self.exercise is not None else None
        if not declared:
            return None
        # Only a helper that is charged for its bug can excuse another function: one that
        # passed its own checks (run before, in notebook order) but answers otherwise when its
        # caller runs (a hidden flag) must not turn a wrong caller into a right one.
        charged = self.charged_before | {r.function for r in self.results.values() if r.score < r.max_score}
        helpers = tuple(h for h in declared if h in charged)
        if not helpers:
            return None
        reference = importlib.import_module(f"solutions.{self.exercise.name}")
        verdict = judge_excuse(meta.function, getattr(item, "student_calls", []), helpers,
                               reference, self.submission,
                               through=tuple(h for h in declared if h not in helpers), fresh=self.fresh_runs)
        if verdict.refused:
            return False, verdict.refused
        if not verdict.blamed:
            return None
        return True, verdict.text(meta.function)

    @pytest.fixture(name="student_id")
    def _student_id(self):
        return self.student_id

    @pytest.fixture(name="rng")
    def _rng(self, request):
        marker = request.node.get_closest_marker("check")
        function = marker.kwargs["meta"].function if marker is not None else None
        code = self.code_digests.get(function, self.code_digests.get("*"))
        return np.random.default_rng(case_seed(self.secret, self.student_id, request.node.name, code))

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
                return
            exc = call.excinfo.value if call.excinfo else None
            details = exc.details if isinstance(exc, Mismatch) else None
            text = feedback_for(exc) if exc is not None else "failed"
            if withholds(item, exc, self.exercise):
                # a fixed check: the mistake and the student's value, never the right value
                # (checks/withheld.py); the details keep it, marked, for the instructor
                text = feedback_text(exc.without_expected)
                details = dict(details or {}, withheld=True)
            excuse = None
            if report.when == "call" and (isinstance(exc, Mismatch) or (  # a helper raised: answered.py
                    isinstance(exc, StudentCodeError) and exc.function == meta.function and exc.helper)):
                excuse = (True, exc.because) if isinstance(exc, Excused) else self._helper_excuse(item, meta)
            if excuse is not None and not excuse[0]:
                text = f"{text} ({excuse[1]})"
            elif excuse is not None:
                self.results[item.nodeid] = CheckResult(meta.function, meta.name, meta.points, meta.points,
                                                        f"{excuse[1]} ({text})")
                return
            self.results[item.nodeid] = CheckResult(meta.function, meta.name, 0.0, meta.points, text,
                                                    problems_for(exc), details=details)
            if exc is not None and not isinstance(exc, (Mismatch, StudentCodeError, MemoryError)):
                self.suspects[item.nodeid] = "".join(
                    traceback.format_exception(type(exc), exc, call.excinfo.tb))

    def arrange(self, items):
        """The items to run for this notebook, in the order to run them: only those of
        ``only`` / ``select``, sorted by where their hidden-test cells sit in the notebook,
        so the submission only ever runs forward (a stable sort keeps each function's checks
        in check order; functions without a test cell come last). Sets ``order`` (check order)."""
        if self.only is not None:
            items = [i for i in items if i.name in self.only]
        if self.select:
            items = [i for i in items if i.get_closest_marker("check")
                     and i.get_closest_marker("check").kwargs["meta"].function == self.select]
        items = self._in_check_order(items)
        self.order = [i.nodeid for i in items]
        where = getattr(self.submission, "checkpoint_order", None) or []

        def rank(item):
            marker = item.get_closest_marker("check")
            cp = f"test_{marker.kwargs['meta'].function}" if marker else None
            return where.index(cp) if cp in where else len(where)
        return sorted(items, key=rank)

    def _in_check_order(self, items):
        """``items`` in the order of ``declared.check_functions`` (``self.rank``)."""
        return sorted(items, key=lambda item: self.rank.get(item.name, len(self.rank)))

    def pytest_collection_modifyitems(self, config, items):
        if self.requests is not None:
            return  # a CheckSession arranges the items anew for each notebook
        keep = self.arrange(items)
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        """In a ``CheckSession``: run the collected checks once per notebook taken from
        ``requests``, until ``None`` comes; pytest's own loop otherwise. Running an item again
        is what pytest's rerun plugins do: its function-scoped fixtures are set up anew."""
        if self.requests is None:
            return None
        collected = list(session.items)
        while True:
            request = self.requests.get()
            if request is None:
                return True
            state, answer = request
            try:
                if self.errors:
                    raise GraderError(f"the checks could not be collected: {' '.join(self.errors)[:2000]}")
                self.reset(**state)
                items = self.arrange(collected)
                for k, item in enumerate(items):
                    item.config.hook.pytest_runtest_protocol(item=item, nextitem=items[k + 1] if k + 1 < len(items)
                                                             else None)
                self.close_fresh()
                answer.put((True, None))
            except BaseException as exc:  # a defect of the grader: the caller raises it
                answer.put((False, exc))

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longrepr))


def run_checks(exercise, submission, student_id: str, secret: bytes, select=None, only=None, charged=(), code_digests=None) -> list[CheckResult]:
    """Run the hidden checks of ``exercise`` on ``submission``.

    Args:
        exercise: a ``registry.Exercise``.
        submission: a ``remote.ChildSubmission`` or ``local.LocalSubmission``.
        student_id: used for the per-student seeds (``str``).
        secret: the course secret (``bytes``).
        select: optional student-facing function name; only its checks run.
        only: optional set of check names (``check_x``); only those run.
        charged: functions that already lost points in earlier runs on the same notebook
            (``nbgrader_glue/in_kernel.py`` runs one function per hidden-test cell); with those this run
            charges, they are the helpers that may excuse a caller (``_helper_excuse``).
        code_digests: ``{function: hex digest}`` of the notebook's code as graded, with key
            ``"*"`` for functions without a hidden-test cell (``submission/digest.py``); part of
            the seed of the randomized cases (``seeds.case_seed``). ``None``: no notebook.
    Returns:
        list of ``CheckResult`` in the order the checks are written. A check that raised
        something other than a verdict is rerun on the reference solution, with the same
        seeds: when the reference breaks it too, the check itself is at fault, and its
        result says "grader error" (``Problem.GRADER_ERROR``, traceback in ``grader_trace``)
        instead of charging the student.
    Raises:
        GraderError: the check file could not be collected or run.
    """
    state = dict(submission=submission, student_id=student_id, secret=secret, select=select, only=only,
                 code_digests=code_digests, charged=charged)
    if _sessions is not None:
        if exercise.name not in _sessions:
            _sessions[exercise.name] = CheckSession(exercise)
        session = _sessions[exercise.name].run(state)
        # a copy: _blame below runs the same session again, on the reference
        plugin: GradingPlugin | types.SimpleNamespace = types.SimpleNamespace(
            results=dict(session.results), suspects=dict(session.suspects), order=list(session.order))
    else:
        plugin = GradingPlugin(submission, student_id, secret, select, only, exercise, code_digests)
        plugin.charged_before = set(charged)
        try:
            code = pytest.main(_pytest_args(exercise), plugins=[plugin, name_fixtures])
        finally:
            plugin.close_fresh()
        if plugin.errors or code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            raise GraderError(f"pytest exited with {code!r}: {' '.join(plugin.errors)[:2000]}")
    if plugin.suspects and only is None:
        _blame(exercise, plugin, student_id, secret, code_digests)
    if only is None:  # a failure a named mistake explains is charged to it (checks/charged.py)
        charge_named(exercise, plugin.results, run_checks, student_id, secret, code_digests)
    order = {nodeid: i for i, nodeid in enumerate(getattr(plugin, "order", []))}
    return [r for _, r in sorted(plugin.results.items(), key=lambda kv: order.get(kv[0], len(order)))]


def _pytest_args(exercise):
    return [str(exercise.checks_file), "-c", str(CHECKS_DIR / "pytest.ini"),
            "--rootdir", str(exercise.folder), "-p", "no:cacheprovider",
            "--import-mode=importlib", "-W", "ignore", "-p", "no:terminal", "-p", "no:logging",
            # (unraisableexception runs gc.collect five times per session: most of the cost)
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler",
            "--capture=no"]


_sessions: "dict[str, CheckSession] | None" = None  # {exercise name: CheckSession} once keep_sessions() is called (grading workers)


def keep_sessions() -> None:
    """From now on, ``run_checks`` in this process keeps one ``CheckSession`` per exercise
    (a grading worker grades many notebooks; the student's kernel, via ``nbgrader_glue/in_kernel.py``, does not
    call this and runs one pytest session per cell)."""
    global _sessions
    if _sessions is None:
        _sessions = {}


class CheckSession:
    """One pytest session for one exercise's checks, kept for the life of the process: pytest
    configures itself and collects the check file once, then runs the checks for each
    notebook asked of it (``GradingPlugin.pytest_runtestloop``), which saves pytest's set-up
    per notebook (``benchmarks/profile_grading.py``: plugin registration, collection).

    The session runs ``pytest.main`` in a thread of its own, blocked between notebooks;
    ``run`` hands it a notebook and waits. Only one notebook at a time (a grading worker
    grades one at a time).
    """

    def __init__(self, exercise):
        import queue
        import threading
        self.plugin = GradingPlugin(None, None, None, exercise=exercise)
        self.plugin.requests = queue.Queue()
        self.exit_code = None
        self.thread = threading.Thread(target=self._main, args=(exercise,), daemon=True,
                                       name=f"checks-{exercise.name}")
        self.thread.start()

    def _main(self, exercise):
        try:
            self.exit_code = pytest.main(_pytest_args(exercise), plugins=[self.plugin, name_fixtures])
        finally:
            self.plugin.requests = None

    def _ended(self):
        return GraderError(f"the checks' pytest session ended (exit {self.exit_code!r}): "
                           f"{' '.join(self.plugin.errors)[:2000]}")

    def run(self, state):
        """Run the checks on one notebook (``state``: the ``GradingPlugin.reset`` arguments);
        returns the plugin holding its results.

        Raises:
            GraderError: the session could not collect the checks or has ended.
            MemoryError: the grader ran out of memory running them (``workers.grade_job`` says so).
        """
        import queue
        requests = self.plugin.requests
        if requests is None or not self.thread.is_alive():
            raise self._ended()
        answer = queue.Queue()
        requests.put((state, answer))
        while True:
            try:
                ok, exc = answer.get(timeout=1.0)
                break
            except queue.Empty:
                if not self.thread.is_alive():
                    raise self._ended() from None
        if not ok:
            raise exc if isinstance(exc, (GraderError, MemoryError)) else GraderError(f"{type(exc).__name__}: {exc}")
        return self.plugin


def _blame(exercise, plugin, student_id, secret, code_digests=None):
    """Mark the suspect checks that fail on the reference solution too as grader errors."""
    names = {nodeid.rsplit("::", 1)[-1]: nodeid for nodeid in plugin.suspects}
    try:
        reference = run_checks(exercise, reference_submission(exercise), student_id, secret, only=set(names),
                               code_digests=code_digests)
        broken = {r.name for r in reference if r.score < r.max_score}
    except Exception:  # the reference cannot even be loaded: every suspect is the grader's
        broken = None
    for nodeid, trace in plugin.suspects.items():
        old = plugin.results[nodeid]
        if broken is None or old.name in broken:
            plugin.results[nodeid] = CheckResult(old.function, old.name, 0.0, old.max_score, GRADER_ERROR_FEEDBACK,
                                                 frozenset([Problem.GRADER_ERROR]), trace)


