"""The child's process, as both launchers (``bubblewrap.py``, ``setuid.py``) and their callers
(``submission/remote.py``, ``sandbox/warm.py``) handle it: its pid from the launcher's info pipe, a pidfd on it,
and the kill through that pidfd that ends every process of the sandbox."""
from __future__ import annotations

import json
import os
import select
import signal
import sys
import time


def read_child_pid(info_r: int | None, timeout: float = 5.0) -> int | None:
    """The pid written as JSON ``{"child-pid": N}`` on the pipe ``info_r`` (bwrap's ``--info-fd``, or the
    setuid launcher between fork and exec), waiting at most ``timeout`` seconds; ``None`` if unknown."""
    data = b""
    deadline = time.monotonic() + timeout
    while info_r is not None and time.monotonic() < deadline:
        ready, _, _ = select.select([info_r], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(info_r, 4096)
        if not chunk:
            break
        data += chunk
        try:
            return int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def open_pidfd(pid: int | None) -> int | None:
    """A pidfd on ``pid`` (``os.pidfd_open``), or ``None`` when ``pid`` is unknown or has already ended."""
    try:
        return os.pidfd_open(pid) if pid else None
    except OSError:
        return None


def kill_by_pidfd(pidfd: int | None, wait_seconds: float = 10.0) -> None:
    """SIGKILL the process behind ``pidfd`` and wait (up to ``wait_seconds``) until it is gone, then close
    the pidfd. For a sandbox's PID 1 the kernel then kills every process of its PID namespace, and the
    pidfd turns readable only once they are all gone. ``None`` does nothing."""
    if pidfd is None:
        return
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        select.select([pidfd], [], [], wait_seconds)
    except OSError:
        pass
    os.close(pidfd)


def close_fds(*fds: int | None) -> None:
    """Close each descriptor that is not ``None``, ignoring one already closed."""
    for fd in fds:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


def child_pids() -> set[int]:
    """Pids of this process's direct children (from /proc; empty where /proc is missing)."""
    me = str(os.getpid())
    found: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[1].decode() == me:
                found.add(int(entry))
    return found


def interpreter() -> str:
    """This interpreter's path for a sandbox to start (``str``), with no symbolic link in its folders.

    A sandbox shows each folder at its real path (``policy.visible_paths``) and nothing of the way
    there, so a path that reaches the interpreter through a link (a path through ``..``, a ``.venv``
    that is a link to another venv, ``~/bin/python`` linking to an installation) cannot be started
    inside it. The folders are therefore resolved. In a virtual environment the file name is kept
    (its ``bin/python`` must stay the link that finds ``pyvenv.cfg`` beside it, and with it the
    venv's packages); elsewhere the interpreter itself is resolved too.
    """
    path = os.path.abspath(sys.executable)
    folder = os.path.realpath(os.path.dirname(path))
    if any(os.path.isfile(os.path.join(f, "pyvenv.cfg")) for f in (folder, os.path.dirname(folder))):
        return os.path.join(folder, os.path.basename(path))
    return os.path.realpath(path)

