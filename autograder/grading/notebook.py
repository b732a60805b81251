"""Grade notebooks: one (``grade_notebook``), or a whole class on a pool of workers (``grade_all``).

``grade_notebook`` never raises for anything a submission does: an unreadable file,
code that crashes, hangs, floods its output or exhausts memory all end as a
``NotebookResult`` whose checks carry 0 points and a message saying why.
"""
import concurrent.futures as cf
import signal
import time
import traceback
from pathlib import Path

from . import code_digest, plugin, safetext
from .check_files import check_metas
from .plugin import CheckResult
from .notebook_code import InvalidNotebook, is_untouched_release, read_notebook
from .notebook_result import NotebookResult
from .pool import WorkerPool
from .problems import Problem
from .sandbox import ChildSubmission, Limits, StudentCodeError


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

    def probe(self, name, *a):
        self._fail(name)


MAX_STARTUP_NOTES = 20


def _scratch_full(limits):
    limits = limits or Limits()
    return (f" (the notebook's writable folder /tmp is full: it holds at most {limits.scratch_inodes} files "
            f"and folders and {limits.scratch_bytes // 1024 ** 2} MB; the cell was stopped there)")


def startup_notes(report, limits=None):
    """Feedback lines for cells that raised or timed out while the notebook started
    (``limits``: the ``Limits`` graded under, named when a cell filled the scratch folder)."""
    notes = []
    errors = report.get("errors", [])
    unfinished = any(e["type"] == "NotImplementedError" for e in errors)
    for err in errors:
        if err["type"] == "NotImplementedError" or (unfinished and err["type"] == "NameError"):
            continue  # an unfinished stub (and what it left undefined); its checks say so
        if err["type"] == "VisibleCheckFailed":
            continue  # a visible check cell that failed; the hidden checks of its function say why
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


def redefinition_notes(notebook, exercise):
    """Feedback lines for functions defined again after their hidden-test cell."""
    notes = []
    for name, labels in notebook.later_definitions(exercise.functions).items():
        at = notebook.checkpoint_position(f"test_{name}")
        notes.append(f"{name} is defined again after its hidden-test cell (in {', '.join(labels)}); "
                     f"it was graded as it stood at cell {at}, where nbgrader checks it too")
    return notes


def grade_notebook(path, exercise, student_id, secret, limits=None, host=None):
    """Grade the notebook at ``path`` as a submission of ``exercise``.

    Args:
        path: the .ipynb file.
        exercise: an ``exercises.Exercise``.
        student_id: the student's id (``str``), for seeds and reports.
        secret: the course secret (``bytes``), for the randomized cases.
        limits: ``sandbox.Limits`` (time, memory, output limits).
        host: this student's ``warm.StudentSandbox`` (a warm start), or ``None``.
    Returns:
        ``NotebookResult``.
    Raises:
        plugin.GraderError: only when the grader's own checks are broken.
    """
    t0 = time.perf_counter()
    limits = limits or Limits()
    notes, problems = [], set()
    submission = None
    digests = None
    try:
        try:
            notebook = read_notebook(path, exercise.release_notebook if exercise.release_notebook.is_file() else None)
            notes += notebook.notes + redefinition_notes(notebook, exercise)
            digests = code_digest.digests_for_notebook(notebook, exercise)
            submission = ChildSubmission(notebook.cells, limits, host=host)
            # Run up to the first hidden-test cell; the checks run the rest (plugin.py).
            submission.checkpoint = next(iter(submission.checkpoint_order), None)
            submission.ensure_started()
            target = submission
        except InvalidNotebook as exc:
            notes.append(safetext.clean(exc, safetext.MESSAGE_CHARS))
            problems.add(Problem.INVALID_NOTEBOOK)
            target = BrokenSubmission(safetext.clean(exc, safetext.MESSAGE_CHARS))
        except StudentCodeError as exc:
            detail = safetext.clean(exc.detail, safetext.MESSAGE_CHARS)
            notes.append(f"your notebook could not be run: {detail}")
            problems.add(Problem.NOT_STARTED)
            target = BrokenSubmission(f"your notebook could not be run ({detail})")
        checks = plugin.run_checks(exercise, target, student_id, secret, code_digests=digests)
        if target is submission and submission.startup is not None:
            notes += startup_notes(submission.startup, limits)
        # A submission that ran without confinement (--unconfined) is flagged.
        if not limits.confine or getattr(submission, "confinement", "") == "unconfined":
            problems.add(Problem.UNCONFINED)
    finally:
        if submission is not None:
            submission.close()
    return NotebookResult(safetext.display_name(student_id), exercise.assignment,
                          safetext.display_name(Path(path).name), checks, notes,
                          time.perf_counter() - t0, problems,
                          [c.grader_trace for c in checks if c.grader_trace],
                          submission.confinement if submission is not None else "not run")


# -- a whole class ------------------------------------------------------------------
def _zero_result(job, note, problems=(), grader_log=()):
    checks = []
    if job.exercise is not None:
        checks = [CheckResult(m.function, m.name, 0.0, m.points, note) for m in check_metas(job.exercise)]
    assignment = job.exercise.assignment if job.exercise else (job.path.parent.name or "unknown")
    return NotebookResult(safetext.display_name(job.student_id), safetext.display_name(assignment),
                          safetext.display_name(job.path.name), checks, [note], 0.0, set(problems),
                          list(grader_log))


MAX_NOTEBOOKS_PER_EXERCISE = 3  # copies of one exercise graded for one student, at most


def grade_best(job, secret, limits, host=None):
    """Grade ``job.path`` and each of ``job.alternatives`` (several notebooks handing in one
    exercise, e.g. the untouched release beside a renamed copy holding the work); the
    best score counts (ties: the first, i.e. the released name), and the feedback names
    the notebooks that did not count. A notebook whose code cells are all as released is
    not graded (it is the stub), and once one scores full marks the rest are not either.
    At most ``MAX_NOTEBOOKS_PER_EXERCISE`` are graded, and none is started once those graded
    have used one notebook's time budget (``limits.notebook_seconds``): a folder of many
    hanging copies costs the class no more than a few notebooks.
    Returns ``NotebookResult``."""
    paths = [job.path, *job.alternatives]
    release = job.exercise.release_notebook
    untouched = [p for p in paths if release.is_file() and len(paths) > 1 and is_untouched_release(p, release)]
    results, others = [], []
    for p in [p for p in paths if p not in untouched] or paths[:1]:
        if any(r.score == r.max_score for r in results):
            others.append(f"{p.name} (not graded: {results[0].notebook} has full marks)")
            continue
        if len(results) >= MAX_NOTEBOOKS_PER_EXERCISE or \
                sum(r.seconds for r in results) >= limits.notebook_seconds:
            others.append(f"{p.name} (not graded: at most {MAX_NOTEBOOKS_PER_EXERCISE} notebooks, "
                          f"{limits.notebook_seconds:g} s in all, are graded per exercise)")
            continue
        results.append(grade_notebook(p, job.exercise, job.student_id, secret, limits, host))
    best = max(results, key=lambda r: r.score)  # max keeps the first of equal scores
    others = [f"{r.notebook} ({r.score:g}/{r.max_score:g})" for r in results if r is not best] + others
    others += [f"{p.name} (the release, unchanged)" for p in untouched if p.name != best.notebook]
    if others:
        best.notes.insert(0, f"several notebooks hand in {job.exercise.name}: graded {best.notebook}, "
                             f"which scores best; not counted: {', '.join(others)}")
        best.problems.add(Problem.SEVERAL_NOTEBOOKS)
        best.seconds = sum(r.seconds for r in results)
    return best


def grade_job(job, secret, limits, host=None):
    """Grade one ``discover.Job``; never raises. Returns ``(NotebookResult, grader_failed)``.
    ``host``: the student's ``warm.StudentSandbox`` (see ``host_for``), or ``None``.

    A defect of the grader (an exception out of ``grade_notebook``, a check that fails on the
    reference solution too) gives results flagged ``Problem.GRADER_ERROR`` with the traceback
    in ``NotebookResult.grader_log``; ``grader_failed`` is then true.
    """
    if job.exercise is None:
        return _zero_result(job, safetext.clean(job.problem), [Problem.UNKNOWN_EXERCISE]), False
    try:
        result = grade_best(job, secret, limits, host)
        return result, Problem.GRADER_ERROR in result.all_problems
    except MemoryError:
        return _zero_result(job, "grader error, ask your instructor to regrade: the grader ran out of "
                                 f"memory grading this notebook (limit {limits.grader_memory_bytes} bytes)",
                            [Problem.GRADER_ERROR, Problem.TOO_LARGE], [traceback.format_exc()]), True
    except Exception as exc:  # a defect of the grader: keep grading the class
        return _zero_result(job, "grader error, ask your instructor to regrade: "
                                 + safetext.clean(f"{type(exc).__name__}: {exc}", safetext.MESSAGE_CHARS),
                            [Problem.GRADER_ERROR], [traceback.format_exc()]), True


# -- warm sandboxes in worker processes -------------------------------------------------
_host = None  # in a worker: (student_id, limits, warm.StudentSandbox) of the last student graded
_spare = None  # in a worker: (limits, warm.StudentSandbox) started ahead, for the next student


def host_for(student_id, limits):
    """This worker's warm sandbox for ``student_id`` (``warm.StudentSandbox``): the one of the
    previous job when it is the same student with the same limits and still usable, else a
    new one (the previous one is closed first: a sandbox never serves two students).
    ``None`` when unconfined, at the setuid level (no namespaces to hold a fork server), or
    when it cannot start (the notebook then starts cold).

    A new student gets the spare sandbox started ahead when there is one (its fork server
    has imported numpy and the rest meanwhile, about a second of work), and a new spare is
    started for whoever comes next. A spare is bound to no student until taken, and serves
    only the one that takes it; the last spare of a run is closed unused."""
    global _host
    if _host is not None and (_host[0] != student_id or _host[1] != limits or not _host[2].usable):
        close_host()
    if _host is None and limits.confine and limits.level in (None, "bubblewrap"):
        from .warm import StudentSandbox, WarmUnavailable
        box = _take_spare(limits)
        if box is None:
            try:
                box = StudentSandbox(limits)
            except WarmUnavailable:
                return None
        _host = (student_id, limits, box)
        _start_spare(limits)
    return _host[2] if _host is not None else None


def _take_spare(limits):
    global _spare
    spare, _spare = _spare, None
    if spare is None:
        return None
    if spare[0] == limits and spare[1].usable:
        return spare[1]
    spare[1].close()
    return None


def _start_spare(limits):
    global _spare
    from .warm import StudentSandbox, WarmUnavailable
    try:
        _spare = (limits, StudentSandbox(limits))
    except WarmUnavailable:
        _spare = None


def close_host():
    """Close this worker's warm sandbox of the current student, if any."""
    global _host
    if _host is not None:
        _host[2].close()
        _host = None


def close_sandboxes():
    """Close this worker's warm sandboxes, the spare too (run when the worker exits)."""
    global _spare
    close_host()
    if _spare is not None:
        _spare[1].close()
        _spare = None


def _grade_in_worker(job, secret, limits):
    host = host_for(job.student_id, limits) if job.exercise is not None else None
    return grade_job(job, secret, limits, host)


def _grade_student_in_worker(indexed_jobs, secret, limits):
    """In a worker: grade one student's notebooks in turn, through one warm sandbox,
    announcing each as it starts (``pool.announce``: a worker that dies is blamed for the
    notebook it was on). Returns ``[(index, NotebookResult, grader_failed)]``."""
    from .pool import announce
    plugin.keep_sessions()  # this worker grades many notebooks: one pytest session per exercise
    graded = []
    for i, job in indexed_jobs:
        announce(i)
        graded.append((i, *_grade_in_worker(job, secret, limits)))
    return graded


def _by_student(indices, jobs):
    """``indices`` grouped by student, in order of each student's first notebook: one task
    per student, so a student's notebooks share one worker and one warm sandbox (notebooks
    handed out one by one would scatter a student over every worker, each starting a
    sandbox of its own for them)."""
    groups = {}
    for i in indices:
        groups.setdefault(jobs[i].student_id, []).append(i)
    return list(groups.values())


KILLED_WORKER_NOTE = ("your notebook could not be run: grading it killed the grader's worker process, "
                      "twice")


def grade_all(jobs, secret, limits, workers, progress=None, out=None, resume=True, on_pool=None):
    """Grade ``jobs`` on a pool of ``workers`` processes, each with its own memory limit
    (``Limits.grader_memory_bytes``). Each student's notebooks are one task: one worker
    grades them in turn through one warm sandbox (``_by_student``).

    A worker that dies (``BrokenProcessPool``: a submission that killed it, the memory
    limit) breaks its pool. Its unfinished notebooks are graded again in a fresh pool of the
    same size; the notebook whose worker died (or, when that cannot be told, every notebook
    running when it broke) gets a strike, and a notebook with two strikes is graded alone:
    if it breaks that pool too it scores 0 with a note saying so.

    Args:
        jobs: ``discover.Job`` list.
        secret: course secret (``bytes``). limits: ``Limits``. workers: pool size (``int`` >= 1).
        progress: called as ``progress(index, result, reused)`` after each notebook.
        out: the output folder: grader errors are logged to ``out/grader-errors.log``, and with
            ``resume`` each graded notebook is recorded in ``out/.resume/`` (see ``resume.py``)
            so a run started again skips notebooks already graded with unchanged content.
        on_pool: called as ``on_pool(size, indices, alone)`` for each pool started (``alone``: a
            notebook with two strikes, isolated), for tests and logs.
    Returns:
        ``(results, failures)``: ``NotebookResult`` list in the order of ``jobs``, and the
        number of notebooks on which the grader itself failed.
    """
    from . import resume as resume_store
    if limits.confine and jobs:
        from .matplotlib_cache import prefill
        prefill()  # each sandbox copies matplotlib's font list instead of scanning the fonts
    results = [None] * len(jobs)
    failures = 0
    store = resume_store.Store(out, secret, limits) if (out is not None and resume) else None
    todo = []
    for i, job in enumerate(jobs):
        found = store.load(job) if store else None
        if found is not None:
            results[i] = found
            if progress:
                progress(i, found, True)
        else:
            todo.append(i)

    def finish(i, result, failed):
        nonlocal failures
        results[i] = result
        failures += failed
        if out is not None and result.grader_log:
            log_grader_errors(out, result)
        if store and not failed:
            store.save(jobs[i], result)
        if progress:
            progress(i, result, False)

    def run_pool(indices, size, alone=False):
        """Grade ``indices`` on a fresh pool; returns ``(unfinished, suspects)``: the notebooks
        left ungraded when the pool broke, and those whose worker died rather than being
        ended by the executor (all that were running, when that cannot be told)."""
        if on_pool:
            on_pool(size, list(indices), alone)
        done = set()
        pool = WorkerPool(size, limits.grader_memory_bytes, at_exit=close_sandboxes)
        try:
            futures = [pool.submit(None, _grade_student_in_worker, [(i, jobs[i]) for i in batch], secret, limits)
                       for batch in _by_student(indices, jobs)]
            for future in cf.as_completed(futures):
                try:
                    graded = future.result()
                except cf.process.BrokenProcessPool:
                    continue  # the worker died: its student's notebooks not returned are regraded below
                for i, result, failed in graded:
                    done.add(i)
                    finish(i, result, failed)
        finally:
            pool.shutdown()
        exit_codes = pool.exit_codes()
        last = {}  # worker pid -> the notebook it announced last: the one it was on
        for i, pid in pool.started().items():
            last[pid] = i
        unfinished = [i for i in indices if i not in done]
        running = {i: pid for pid, i in last.items() if i not in done}
        # When a worker dies the executor ends the others with SIGTERM: the one that died
        # some other way (SIGKILL, a segfault, the memory limit) ran the notebook to blame.
        died = [i for i, pid in running.items() if exit_codes.get(pid) not in (None, 0, -signal.SIGTERM)]
        return unfinished, died or list(running) or unfinished

    strikes = {}
    pending = todo
    while pending:
        alone = [i for i in pending if strikes.get(i, 0) >= 2]
        together = [i for i in pending if strikes.get(i, 0) < 2]
        pending = []
        if together:
            unfinished, suspects = run_pool(together, max(1, min(workers, len(_by_student(together, jobs)))))
            for i in suspects:
                strikes[i] = strikes.get(i, 0) + 1
            pending += unfinished
        for i in alone:
            if run_pool([i], 1, alone=True)[0]:
                finish(i, _zero_result(jobs[i], KILLED_WORKER_NOTE, [Problem.WORKER_KILLED, Problem.CRASH]), False)
    return results, failures


def log_grader_errors(out, result):
    """Append ``result``'s grader-error tracebacks to ``out/grader-errors.log`` (UTF-8)."""
    path = Path(out) / "grader-errors.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8", errors="backslashreplace") as f:
        for trace in result.grader_log:
            f.write(f"=== {time.strftime('%Y-%m-%d %H:%M:%S')} {result.assignment_id} / {result.student_id} / "
                    f"{result.notebook}\n{trace.rstrip()}\n\n")
