"""Grade a class: each student's notebooks on a pool of workers (``grade_all``), and the one entry
every class run goes through (``grade_class``: the preflight, the grading, the reports).

``grade_class`` is what ``python -m autograder grade``, the demo (``autograder/demo/run.py``) and the
benchmarks call, so none of them grades without the preflight (tiktoken's file, the sandbox) or leaves
a class without its reports.
"""
from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import signal
import time
import traceback
from pathlib import Path

from autograder.core import safetext
from autograder.core.vocabulary import NotebookResult, Problem
from autograder.grading.pool import WorkerPool


# -- a whole class ------------------------------------------------------------------
def _zero_result(job, note, problems=(), grader_log=()):
    from autograder.checks.declared import check_metas
    from autograder.core.vocabulary import CheckResult
    checks = []
    if job.exercise is not None:
        checks = [CheckResult(m.function, m.name, 0.0, m.points, note) for m in check_metas(job.exercise)]
    assignment = job.exercise.assignment if job.exercise else (job.path.parent.name or "unknown")
    return NotebookResult(safetext.display_name(job.student_id), safetext.display_name(assignment),
                          safetext.display_name(job.path.name), checks, [note], 0.0, set(problems),
                          list(grader_log))


def grade_notebook(*args, **kwargs) -> NotebookResult:
    """``grading.notebook.grade_notebook``, imported on the first call (the engine: in workers only)."""
    from autograder.grading.notebook import grade_notebook as grade
    return grade(*args, **kwargs)


MAX_NOTEBOOKS_PER_EXERCISE = 3  # copies of one exercise graded for one student, at most


def grade_best(job, secret: bytes, limits, host=None) -> NotebookResult:
    """Grade ``job.path`` and each of ``job.alternatives`` (several notebooks handing in one
    exercise, e.g. the untouched release beside a renamed copy holding the work); the
    best score counts (ties: the first, i.e. the released name), and the feedback names
    the notebooks that did not count. A notebook whose code cells are all as released is
    not graded (it is the stub), and once one scores full marks the rest are not either.
    At most ``MAX_NOTEBOOKS_PER_EXERCISE`` are graded, and none is started once those graded
    have used one notebook's time budget (``limits.notebook_seconds``): a folder of many
    hanging copies costs the class no more than a few notebooks.
    Returns ``NotebookResult``."""
    from autograder.submission.notebook import is_untouched_release
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


def grade_job(job, secret: bytes, limits, host=None) -> tuple[NotebookResult, bool]:
    """Grade one ``vocabulary.Job``; never raises. Returns ``(NotebookResult, grader_failed)``.
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


def host_for(student_id: str, limits):
    """This worker's warm sandbox for ``student_id`` (``warm.StudentSandbox``): the one of the
    previous job when it is the same student with the same limits and still usable, else a
    new one (the previous one is closed first: a sandbox never serves two students).
    ``None`` when unconfined, at the setuid level (no namespaces to hold a fork server), or
    when it cannot start (the notebook then starts cold).

    A new student gets the spare sandbox started ahead when there is one (its fork server
    has imported numpy and the child's code meanwhile, about 0.2 CPU s; pyplot and tiktoken
    come later, for this student only if a notebook needs them), and a new spare is
    started for whoever comes next. A spare is bound to no student until taken, and serves
    only the one that takes it; the last spare of a run is closed unused."""
    global _host
    if _host is not None and (_host[0] != student_id or _host[1] != limits or not _host[2].usable):
        close_host()
    if _host is None and limits.confine and limits.level in (None, "bubblewrap"):
        from autograder.sandbox.warm import StudentSandbox, WarmUnavailable
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
    from autograder.sandbox.warm import StudentSandbox, WarmUnavailable
    try:
        _spare = (limits, StudentSandbox(limits))
    except WarmUnavailable:
        _spare = None


def close_host() -> None:
    """Close this worker's warm sandbox of the current student, if any."""
    global _host
    if _host is not None:
        _host[2].close()
        _host = None


def close_sandboxes() -> None:
    """Close this worker's warm sandboxes, the spare too (run when the worker exits)."""
    global _spare
    close_host()
    if _spare is not None:
        _spare[1].close()
        _spare = None


def _grade_in_worker(job, secret, limits):
    host = host_for(job.student_id, limits) if job.exercise is not None else None
    from autograder.checks import plugin  # the first time: loaded while the student's sandbox boots
    plugin.keep_sessions()  # this worker grades many notebooks: one pytest session per exercise
    return grade_job(job, secret, limits, host)


def _grade_student_in_worker(indexed_jobs, secret, limits):
    """In a worker: grade one student's notebooks in turn, through one warm sandbox,
    announcing each as it starts (``pool.announce``: a worker that dies is blamed for the
    notebook it was on). Returns ``[(index, NotebookResult, grader_failed)]``."""
    from autograder.grading.pool import announce
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


def grade_all(jobs: list, secret: bytes, limits, workers: int, progress=None, out=None, resume: bool = True,
              on_pool=None, on_disk: bool = False, started=None) -> tuple:
    """Grade ``jobs`` on a pool of ``workers`` processes, each with its own memory limit
    (``Limits.grader_memory_bytes``). Each student's notebooks are one task: one worker
    grades them in turn through one warm sandbox (``_by_student``).

    A worker that dies (``BrokenProcessPool``: a submission that killed it, the memory
    limit) breaks its pool. Its unfinished notebooks are graded again in a fresh pool of the
    same size; the notebook whose worker died (or, when that cannot be told, every notebook
    running when it broke) gets a strike, and a notebook with two strikes is graded alone:
    if it breaks that pool too it scores 0 with a note saying so.

    Args:
        jobs: ``vocabulary.Job`` list.
        secret: course secret (``bytes``). limits: ``Limits``. workers: pool size (``int`` >= 1).
        progress: called as ``progress(index, result, reused)`` after each notebook.
        out: the output folder: grader errors are logged to ``out/grader-errors.log``, and with
            ``resume`` each graded notebook is recorded in ``out/.resume/`` (see ``grading/resume.py``)
            so a run started again skips notebooks already graded with unchanged content.
        on_pool: called as ``on_pool(size, indices, alone)`` for each pool started (``alone``: a
            notebook with two strikes, isolated), for tests and logs.
        on_disk: keep the results on disk as they come (``stream.Results``: read back from their
            resume records, or a spill file), not in memory: the grading command's memory then
            does not grow with the class.
        started: a ``WorkerPool`` started ahead (``early.py``), used first (unused: shut down), or ``None``.
    Returns:
        ``(results, failures)``: the results in the order of ``jobs`` (a ``NotebookResult`` list,
        or with ``on_disk`` a ``stream.Results``, a sequence of them), and the number of notebooks
        on which the grader itself failed.
    """
    from autograder.grading import resume as resume_store
    if limits.confine and jobs:
        from autograder.sandbox.matplotlib_cache import ensure
        ensure()  # each sandbox copies matplotlib's font list instead of scanning the fonts
    from autograder.grading.stream import Results
    results = Results(len(jobs), on_disk=on_disk)
    failures = 0
    store = resume_store.Store(out, secret, limits) if (out is not None and resume) else None
    todo = []
    for i, job in enumerate(jobs):
        found = store.load(job) if store else None
        if found is not None:
            results.put(i, found, store.record_path(job))
            if progress:
                progress(i, found, True)
        else:
            todo.append(i)

    def finish(i, result, failed):
        nonlocal failures
        failures += failed
        if out is not None and result.grader_log:
            log_grader_errors(out, result)
        record = store.save(jobs[i], result) if store and not failed else None
        results.put(i, result, record)
        if progress:
            progress(i, result, False)

    def run_pool(indices, size, alone=False):
        """Grade ``indices`` on a fresh pool; returns ``(unfinished, suspects)``: the notebooks
        left ungraded when the pool broke, and those whose worker died rather than being
        ended by the executor (all that were running, when that cannot be told)."""
        if on_pool:
            on_pool(size, list(indices), alone)
        done = set()
        pool = ahead.pop() if ahead else WorkerPool(size, limits.grader_memory_bytes, at_exit=close_sandboxes)
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

    strikes, ahead = {}, [started] if started is not None else []
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
    for pool in ahead:  # started ahead, and nothing was left to grade
        pool.shutdown()
    return (results if on_disk else list(results)), failures


def log_grader_errors(out, result: NotebookResult) -> None:
    """Append ``result``'s grader-error tracebacks to ``out/grader-errors.log`` (UTF-8)."""
    path = Path(out) / "grader-errors.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8", errors="backslashreplace") as f:
        for trace in result.grader_log:
            f.write(f"=== {time.strftime('%Y-%m-%d %H:%M:%S')} {result.assignment_id} / {result.student_id} / "
                    f"{result.notebook}\n{trace.rstrip()}\n\n")


# -- the one entry into a class run ------------------------------------------------------
@dataclasses.dataclass
class ClassRun:
    """What ``grade_class`` did.

    Attributes:
        results: the ``NotebookResult`` of each job, in order: a ``stream.Results`` (a sequence that
            reads each back from disk; ``rows()`` gives who and what without reading).
        failures: notebooks on which the grader itself failed (``int``).
        recorded: whether nbgrader's gradebook took every grade (``True`` when no gradebook was asked).
        csv_path: the class table (``OUT/grades.csv``).
        flagged: the identical or hard-linked notebooks (``identical.flag``), listed in ``note_path``.
        level: the confinement level every worker used (``None``: unconfined).
        (``csv_path`` and ``note_path`` are ``None`` for a shard, which writes no class files.)
    """
    results: list
    failures: int
    recorded: bool
    csv_path: Path | None
    flagged: list
    note_path: Path | None
    level: str | None = None


def grade_class(jobs: list, secret: bytes, limits, workers: int, out, *, level: str | None = "auto",
                progress=None, resume: bool = True, gradebook=None,
                show=None, say=None, outputs: bool = True, roster=None, late_found=None) -> ClassRun:
    """Grade a class and write its reports: the one way into a class run.

    In order: the preflight (``preflight.run``: tiktoken's ``cl100k_base`` file when an exercise needs
    it, the sandbox when ``limits.confine``; it picks the confinement level every worker then uses),
    the grading (``grade_all``), the gradebook (``gradebook(results, totals)`` when given: nbgrader's
    late penalties and manual overrides go into the reports), each notebook's ``results.json`` and
    ``report.html`` and ``feedback.txt``, the identical-notebook flag, the class
    table ``grades.csv``, and the staff's class report (``class.html`` and its CSVs).

    Args:
        jobs: the ``vocabulary.Job`` list (non-empty). secret: the course secret (``bytes``).
        limits: ``Limits``. workers: pool size (``int`` >= 1). out: the output folder (``str``/``Path``).
        level: ``--confinement`` ("auto", "bubblewrap", "setuid" or ``None``).
        progress: called as ``progress(index, result, reused)`` after each notebook.
        resume: reuse ``out/.resume`` records of notebooks unchanged since the last run.
        gradebook: ``gradebook(results, totals) -> bool`` recording the grades (fills ``totals``), or ``None``.
        show: called with each notebook's console table (``None``: not shown). say: progress lines.
        outputs: write the class's files (``grading/outputs.py``); ``False`` for one shard of a class,
            whose results and resume records the merge reads (``cluster/``).
        roster: the course roster (``lms.roster.Roster``) or ``None``; late_found: ``late.for_cli``'s
            finds, a callable ``late_found(limits)`` giving them once the preflight chose the level,
            or ``None`` (both passed to ``grading/outputs.py``).
    Returns:
        ``ClassRun``.
    Raises:
        preflight.PreflightError: something the grading needs is missing; nothing was graded.
    """
    from autograder.grading.early import preflight_with_workers
    from autograder.grading.outputs import WarmUp, write_class_outputs
    chosen, started = preflight_with_workers(jobs, limits, level, workers, out, resume, close_sandboxes, _start_spare)
    if chosen is not None:
        limits = dataclasses.replace(limits, level=chosen)  # every worker uses the level checked here
    out = Path(out)
    if callable(late_found):  # before grading replaces the resume records it reads
        late_found = late_found(limits)
    warm = WarmUp(jobs, progress) if outputs else None  # the pass after grading, begun during it
    results, failures = grade_all(jobs, secret, limits, max(1, workers), progress=warm or progress, out=out,
                                  resume=resume, on_disk=True, started=started)  # on disk: grading/stream.py
    if not outputs:  # one shard of a class (cluster/shards.py): the merge writes the class's files
        return ClassRun(results, failures, True, None, [], None, limits.level)
    warm.join()
    recorded, csv_path, flagged, note_path = write_class_outputs(
        jobs, results, out, gradebook=gradebook, show=show, say=say, roster=roster,
        late_found=late_found)
    return ClassRun(results, failures, recorded, csv_path, flagged, note_path, limits.level)
