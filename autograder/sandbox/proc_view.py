"""At the setuid level: a /proc that shows the child no process of another uid.

The setuid level has no PID namespace, so the container's /proc lists every process, and a
child could read their uids, command lines and states by probing ``/proc/N``. Where the
launcher (forked, still root) may make a mount namespace of its own (CAP_SYS_ADMIN), it mounts
a new instance of procfs on ``/proc`` there with ``hidepid=invisible``: a process of another
uid is neither listed nor reachable by its number. Since Linux 5.8 each procfs mount has
options of its own, so the container's /proc is untouched; on an older kernel the options
would be shared by every /proc mount, so nothing is done there. Without CAP_SYS_ADMIN nothing
can be done (``docs/confinement.md`` says what stays visible).
"""
from __future__ import annotations

import os


def _kernel_at_least(major: int, minor: int) -> bool:
    try:
        parts = os.uname().release.split(".")
        return (int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)) >= (major, minor)
    except (ValueError, IndexError):
        return False


def hide_other_processes() -> bool:
    """In the launcher, before it drops root: a private mount namespace whose /proc hides the
    processes of other uids. Returns whether it did (never raises: without it the child still
    runs, with the container's /proc)."""
    if not _kernel_at_least(5, 8):
        return False
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS: needs CAP_SYS_ADMIN
        return False
    if libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0:  # MS_REC | MS_PRIVATE
        return False
    # MS_NOSUID | MS_NODEV | MS_NOEXEC; a new procfs instance, its own options (Linux >= 5.8)
    return libc.mount(b"proc", b"/proc", b"proc", 0x2 | 0x4 | 0x8, b"hidepid=invisible") == 0
