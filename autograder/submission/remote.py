"""Run a submission's code in a child process and call its functions from the grader.

``ChildSubmission`` starts the child package (``autograder/child``) in a fresh interpreter
(``python -I``) inside a bubblewrap sandbox (``sandbox/policy.py``: namespaces, an
unprivileged uid, a seccomp allow-list, a private scratch folder, resource limits),
sends it the notebook's code cells, and then forwards calls such as
``submission.function("attention_row")(q, K, V)`` as plain-data requests (``child/wire.py``).

Every failure of student code becomes a ``StudentCodeError`` with a ``kind`` the feedback
can name ("not implemented", "missing", "raised", "timeout", "crashed", "unsendable",
"time budget", "too large"); nothing the student does can raise anything else in the grader.

Each exchange has one deadline (the call's limit, never past what is left of the notebook's
budget) that covers sending, waiting, the child's callbacks (products with weights the
grader keeps, ``submission/counted.py``) and decoding the answer within ``wire.Budget``. Error text from
the child is escaped and capped (``safetext``) as it arrives.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from autograder.sandbox import policy as sandboxing
from autograder.sandbox.levels import new_sandbox
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.sandbox.process import child_pids, interpreter, kill_by_pidfd, open_pidfd
from autograder.sandbox.subreaper import become_subreaper
from autograder.submission.counted import CountedWeights
from autograder.submission.exchange import Exchange

PROJECT_ROOT = Path(__file__).resolve().parents[2]
_HERE = Path(__file__).resolve().parents[1]  # autograder/, which holds child/


def child_command() -> list[str]:
    """argv that starts the child: this interpreter, isolated, importing ``child.main`` from
    the folder that holds the child package (the package removes that folder from
    ``sys.path`` once imported, so the rest of the grader is never importable)."""
    launcher = (f"import sys; sys.path.insert(0, {str(_HERE)!r}); "
                "from child.main import main; main()")
    return [interpreter(), "-I", "-c", launcher]


def child_env(workdir) -> dict[str, str]:
    """Environment of an unconfined child (``--unconfined``): like the sandbox's
    (``policy.child_env``), with ``workdir`` as its home and temporary folder."""
    env = sandboxing.child_env()
    env.update({"HOME": str(workdir), "TMPDIR": str(workdir), "MPLCONFIGDIR": str(Path(workdir) / ".mpl")})
    return env


class SandboxUnavailable(RuntimeError):
    """The sandbox could not start; no student code ran (``str(exc)`` says why)."""


def _limit_child(limits):
    def apply():
        os.setsid()  # own process group, so a kill takes any grandchildren too
        sandboxing.set_limits(limits, processes=False)
    return apply


class ChildSubmission(Exchange):
    """One submission's code, running in its own child process.

    Args:
        cells: the notebook's code cells: ``submission.notebook.Cell``s (hidden-test cells become
            checkpoints), or plain ``(label_index, source)`` pairs.
        limits: a ``Limits``.
        host: a ``warm.StudentSandbox`` of this student (a warm start: the child is forked
            there); ``None``, or a host that fails, starts a cold sandbox of its own.
    Use as a context manager, or call ``close()``; ``close`` kills the child and
    removes its temporary directory.

    The notebook runs up to ``checkpoint`` (a hidden-test cell's grade id; ``None``: to the
    end) when the child starts, and on to later checkpoints with ``advance_to``; a restarted
    child runs again up to the current checkpoint.
    """

    def __init__(self, cells, limits=None, host=None):
        self.cells = list(cells)
        self.host = host
        self.checkpoint = None  # the hidden-test cell the notebook has been run to
        self.cell_errors = {}  # label -> error dict, over every run of the cells
        self.limits = limits or Limits()
        self.proc = None
        self.workdir = None
        self.startup = None  # {"defined": [...], "errors": [...]} of the last start
        self.timed_out = {}  # function names that hung once (later calls get retry_seconds)
        self.dead_reason = None
        self.definitions_only = False  # set when top-level assignments crashed the process
        self.seconds_used = 0.0  # wall-clock seconds spent waiting for this submission
        self.sandbox = None  # bubblewrap.Sandbox of the running child
        self._pidfd = None  # the sandbox's PID 1: killing it ends every process in the sandbox
        self.confinement = "not started"  # how the child was confined (recorded in the reports)
        self._load = None  # a warm start's optional imports (sandbox/needs.py), read once

    # -- life cycle ------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None:
            if self.sandbox is not None:
                self._end_sandbox()
            elif getattr(self.proc, "host", None) is not None:
                self.proc.kill()  # a warm child: its fork server kills and reaps it
            else:
                self._end_unconfined()
            try:
                self._req.close()
            except OSError:
                pass
            os.close(self._resp)
            self.proc = None
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def _end_sandbox(self):
        # SIGKILL to the sandbox's PID 1 makes the kernel kill every process in its PID
        # namespace; its pidfd turns readable only once they are all gone.
        kill_by_pidfd(self._pidfd)
        self._pidfd = None
        try:
            self.proc.wait(timeout=5.0)  # bwrap exits once its sandbox has ended
        except subprocess.TimeoutExpired:
            self.proc.kill()  # --die-with-parent takes the sandbox with it
            self.proc.wait()

    def _end_unconfined(self):
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        # Anything the submission left running (a new session, a double fork) has been
        # reparented to us, the subreaper: end it, and reap it (best effort: unconfined).
        for _ in range(200):
            strays = child_pids() - self._children_before
            if not strays:
                break
            for pid in strays:  # stop them all first, so none can fork again meanwhile
                try:
                    os.kill(pid, 19)  # SIGSTOP
                except (ProcessLookupError, PermissionError):
                    pass
            for pid in strays:
                try:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError, PermissionError):
                    pass

    def _launch(self, argv, fds):
        """Start ``argv`` with descriptors ``fds``: in a sandbox, or unconfined when
        ``limits.confine`` is False. Returns the setup line's ``confine`` entry.

        Raises:
            SandboxUnavailable: bubblewrap could not be started.
        """
        common = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        if self.limits.confine and self.host is not None and self.host.usable:
            from autograder.sandbox.warm import WarmUnavailable
            try:
                if self._load is None:
                    from autograder.sandbox.needs import groups
                    try:
                        self._load = groups(self.cells)
                    except Exception:  # an estimate of cost only: the child imports what it needs
                        self._load = []
                self.proc = self.host.spawn(fds, self._load)
                self.confinement = self.host.description
                return {"scratch": sandboxing.SCRATCH, "processes": self.limits.processes}
            except WarmUnavailable:
                pass  # a cold sandbox of its own, below
        if not self.limits.confine:
            become_subreaper()
            self._children_before = child_pids()
            self.workdir = tempfile.mkdtemp(prefix="submission-")
            self.proc = subprocess.Popen(argv, cwd=self.workdir, env=child_env(self.workdir), pass_fds=fds,
                                         preexec_fn=_limit_child(self.limits), **common)
            self.confinement = "unconfined"
            return None
        try:
            self.sandbox = new_sandbox(self.limits)
        except (RuntimeError, ValueError, OSError, ImportError) as exc:
            raise SandboxUnavailable(f"the sandbox could not start: {exc}") from None
        try:
            self.proc = subprocess.Popen(self.sandbox.command(argv), **self.sandbox.popen_kwargs(fds), **common)
        except (OSError, subprocess.SubprocessError) as exc:
            self.sandbox.close()
            self.sandbox = None
            raise SandboxUnavailable(f"the sandbox could not start ({exc}); see "
                                     "`launch.check_available()`") from None
        self.sandbox.started()
        pid = self.sandbox.child_pid()
        self._pidfd = open_pidfd(pid)  # None when it has already ended
        self.confinement = self.sandbox.description
        confine = {"scratch": getattr(self.sandbox, "scratch", sandboxing.SCRATCH), "processes": self.limits.processes}
        if getattr(self.sandbox, "child_landlock", True) is False:
            confine["landlock"] = False  # tests of the setuid level without Landlock (setuid.WITHOUT_LANDLOCK)
        return confine

    def _start(self, definitions_only=False):
        self.close()
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        try:
            confine = self._launch([*child_command(), str(req_r), str(resp_w)], (req_r, resp_w))
        except BaseException:
            for fd in (req_r, req_w, resp_r, resp_w):
                os.close(fd)
            raise
        os.close(req_r)
        os.close(resp_w)
        self._req = os.fdopen(req_w, "w", encoding="utf-8")
        self._resp = resp_r
        self._buffer = b""
        self._req.write(json.dumps({"project_root": str(PROJECT_ROOT), "confine": confine}) + "\n")
        cells = [c.to_wire() if hasattr(c, "to_wire") else c for c in self.cells]
        answer = self._exchange({"op": "init", "cells": cells, "definitions_only": definitions_only,
                                 "cell_timeout": self.limits.cell_seconds, "stop_at": self.checkpoint,
                                 "cell_cpu_timeout": min(self.limits.cell_cpu_seconds, self.limits.cell_seconds),
                                 "recheck": self.limits.hung_cpu_seconds, "hung": sorted(self.timed_out),
                                 "budget": self._run_budget()},
                                self.limits.startup_seconds)
        report = self._run_report(answer)
        if report is None:
            reason = answer.get("died") or "it did not start"
            self.close()
            raise StudentCodeError("crashed", "notebook", str(reason))
        self.startup = report

    def fresh(self, checkpoint):
        """A new ``ChildSubmission`` of the same cells and limits (in the same student's warm
        sandbox, if any), run to its hidden-test cell ``checkpoint``: the notebook in a state
        none of this one's calls reached (``checks/helpers.judge_excuse`` replays a helper's
        answers there). The caller closes it.

        Raises:
            StudentCodeError: kind "crashed" when the notebook cannot be started at all.
        """
        other = ChildSubmission(self.cells, self.limits, host=self.host)
        try:
            other.advance_to(checkpoint)
        except BaseException:
            other.close()
            raise
        return other

    # -- running the notebook's cells ------------------------------------------
    @property
    def checkpoint_order(self):
        """The hidden-test cells' grade ids, in notebook order."""
        return [c.checkpoint for c in self.cells if getattr(c, "checkpoint", None)]

    def _run_budget(self):
        """Seconds the child may spend running cells in one request: the cell in progress
        may overrun it by one cell's limit, and the answer must arrive before the deadline."""
        return max(1.0, self.limits.startup_seconds - self.limits.cell_seconds - 2.0)

    def _run_report(self, answer):
        """The ``{"defined", "errors"}`` of an init/run_to answer, errors accumulated over
        every run of the cells (by cell label); ``None`` when the answer is not one."""
        report = answer.get("ok")
        if not (isinstance(report, dict) and isinstance(report.get("defined"), list)
                and isinstance(report.get("errors"), list)
                and all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in report["errors"])):
            return None
        for err in report["errors"]:
            self.cell_errors.setdefault(str(err.get("cell")), err)
            if err.get("type") == "Timeout" and isinstance(err.get("function"), str):
                self.timed_out[err["function"]] = True  # it hung in a cell: later calls get retry_seconds
        return {"defined": report["defined"], "errors": list(self.cell_errors.values())}

    def advance_to(self, checkpoint):
        """Run the notebook on to its hidden-test cell ``checkpoint`` (``test_<function>``),
        so that the next calls see the notebook's state there, as nbgrader's hidden test
        cell does. A checkpoint the notebook does not have runs it to the end; one already
        passed runs nothing. A child that dies on the way is restarted by the next call.

        Raises:
            StudentCodeError: kind "crashed" when the notebook cannot be started at all.
        """
        if checkpoint == self.checkpoint and self.proc is not None:
            return
        self.checkpoint = checkpoint
        if self.proc is None:
            self.ensure_started()
            return
        answer = self._exchange({"op": "run_to", "checkpoint": checkpoint, "budget": self._run_budget(),
                                 "hung": sorted(self.timed_out)},
                                self.limits.startup_seconds)
        report = self._run_report(answer)
        if report is not None:
            self.startup = report

    def ensure_started(self):
        """Start the child if it is not running; returns the start-up report.

        Raises:
            StudentCodeError: kind "crashed" when the notebook cannot be started.
        """
        if self.proc is None:
            # (Restarts are budgeted per function, in _request: a function that keeps killing
            # the process costs only its own checks.)
            try:
                self._start(self.definitions_only)
            except StudentCodeError as exc:
                if self.definitions_only:
                    raise
                # Top-level code killed the process (os._exit, a segfault ...): run only
                # the imports, functions and classes, so the functions can still be graded.
                self.definitions_only = True
                self._start(True)
                self.startup = dict(self.startup, errors=self.startup["errors"] + [{
                    "type": "Crash", "where": "start-up",
                    "message": f"running the notebook's top-level code killed Python ({exc.detail}); "
                               "graded with only its imports, functions and classes"}])
        return self.startup

    # -- one exchange ------------------------------------------------------------
    def seconds_left(self):
        """Seconds of the notebook's waiting budget (``Limits.notebook_seconds``) not yet used."""
        return self.limits.notebook_seconds - self.seconds_used


    # -- the interface the checks use ---------------------------------------------
    def function(self, name):
        """A callable that forwards to the student's ``name`` (a function or a class)."""
        def call(*args, **kwargs):
            return self._request({"op": "call", "name": name, "args": args, "kwargs": kwargs}, name)
        call.__name__ = name
        return call

    def call_keeping_args(self, name, *args, **kwargs):
        """Call ``name`` and also return the arguments as they are after the call.

        Returns:
            ``(result, args_after)``: lets a check see whether the student's code
            modified an input array in place.
        """
        return self._request({"op": "call", "name": name, "args": args, "kwargs": kwargs,
                              "return_args": True}, name)

    def call_answered(self, name, table, *args, **kwargs):
        """Call ``name`` with its helpers ``HelperAnswers.names`` answering from ``table`` (a
        ``checks.answered.HelperAnswers``, kept here; the child asks it one call at a time) and
        falling back to the student's own helpers on other inputs."""
        self._helper_answers = table
        try:
            return self._request({"op": "call", "name": name, "args": args, "kwargs": kwargs,
                                  "answered": table.names}, name)
        finally:
            self._helper_answers = None

    def new(self, name, *args, **kwargs):
        """Instantiate the student's class ``name``; returns a ``RemoteObject``."""
        return self._request({"op": "new", "name": name, "args": args, "kwargs": kwargs}, name)

    def probe(self, name, *args):
        """Build one of the child's helper objects (``probes.PROBES``); returns a ``RemoteObject``."""
        return self._request({"op": "probe", "name": name, "args": args}, name)

    def counted_weights(self, values):
        """A weight matrix whose products the grader counts (``counted.CountedWeights``): passed
        to the student's code it arrives as a real array (``child/probes.CountedArray``) whose
        products with token rows are reported to the tally kept here."""
        return CountedWeights(values)
