"""Grade notebooks: one (``grade_notebook``), or a whole class on a pool of workers (``grade_all``).

``grade_notebook`` never raises for anything a submission does: an unreadable file,
code that crashes, hangs, floods its output or exhausts memory all end as a
``NotebookResult`` whose checks carry 0 points and a message saying why.
"""
import concurrent.futures as cf
import multiprocessing
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import plugin
from .checking import CheckMeta
from .plugin import CheckResult
from .notebook_code import InvalidNotebook, is_untouched_release, read_notebook
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
        cell, where = err.get("cell"), err.get("where")
        cell = cell if isinstance(cell, str) else f"cell {cell}"
        line = f"{cell}: {err['type']}: {err['message']}".rstrip(": ")
        if where and where != cell and not where.startswith(cell + ","):
            line += f" (raised at {where})"
        notes.append(line)
    return notes


def redefinition_notes(notebook, exercise):
    """Feedback lines for functions defined again after their hidden-test cell."""
    notes = []
    for name, labels in notebook.later_definitions(exercise.functions).items():
        at = notebook.checkpoint_position(f"test_{name}")
        notes.append(f"{name} is defined again after its hidden-test cell (in {', '.join(labels)}); "
                     f"it was graded as it stood at cell {at}, where nbgrader checks it too")
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
            notebook = read_notebook(path, exercise.release_notebook if exercise.release_notebook.is_file() else None)
            notes += notebook.notes + redefinition_notes(notebook, exercise)
            submission = ChildSubmission(notebook.cells, limits or Limits())
            # Run up to the first hidden-test cell; the checks run the rest (plugin.py).
            submission.checkpoint = next(iter(submission.checkpoint_order), None)
            submission.ensure_started()
            target = submission
        except InvalidNotebook as exc:
            notes.append(str(exc))
            target = BrokenSubmission(str(exc))
        except StudentCodeError as exc:
            notes.append(f"your notebook could not be run: {exc.detail}")
            target = BrokenSubmission(f"your notebook could not be run ({exc.detail})")
        checks = plugin.run_checks(exercise, target, student_id, secret)
        if target is submission and submission.startup is not None:
            notes += startup_notes(submission.startup)
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


# -- a whole class ------------------------------------------------------------------
def _zero_result(job, note):
    checks = []
    if job.exercise is not None:
        checks = [CheckResult(m.function, m.name, 0.0, m.points, note) for m in check_metas(job.exercise)]
    assignment = job.exercise.assignment if job.exercise else (job.path.parent.name or "unknown")
    return NotebookResult(job.student_id, assignment, job.path.name, checks, [note])


def grade_best(job, secret, limits):
    """Grade ``job.path`` and each of ``job.alternatives`` (several notebooks handing in one
    exercise, e.g. the untouched release beside a renamed copy holding the work); the
    best score counts (ties: the first, i.e. the released name), and the feedback names
    the notebooks that did not count. A notebook whose code cells are all as released is
    not graded (it is the stub), and once one scores full marks the rest are not either.
    Returns ``NotebookResult``."""
    paths = [job.path, *job.alternatives]
    release = job.exercise.release_notebook
    untouched = [p for p in paths if release.is_file() and len(paths) > 1 and is_untouched_release(p, release)]
    results, others = [], []
    for p in [p for p in paths if p not in untouched] or paths[:1]:
        if any(r.score == r.max_score for r in results):
            others.append(f"{p.name} (not graded: {results[0].notebook} has full marks)")
            continue
        results.append(grade_notebook(p, job.exercise, job.student_id, secret, limits))
    best = max(results, key=lambda r: r.score)  # max keeps the first of equal scores
    others = [f"{r.notebook} ({r.score:g}/{r.max_score:g})" for r in results if r is not best] + others
    others += [f"{p.name} (the release, unchanged)" for p in untouched if p.name != best.notebook]
    if others:
        best.notes.insert(0, f"several notebooks hand in {job.exercise.name}: graded {best.notebook}, "
                             f"which scores best; not counted: {', '.join(others)}")
        best.seconds = sum(r.seconds for r in results)
    return best


def grade_job(job, secret, limits):
    """Grade one ``discover.Job``; never raises. Returns ``(NotebookResult, grader_failed)``."""
    if job.exercise is None:
        return _zero_result(job, job.problem), False
    try:
        return grade_best(job, secret, limits), False
    except Exception as exc:  # a defect of the grader: keep grading the class
        return _zero_result(job, f"grader error, ask your instructor to regrade: "
                                 f"{type(exc).__name__}: {exc}"), True


def grade_all(jobs, secret, limits, workers, progress=None):
    """Grade ``jobs`` on ``workers`` processes.

    Returns:
        ``(results, failures)``: ``NotebookResult`` list in the order of ``jobs``, and the
        number of notebooks on which the grader itself failed.
    """
    results = [None] * len(jobs)
    failures = 0
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            results[i], failed = grade_job(job, secret, limits)
            failures += failed
            if progress:
                progress(i, results[i])
        return results, failures
    # "spawn", not "forkserver": a forkserver listens on a unix socket that a submission
    # could connect to and have an unconfined process forked for it.
    context = multiprocessing.get_context("spawn")

    def run_pool(indices, size):
        """Grade ``indices`` on a pool of ``size``; returns those whose worker died."""
        nonlocal failures
        broken = []
        with cf.ProcessPoolExecutor(max_workers=size, mp_context=context) as pool:
            futures = {pool.submit(grade_job, jobs[i], secret, limits): i for i in indices}
            for future in cf.as_completed(futures):
                i = futures[future]
                try:
                    results[i], failed = future.result()
                except Exception:  # the worker process died (BrokenProcessPool)
                    broken.append(i)
                    continue
                failures += failed
                if progress:
                    progress(i, results[i])
        return sorted(broken)

    # A dead worker takes its whole pool down: rerun what was left, each notebook in a
    # pool of its own, so only the notebook that kills its worker loses its points.
    for i in run_pool(range(len(jobs)), workers):
        if run_pool([i], 1):
            results[i] = _zero_result(jobs[i], "your notebook could not be run: grading it "
                                               "killed the grader's worker process")
            if progress:
                progress(i, results[i])
    return results, failures
