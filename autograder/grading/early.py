"""Grading workers started before the preflight (``class_run.preflight``): while the command
checks what grading needs (``preflight.run``: a test sandbox that imports numpy, tiktoken and
matplotlib, about half a second), the workers start, import the grading engine and start a spare
sandbox each for their first student, so the first notebook is forked as soon as the preflight
has passed. Nothing is graded before it passes; when it fails, the workers are shut down unused
(their spare sandboxes, bound to no student, are closed with them).

The spare sandboxes are started with the limits the preflight is expected to choose (the
bubblewrap level unless another level is forced); a worker uses its spare only when the chosen
limits are those (``sandbox/spare.py``), else closes it and starts another.
"""
from __future__ import annotations

import dataclasses
import importlib
import os
from pathlib import Path

from autograder.grading.pool import WorkerPool
from autograder.sandbox.spare import close_worker, start_spare


def early_pool(jobs: list, limits, level, workers: int, out, resume: bool) -> WorkerPool | None:
    """A ``WorkerPool`` started now for ``jobs``, or ``None`` when the run may have nothing to
    grade (``resume`` with records in ``out/.resume``: a run over graded notebooks then starts no
    worker) or has no job.

    Args:
        jobs: the ``vocabulary.Job`` list. limits: the run's ``Limits`` (before the preflight).
        level: ``--confinement`` ("auto", "bubblewrap", "setuid" or ``None``).
        workers: the pool's size at most (``int``); one per student at most.
        out, resume: the output folder and whether its resume records are used.
    Each worker starts its spare sandbox with the expected limits (``spare.start_spare``), then imports
    the engine; it closes its sandboxes as it exits (``spare.close_worker``).
    Returns:
        the started ``WorkerPool`` (its ``size`` workers), or ``None``.
    """
    if not jobs or (resume and _has_records(Path(out) / ".resume")):
        return None
    steps = [(importlib.import_module, ("autograder.checks.plugin",))]  # the engine: pytest, numpy, the checks
    if limits.confine:
        from autograder.sandbox.matplotlib_cache import ensure
        ensure()  # before any sandbox starts: each copies matplotlib's font list
        expected = dataclasses.replace(limits, level=level if level in ("bubblewrap", "setuid") else "bubblewrap")
        if expected.level == "bubblewrap":  # (the setuid level holds no warm sandbox)
            steps.insert(0, (start_spare, (expected,)))
    size = max(1, min(workers, len({j.student_id for j in jobs})))
    return WorkerPool(size, limits.grader_memory_bytes, at_exit=close_worker, at_start=steps).start()


def preflight_with_workers(jobs: list, limits, level, workers: int, out, resume: bool, meanwhile=None):
    """``preflight.run(jobs, limits.confine, level=level)`` while ``early_pool``'s workers start (in
    a thread of its own, which waits on the test sandbox while this one imports what comes next).

    ``meanwhile``: ``None``, or a check of the caller's run in this thread at the same time (the
    gradebook's points against the checks': importing nbgrader and reading the gradebook take
    about a second, which the workers' start and the test sandbox hide); it raises to stop the
    run before anything is graded.

    Returns: ``(chosen, started)``: the confinement level chosen (``str`` or ``None``) and the started
    ``WorkerPool`` (or ``None``). Raises: ``preflight.PreflightError``, or what ``meanwhile`` raises
    (the workers shut down first)."""
    import concurrent.futures as cf

    from autograder.grading import preflight
    try:  # what the preflight imports, imported here rather than in its thread
        from autograder.sandbox import bubblewrap, levels  # noqa: F401
    except ImportError:
        pass
    started = early_pool(jobs, limits, level, workers, out, resume)
    try:
        with cf.ThreadPoolExecutor(1, thread_name_prefix="preflight") as thread:
            checked = thread.submit(preflight.run, jobs, confined=limits.confine, level=level)
            if meanwhile is not None:
                meanwhile()
            _result_types()  # while the test sandbox runs: what reading results back needs (numpy, pytest)
            return checked.result(), started
    except BaseException:
        if started is not None:
            started.shutdown()
        raise


def _result_types() -> None:
    try:
        import autograder.grading.resume  # noqa: F401 (the result types, numpy and pytest behind them)
    except Exception:  # noqa: BLE001,S110 -- imported again where it is used, and fails there if it must
        pass


def _has_records(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(True for _ in entries)
    except OSError:
        return False
