"""Time limits inside the child: interval timers that raise ``GraderTimeout``.

Two timers run during each call into student code and each notebook cell: wall-clock
time (``ITIMER_REAL``, SIGALRM), the backstop for code that waits (``time.sleep``, a read
that never returns), and CPU time of the process (``ITIMER_PROF``, SIGPROF: user + system
time of all its threads), which a busy machine does not stretch: an endless loop is stopped
after the same amount of work however many other processes share the cores.
"""
import signal

fired = None  # "cpu" or "wall": the timer that raised the last GraderTimeout


class GraderTimeout(BaseException):
    """Raised inside student code when its time budget runs out (a BaseException, so a
    student's ``except Exception`` cannot swallow it)."""


def alarm(seconds, cpu_seconds=0.0):
    """Raise ``GraderTimeout`` in the main thread after ``seconds`` of wall-clock time or
    ``cpu_seconds`` of this process's CPU time, whichever comes first (0 disables that
    timer; ``alarm(0)`` cancels both)."""
    global fired
    fired = None
    signal.setitimer(signal.ITIMER_PROF, max(float(cpu_seconds), 0.0) if seconds else 0.0)
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 0.0))


def _on_alarm(signum, frame):
    global fired
    fired = "cpu" if signum == signal.SIGPROF else "wall"
    signal.setitimer(signal.ITIMER_PROF, 0.0)
    signal.setitimer(signal.ITIMER_REAL, 0.0)
    raise GraderTimeout()


def install():
    """Route SIGALRM and SIGPROF to ``GraderTimeout``; call once at start-up."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)
