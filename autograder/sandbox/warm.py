"""A warm start per student: one sandbox per student, one fresh forked process per notebook.

A cold notebook pays bubblewrap, a new interpreter, numpy, matplotlib and the child's code
(``benchmarks/profile_grading.py`` measures it). ``StudentSandbox(limits)`` starts one
bubblewrap sandbox (``bubblewrap.Sandbox``: its own namespaces, uid when grading as root,
resource limits, read-only view) whose program is the fork server ``child/forkserver.py``:
it imports numpy and the child's code once (matplotlib's pyplot and tiktoken only when a
notebook of the student needs them: ``sandbox/needs.py``), then forks one process per notebook. Each forked process
installs the seccomp allow-list (the same compiled filter bubblewrap gives a cold child)
before it runs anything else, then confines itself as a cold child does (only its two
pipes, RLIMIT_NPROC, Landlock) and serves the grader exactly like one.

Guarantees (the same as a cold start):

* nothing passes between students: a ``StudentSandbox`` serves one student's notebooks only
  (``sandbox/spare.py``), and each student's sandbox is its own (its own uid as root);
* nothing passes between notebooks: each runs in a new process forked from a server that
  never ran student code; the notebook's process cannot create processes (seccomp), so
  ``end`` (SIGKILL, reap) ends all of it, and the scratch folder is emptied after it;
* every system call of student code passes the seccomp filter; the server itself runs only
  the grader's code (see ``child/forkserver.py`` for why the notebook cannot reach it).

``ChildSubmission(cells, limits, host=box)`` uses it (``submission/remote.py``); when the server cannot
start or stops answering, the notebook falls back to a cold sandbox of its own.
"""
from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import time

from autograder.sandbox.bubblewrap import Sandbox
from autograder.sandbox.process import interpreter, kill_by_pidfd, open_pidfd

_CHILD_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # autograder/, which holds child/


def server_command() -> list[str]:
    """argv of the fork server (after it, the control socket's and the filter's descriptors)."""
    launcher = (f"import sys; sys.path.insert(0, {_CHILD_PARENT!r}); "
                "from child.forkserver import main; main()")
    return [interpreter(), "-I", "-c", launcher]


class WarmUnavailable(RuntimeError):
    """The fork server could not start or stopped answering (``str`` says why)."""


class StudentSandbox:
    """One student's sandbox holding a fork server (see module docstring).

    Args:
        limits: ``limits.Limits`` (the sandbox's resource limits, ``startup_seconds`` for
            the server's first answer).
    Raises:
        WarmUnavailable: bubblewrap could not be started.
    Use as a context manager, or call ``close()`` (kills the sandbox and everything in it).
    """

    def __init__(self, limits):
        self.limits = limits
        self.broken = None  # why it can no longer be used, once it cannot
        self.proc = self._pidfd = None
        self.spawned = 0  # processes forked so far (notebooks and their restarts)
        self.loaded = set()  # optional groups the server was asked to import (``spawn``'s ``load``)
        try:
            self.sandbox = Sandbox(limits)
        except (RuntimeError, ValueError, OSError) as exc:
            raise WarmUnavailable(f"the sandbox could not start: {exc}") from None
        self.description = self.sandbox.description
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            argv = [*server_command(), str(theirs.fileno()), str(self.sandbox.seccomp_fd)]
            self.proc = subprocess.Popen(self.sandbox.command(argv, seccomp=False),
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL,
                                         **self.sandbox.popen_kwargs((theirs.fileno(),)))
        except (OSError, subprocess.SubprocessError) as exc:
            ours.close()
            self.sandbox.close()
            raise WarmUnavailable(f"the sandbox could not start: {exc}") from None
        finally:
            theirs.close()
        self.sandbox.started()
        self._sock = ours
        self._buffer = b""
        pid = self.sandbox.child_pid()
        self._pidfd = open_pidfd(pid)
        self._first = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def usable(self):
        return self.broken is None and self.proc is not None

    def _ask(self, message, fds=(), seconds=10.0):
        """Send ``message`` (with descriptors ``fds``), return the server's answer (a dict).

        Raises:
            WarmUnavailable: no answer within ``seconds`` (the sandbox is then closed).
        """
        if not self.usable:
            raise WarmUnavailable(self.broken or "closed")
        deadline = time.monotonic() + seconds
        try:
            data = json.dumps(message).encode() + b"\n"
            sent = socket.send_fds(self._sock, [data], list(fds)) if fds else self._sock.send(data)
            if sent != len(data):
                raise OSError("short write")
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._sock], [], [], left)[0]:
                    raise TimeoutError(f"no answer within {seconds:g} s")
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    raise OSError("the fork server exited")
                self._buffer += chunk
            line, self._buffer = self._buffer.split(b"\n", 1)
            return json.loads(line)
        except (OSError, ValueError) as exc:
            self.broken = f"the fork server stopped answering ({exc})"
            self.close()
            raise WarmUnavailable(self.broken) from None

    def spawn(self, fds, load=()):
        """Fork a fresh child that serves the grader on ``fds`` = (request pipe's read end,
        answer pipe's write end). Returns a ``WarmChild``.

        ``load``: optional groups the server imports first, once per sandbox
        (``"matplotlib"``, ``"tiktoken"``: ``sandbox/needs.py`` names those a notebook needs).

        Raises:
            WarmUnavailable: the server did not answer (the first answer, and one that
                imports a group, may take the server's start-up: ``limits.startup_seconds``).
        """
        new = sorted(set(load) - self.loaded)
        seconds = self.limits.startup_seconds if self._first or new else 10.0
        answer = self._ask({"op": "spawn", "load": new}, fds, seconds)
        self._first = False
        if isinstance(answer.get("loaded"), list):  # what the server holds now (it skips a
            self.loaded = set(answer["loaded"])      # load while another notebook runs)
        if not isinstance(answer.get("pid"), int) or answer["pid"] <= 0:
            self.broken = f"the fork server could not fork ({answer})"
            self.close()
            raise WarmUnavailable(self.broken)
        self.spawned += 1
        return WarmChild(self, answer["pid"])

    def modules(self) -> list[str]:
        """The top-level module names imported in the fork server (what its children start
        with), sorted. Raises ``WarmUnavailable`` when the server does not answer."""
        seconds = self.limits.startup_seconds if self._first else 10.0
        answer = self._ask({"op": "modules"}, (), seconds)
        return list(answer.get("modules", []))

    def close(self):
        """End the sandbox and every process in it (SIGKILL to its PID 1), release its uid."""
        kill_by_pidfd(self._pidfd)
        self._pidfd = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
            self._sock.close()
        if getattr(self, "sandbox", None) is not None:
            self.sandbox.close()
            self.sandbox = None
        if self.broken is None:
            self.broken = "closed"


class WarmChild:
    """A notebook's process forked by a ``StudentSandbox``; ``wait``, ``kill`` and ``poll``
    as ``subprocess.Popen``'s (the pid is the one inside the sandbox)."""

    def __init__(self, host, pid):
        self.host, self.pid = host, pid
        self.returncode = None
        self._ended = False

    def end(self, wait=0.0):
        """Wait up to ``wait`` s for the process to exit, then kill it; empties the scratch
        folder. Returns its status as ``Popen.returncode`` (-N: killed by signal N; None: unknown)."""
        if not self._ended:
            self._ended = True
            try:
                self.returncode = self.host._ask({"op": "end", "pid": self.pid, "wait": wait},
                                                 seconds=wait + 10.0).get("status")
            except WarmUnavailable:
                self.returncode = None  # the whole sandbox was ended with it
        return self.returncode

    def wait(self, timeout=None):
        return self.end(5.0 if timeout is None else timeout)

    def kill(self):
        self.end(0.0)

    def poll(self):
        return self.returncode
