"""Time limits inside the child: interval timers that raise ``GraderTimeout``.

Two timers run during each call into student code and each notebook cell: wall-clock
time (``ITIMER_REAL``, SIGALRM), the backstop for code that waits (``time.sleep``, a read
that never returns), and CPU time of the process (``ITIMER_PROF``, SIGPROF: user + system
time of all its threads), which a busy machine does not stretch: an endless loop is stopped
after the same amount of work however many other processes share the cores.

A function that has run out of time once (``hung``) is watched more closely afterwards:
with ``alarm(..., recheck=s)`` the CPU timer ticks every ``s`` seconds, and a tick that finds
such a function running (a notebook frame of that name on the stack) stops the code there.
A notebook whose function loops forever then pays the full limit once, and ``s`` for every
later cell, visible check or call that runs into the same loop.
"""
import signal

fired = None  # "cpu" or "wall": the timer that raised the last GraderTimeout
cut_in = None  # the hung function a recheck found running, when that stopped the code
hung: set[str] = set()  # names of notebook functions that ran out of time once in this process
_rest = 0.0  # CPU seconds the limit still grants after the current tick
_tick = 0.0  # CPU seconds between rechecks (0: no rechecks)
# Run just before a timer raises: a repetition's answers not yet sent go out first
# (``repeat.py``), so code that swallows the timeout and is killed by the grader loses none.
before_raise = None


class GraderTimeout(BaseException):
    """Raised inside student code when its time budget runs out (a BaseException, so a
    student's ``except Exception`` cannot swallow it)."""


def alarm(seconds, cpu_seconds=0.0, recheck=0.0):
    """Raise ``GraderTimeout`` in the main thread after ``seconds`` of wall-clock time or
    ``cpu_seconds`` of this process's CPU time, whichever comes first (0 disables that
    timer; ``alarm(0)`` cancels both). With ``recheck`` (CPU seconds, below ``cpu_seconds``)
    and functions in ``hung``, also every ``recheck`` CPU seconds when one of them is running."""
    global fired, cut_in, _rest, _tick
    fired = cut_in = None
    cpu = max(float(cpu_seconds), 0.0) if seconds else 0.0
    _tick = float(recheck) if cpu and hung and 0.0 < float(recheck) < cpu else 0.0
    first = _tick or cpu
    _rest = cpu - first
    signal.setitimer(signal.ITIMER_PROF, first)
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 0.0))


def running_notebook_function(frame, names):
    """The first of ``names`` that a notebook frame on ``frame``'s stack runs, or ``None``."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in names and code.co_filename.startswith("<cell "):
            return code.co_name
        frame = frame.f_back
    return None


def note_hung(tb):
    """Add to ``hung`` the innermost named notebook function running at traceback ``tb`` (the
    one a timeout stopped); returns its name or ``None`` (the cell's own top-level code, or
    only lambdas and comprehensions, whose shared names would put every other one under watch)."""
    name = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<cell ") and not code.co_name.startswith("<"):
            name = code.co_name
        tb = tb.tb_next
    if name is not None:
        hung.add(name)
    return name


def _on_alarm(signum, frame):
    global fired, cut_in, _rest
    if signum == signal.SIGPROF and _rest > 0.0:
        name = running_notebook_function(frame, hung)
        if name is None:  # no hung function running: on to the next tick
            step = min(_tick, _rest) if _tick else _rest
            _rest -= step
            signal.setitimer(signal.ITIMER_PROF, step)
            return
        cut_in = name
    fired = "cpu" if signum == signal.SIGPROF else "wall"
    _rest = 0.0
    signal.setitimer(signal.ITIMER_PROF, 0.0)
    signal.setitimer(signal.ITIMER_REAL, 0.0)
    if before_raise is not None:
        before_raise()
    raise GraderTimeout()


def install():
    """Route SIGALRM and SIGPROF to ``GraderTimeout``; call once at start-up."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)
