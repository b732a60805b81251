"""Grade a class's notebooks on a pool of worker processes (``grade_all``): one task per student, so a
student's notebooks share one worker and one warm sandbox (``sandbox/spare.py``); a worker that dies is
replaced and its notebooks graded again, a notebook that kills two workers scores 0 with a note. The
class run (``class_run.py``) calls it as its grading stage.
"""
from __future__ import annotations

import concurrent.futures as cf
import signal
import time
import traceback
from pathlib import Path
from typing import NamedTuple

from autograder.core import safetext
from autograder.core.vocabulary import NotebookResult, Problem
from autograder.grading.pool import WorkerPool
from autograder.sandbox.spare import WORKER, close_worker


def zero_result(job, note, problems=(), grader_log=()) -> NotebookResult:
    """A ``NotebookResult`` of 0 points on every check of ``job``'s exercise, with ``note`` saying why."""
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
    ``host``: the student's ``warm.StudentSandbox`` (``sandbox/spare.py``), or ``None``.

    A defect of the grader (an exception out of ``grade_notebook``, a check that fails on the
    reference solution too) gives results flagged ``Problem.GRADER_ERROR`` with the traceback
    in ``NotebookResult.grader_log``; ``grader_failed`` is then true.
    """
    if job.exercise is None:
        return zero_result(job, safetext.clean(job.problem), [Problem.UNKNOWN_EXERCISE]), False
    try:
        result = grade_best(job, secret, limits, host)
        return result, Problem.GRADER_ERROR in result.all_problems
    except MemoryError:
        return zero_result(job, "grader error, ask your instructor to regrade: the grader ran out of "
                                 f"memory grading this notebook (limit {limits.grader_memory_bytes} bytes)",
                            [Problem.GRADER_ERROR, Problem.TOO_LARGE], [traceback.format_exc()]), True
    except Exception as exc:  # a defect of the grader: keep grading the class
        return zero_result(job, "grader error, ask your instructor to regrade: "
                                 + safetext.clean(f"{type(exc).__name__}: {exc}", safetext.MESSAGE_CHARS),
                            [Problem.GRADER_ERROR], [traceback.format_exc()]), True


def _grade_in_worker(job, secret, limits):
    host = WORKER.for_student(job.student_id, limits) if job.exercise is not None else None
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


def by_student(indices, jobs):
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


class Graded(NamedTuple):
    """What ``grade_all`` gives: ``results`` in the order of the jobs (a ``NotebookResult`` list, or
    with ``on_disk`` a ``stream.Results``), ``failures``: notebooks on which the grader itself
    failed, ``reused``: notebooks whose resume record was taken instead of grading them again."""
    results: object
    failures: int
    reused: int


def grade_all(jobs: list, secret: bytes, limits, workers: int, progress=None, out=None, resume: bool = True,
              on_pool=None, on_disk: bool = False, started=None, read_ahead=None) -> Graded:
    """Grade ``jobs`` on a pool of ``workers`` processes, each with its own memory limit
    (``Limits.grader_memory_bytes``). Each student's notebooks are one task: one worker
    grades them in turn through one warm sandbox (``by_student``).

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
        read_ahead: an ``outputs.WarmUp`` given each result as it comes (the outputs' reading of the
            graded notebooks, begun while the workers grade), or ``None``.
    Returns:
        ``Graded``.
    """
    from autograder.grading import resume as resume_store
    if limits.confine and jobs:
        from autograder.sandbox.matplotlib_cache import ensure
        ensure()  # each sandbox copies matplotlib's font list instead of scanning the fonts
    from autograder.grading.stream import Results
    results = Results(len(jobs), on_disk=on_disk)
    failures = reused = 0
    store = resume_store.Store(out, secret, limits) if (out is not None and resume) else None
    todo = []
    for i, job in enumerate(jobs):
        found = store.load(job) if store else None
        if found is not None:
            results.put(i, found, store.record_path(job))
            reused += 1
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
        if read_ahead is not None:
            read_ahead.take(jobs[i], result)
        if progress:
            progress(i, result, False)

    def run_pool(indices, size, alone=False):
        """Grade ``indices`` on a fresh pool; returns ``(unfinished, suspects)``: the notebooks
        left ungraded when the pool broke, and those whose worker died rather than being
        ended by the executor (all that were running, when that cannot be told)."""
        if on_pool:
            on_pool(size, list(indices), alone)
        done = set()
        pool = ahead.pop() if ahead else WorkerPool(size, limits.grader_memory_bytes, at_exit=close_worker)
        try:
            futures = {pool.submit(None, _grade_student_in_worker, [(i, jobs[i]) for i in batch], secret, limits)
                       for batch in by_student(indices, jobs)}
            for future in cf.as_completed(futures):
                # A done future holds its student's results: kept till the pool ended, every result of
                # the class stayed in the command's memory (tests/grading/test_stream.py).
                futures.discard(future)
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
        last = pool.last_started()  # worker pid -> the notebook it announced last: the one it was on
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
            unfinished, suspects = run_pool(together, max(1, min(workers, len(by_student(together, jobs)))))
            for i in suspects:
                strikes[i] = strikes.get(i, 0) + 1
            pending += unfinished
        for i in alone:
            if run_pool([i], 1, alone=True)[0]:
                finish(i, zero_result(jobs[i], KILLED_WORKER_NOTE, [Problem.WORKER_KILLED, Problem.CRASH]), False)
    for pool in ahead:  # started ahead, and nothing was left to grade
        pool.shutdown()
    return Graded(results if on_disk else list(results), failures, reused)


def log_grader_errors(out, result: NotebookResult) -> None:
    """Append ``result``'s grader-error tracebacks to ``out/grader-errors.log`` (UTF-8)."""
    path = Path(out) / "grader-errors.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8", errors="backslashreplace") as f:
        for trace in result.grader_log:
            f.write(f"=== {time.strftime('%Y-%m-%d %H:%M:%S')} {result.assignment_id} / {result.student_id} / "
                    f"{result.notebook}\n{trace.rstrip()}\n\n")
