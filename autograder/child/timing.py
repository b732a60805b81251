"""Time limits inside the child: an interval timer that raises ``GraderTimeout``."""
import signal


class GraderTimeout(BaseException):
    """Raised inside student code when its time budget runs out (a BaseException, so a
    student's ``except Exception`` cannot swallow it)."""


def alarm(seconds):
    """Raise ``GraderTimeout`` in the main thread after ``seconds`` (0 cancels)."""
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 0.0))


def _on_alarm(signum, frame):
    raise GraderTimeout()


def install():
    """Route SIGALRM to ``GraderTimeout``; call once at start-up."""
    signal.signal(signal.SIGALRM, _on_alarm)
