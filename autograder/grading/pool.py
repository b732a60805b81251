"""A pool of grading processes that can tell which job a dead worker was running.

``concurrent.futures.ProcessPoolExecutor`` reports a worker that died only as a broken pool
(``BrokenProcessPool`` on every unfinished future), and keeps its worker processes to itself.
``WorkerPool`` wraps it with what ``workers.grade_all`` needs to blame the right notebook:
each worker announces ``(key, pid)`` when it starts a job, a thread of the pool reads each
announcement as it comes and keeps each worker's last (``last_started``), and the pool keeps
every worker process it launched, so their exit codes can be read after a shutdown
(``exit_codes``). The announcements go through a pipe, which holds about 2,700 of them: read
only after the pool ended, a class of more notebooks stopped every worker in mid-announcement
(``tests/project/test_module_shape.py`` announces 5,000). Workers are started with ``spawn``, never ``fork`` or ``forkserver`` (a
forkserver listens on a unix socket that a submission could connect to and have an unconfined
process forked for it); each dies with the process that made the pool and may get its own
address-space limit.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import threading

_started = None  # in a worker: the queue on which it announces each job it starts


def _nothing():
    """A job that does nothing: what ``WorkerPool.start`` submits to have the workers started."""


def _init_worker(started, memory_bytes, at_exit=None, at_start=None):
    """Pool initializer: its own address-space limit, the queue for start notices, and death
    with the grading command (a run stopped with Ctrl-C or SIGTERM must not leave workers
    grading on, and each worker's sandboxes die with it: ``--die-with-parent``)."""
    global _started
    _started = started
    parent = os.getppid()
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the command died before the line above took effect
        os._exit(1)
    if at_exit is not None:
        from multiprocessing import util
        util.Finalize(None, at_exit, exitpriority=100)  # e.g. the last student's sandbox ends with the worker
    # Each notebook's pytest session would scan every installed package's entry points for
    # plugins (anyio's, platformdirs'); the checks need none of them (plugin.run_checks).
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if memory_bytes:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    for function, args in at_start or ():  # e.g. a spare sandbox started ahead, the engine imported
        try:
            function(*args)
        except Exception:  # noqa: BLE001,S110 -- only a head start: the jobs do it again if needed
            pass


def announce(key) -> None:
    """In a worker: say that job ``key`` starts here (``WorkerPool.last_started``). A task that
    runs several jobs in turn announces each as it starts it."""
    _started.put((key, os.getpid()))


def _announced(key, fn, args):
    """In a worker: say that job ``key`` starts here (unless ``key`` is None), then run it."""
    if key is not None:
        announce(key)
    return fn(*args)


class _RecordingContext:
    """The ``spawn`` context, except that it keeps every ``Process`` it makes (in ``processes``).

    ``ProcessPoolExecutor`` creates its workers through ``mp_context.Process``; everything
    else is the stock context's.
    """

    def __init__(self):
        self._base = multiprocessing.get_context("spawn")
        self.processes = []

    def __getattr__(self, name):
        return getattr(self._base, name)

    def Process(self, *args, **kwargs):  # noqa: N802 (the context API's name)
        process = self._base.Process(*args, **kwargs)
        self.processes.append(process)
        return process


class WorkerPool:
    """``size`` spawned worker processes running submitted jobs; use it once, then ``shutdown``.

    Args:
        size: number of workers (``int`` >= 1).
        memory_bytes: each worker's address-space limit (``RLIMIT_AS``, bytes), or ``None``.
        at_exit: a function (picklable: defined at module level) each worker runs when it
            exits, e.g. closing its warm sandboxes (``spare.close_worker``), or ``None``.
        at_start: ``[(function, args), ...]`` (picklable) each worker runs in turn once it has
            started, after its limits are set (``early.early_pool``); their exceptions are ignored.
    """

    def __init__(self, size, memory_bytes=None, at_exit=None, at_start=None):
        self.size = size
        self._context = _RecordingContext()
        self._started = self._context.SimpleQueue()
        self._last: dict = {}  # worker pid -> the key it announced last
        self._stopping = threading.Event()
        self._reader = threading.Thread(target=self._read_announcements, daemon=True, name="pool-announcements")
        self._reader.start()
        self._executor = cf.ProcessPoolExecutor(max_workers=size, mp_context=self._context,
                                                initializer=_init_worker,
                                                initargs=(self._started, memory_bytes, at_exit, at_start))

    def submit(self, key, fn, *args):
        """Run ``fn(*args)`` in a worker (``fn`` and ``args`` must pickle); ``key`` names the job
        in ``last_started`` (``None``: ``fn`` announces its jobs itself, ``announce``). Returns a
        ``concurrent.futures.Future``; its ``result()`` raises
        ``concurrent.futures.process.BrokenProcessPool`` when a worker of the pool died."""
        return self._executor.submit(_announced, key, fn, args)

    def start(self):
        """Start the ``size`` workers now, before any job is submitted (each runs ``at_start``),
        e.g. while the caller checks what grading needs (``class_run.preflight``)."""
        for _ in range(self.size):
            self._executor.submit(_announced, None, _nothing, ())
        return self

    def shutdown(self):
        """Cancel jobs not yet started, wait for the workers to end, then for the announcements."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._stopping.set()
        self._reader.join()

    def _read_announcements(self):
        """In a thread: each ``(key, pid)`` announced, as it comes, until ``shutdown`` and the pipe is
        empty. It polls (``empty``) rather than wait on a sentinel: a sentinel written at shutdown would
        need the queue's write lock, which a worker killed in mid-announcement keeps."""
        while True:
            try:
                if self._started.empty():
                    if self._stopping.is_set():
                        return
                    self._stopping.wait(0.05)
                    continue
                key, pid = self._started.get()
            except (EOFError, OSError):
                return
            self._last[pid] = key

    def last_started(self):
        """``{worker pid: key}``: the job each worker announced last, the one it is running or ran
        last (read after ``shutdown``, it holds every announcement)."""
        return dict(self._last)

    def exit_codes(self):
        """``{pid: exit code}`` of every worker launched (``None`` while it runs; ``-N``: killed
        by signal N). After ``shutdown`` all are final."""
        return {p.pid: p.exitcode for p in self._context.processes if p.pid is not None}
