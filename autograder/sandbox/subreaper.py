"""Adopting orphans: processes a submission leaves behind must stay within our reach.

A submission's code may start a daemon (a double fork) whose parent exits at once; Linux
then hands it to the nearest "child subreaper" above it instead of PID 1. The unconfined
child (``submission/remote.py``) and Gradescope's watchdog (``gradescope.container.run``) make
themselves that subreaper so they can find and end such processes. Standard library only.
"""
from __future__ import annotations

PR_SET_CHILD_SUBREAPER = 36  # prctl option, <linux/prctl.h> (Linux 3.4+)


def become_subreaper() -> None:
    """Make this process the subreaper of its descendants (``prctl(PR_SET_CHILD_SUBREAPER, 1)``).

    Orphaned descendants then become children of this process, so they can be listed and
    killed. Does nothing where ``prctl`` is unavailable (not Linux); never raises.
    Returns ``None``.
    """
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
