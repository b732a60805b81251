"""Run a submission's code in a child process and call its functions from the grader.

``ChildSubmission`` starts the child package (``autograder/child``) in a fresh interpreter
(``python -I``) inside a bubblewrap sandbox (``confinement.py``: namespaces, an
unprivileged uid, a seccomp allow-list, a private scratch folder, resource limits),
sends it the notebook's code cells, and then forwards calls such as
``submission.function("attention_row")(q, K, V)`` as plain-data requests (``child/wire.py``).

Every failure of student code becomes a ``StudentCodeError`` with a ``kind`` the feedback
can name ("not implemented", "missing", "raised", "timeout", "crashed", "unsendable",
"time budget", "too large"); nothing the student does can raise anything else in the grader.

Each exchange has one deadline (the call's limit, never past what is left of the notebook's
budget) that covers sending, waiting, the child's callbacks (products with weights the
grader keeps, ``counted.py``) and decoding the answer within ``wire.Budget``. Error text from
the child is escaped and capped (``safetext``) as it arrives.
"""
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import confinement as sandboxing
from . import safetext
from .launch import Sandbox  # noqa: F401 (the bubblewrap level; levels.new_sandbox picks one)
from .levels import new_sandbox
from .child import wire
from .counted import CountedWeights, WeightsRegistry
from .limits import Limits, StudentCodeError
from .subreaper import become_subreaper

PROJECT_ROOT = Path(__file__).resolve().parent.parent
_HERE = Path(__file__).resolve().parent


def child_command():
    """argv that starts the child: this interpreter, isolated, importing ``child.main`` from
    the folder that holds the child package (the package removes that folder from
    ``sys.path`` once imported, so the rest of the grader is never importable)."""
    launcher = (f"import sys; sys.path.insert(0, {str(_HERE)!r}); "
                "from child.main import main; main()")
    return [sys.executable, "-I", "-c", launcher]


def child_env(workdir):
    """Environment of an unconfined child (``--unconfined``): like the sandbox's
    (``confinement.child_env``), with ``workdir`` as its home and temporary folder."""
    env = sandboxing.child_env()
    env.update({"HOME": str(workdir), "TMPDIR": str(workdir), "MPLCONFIGDIR": str(Path(workdir) / ".mpl")})
    return env


class SandboxUnavailable(RuntimeError):
    """The sandbox could not start; no student code ran (``str(exc)`` says why)."""


def _children():
    """Pids of this process's direct children (from /proc; empty where /proc is missing)."""
    me = str(os.getpid())
    found = set()
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


def _limit_child(limits):
    def apply():
        os.setsid()  # own process group, so a kill takes any grandchildren too
        sandboxing.set_limits(limits, processes=False)
    return apply


class RemoteObject:
    """A student object living in the child (e.g. a ``KVCache`` instance)."""

    def __init__(self, submission, handle, type_name, label):
        self._submission, self._handle = submission, handle
        self._type, self._label = type_name, label

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._submission._request({"op": "getattr", "handle": self._handle, "attr": name},
                                          f"{self._label}.{name}")
        if isinstance(value, dict) and "__callable__" in value:
            def method(*args, **kwargs):
                return self._submission._request(
                    {"op": "method", "handle": self._handle, "method": name,
                     "args": args, "kwargs": kwargs}, f"{self._label}.{name}")
            return method
        return value

    def __len__(self):
        return self._submission._request({"op": "len", "handle": self._handle}, f"len({self._label})")

    def __call__(self, *args, **kwargs):
        """Call the object in the child (a probe that is a function, e.g. the model a
        ``generate`` check hands in), so the grader can rerun a reference with it."""
        return self._submission._request({"op": "method", "handle": self._handle, "method": "__call__",
                                          "args": args, "kwargs": kwargs}, f"{self._label}()")

    def __repr__(self):
        return f"<{self._type} in the submission>"


def _to_wire_args(value, registry=None):
    if isinstance(value, RemoteObject):
        return {"__handle__": value._handle}
    if isinstance(value, CountedWeights):
        return registry.add(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_wire_args(v, registry) for v in value)
    if isinstance(value, dict):
        return {k: _to_wire_args(v, registry) for k, v in value.items()}
    return value


def clean_error(err):
    """The ``{"type", "message", "where"}`` a child reported, as capped, escaped text
    (``None`` when it is not such a dict)."""
    if not isinstance(err, dict) or not isinstance(err.get("type"), str):
        return None
    where = err.get("where")
    return {"type": safetext.clean(err["type"], safetext.NAME_CHARS),
            "message": safetext.clean(err.get("message") or "", safetext.MESSAGE_CHARS),
            "where": safetext.clean(where, safetext.WHERE_CHARS) if where else None}


class ChildSubmission:
    """One submission's code, running in its own child process.

    Args:
        cells: the notebook's code cells: ``notebook_code.Cell``s (hidden-test cells become
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
        self.restarts = 0
        self.startup = None  # {"defined": [...], "errors": [...]} of the last start
        self.timed_out = {}  # function names that hung once (later calls get retry_seconds)
        self.dead_reason = None
        self.definitions_only = False  # set when top-level assignments crashed the process
        self.seconds_used = 0.0  # wall-clock seconds spent waiting for this submission
        self.sandbox = None  # launch.Sandbox of the running child
        self._pidfd = None  # the sandbox's PID 1: killing it ends every process in the sandbox
        self.confinement = "not started"  # how the child was confined (recorded in the reports)

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
        if self._pidfd is not None:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
                select.select([self._pidfd], [], [], 10.0)
            except OSError:
                pass
            os.close(self._pidfd)
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
            strays = _children() - self._children_before
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
            from .warm import WarmUnavailable
            try:
                self.proc = self.host.spawn(fds)
                self.confinement = self.host.description
                return {"scratch": sandboxing.SCRATCH, "processes": self.limits.processes}
            except WarmUnavailable:
                pass  # a cold sandbox of its own, below
        if not self.limits.confine:
            become_subreaper()
            self._children_before = _children()
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
        try:
            self._pidfd = os.pidfd_open(pid) if pid else None
        except OSError:  # it has already ended
            self._pidfd = None
        self.confinement = self.sandbox.description
        return {"scratch": getattr(self.sandbox, "scratch", sandboxing.SCRATCH), "processes": self.limits.processes}

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
            if self.startup is not None:
                self.restarts += 1
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

    def _exchange(self, message, seconds):
        t0 = time.monotonic()
        try:
            return self._exchange_timed(message, seconds)
        finally:
            self.seconds_used += time.monotonic() - t0

    def _send(self, text, deadline):
        """Write ``text`` to the child without ever blocking past ``deadline``.

        Returns ``None`` when written, else a ``_died``-style answer."""
        try:
            self._req.flush()  # the start-up line, written through the file object
            fd = self._req.fileno()
            os.set_blocking(fd, False)
        except (OSError, ValueError):
            return self._died("it exited")
        view = memoryview(text.encode("utf-8"))
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._died("it stopped reading its requests", timeout=True)
            _, writable, _ = select.select([], [fd], [], left)
            if not writable:
                continue
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except OSError:
                return self._died("it exited")
        return None

    def _exchange_timed(self, message, seconds):
        # One deadline covers the whole exchange: sending, the child's work, its callbacks
        # and decoding the answer; it never reaches past the notebook's remaining budget.
        now = time.monotonic()
        budget_ends = now + max(0.0, self.seconds_left())
        deadline = min(now + seconds + 2.0, budget_ends)  # the child's own alarm fires first
        # Each request carries a random id that its answer must echo: a line the student's
        # code writes into the channel itself is skipped, and cannot shift later answers.
        request_id = secrets.token_hex(8)
        try:
            text = json.dumps(wire.to_wire(dict(message, id=request_id)), separators=(",", ":")) + "\n"
        except ValueError as exc:
            raise StudentCodeError("unsendable", str(message.get("name") or message.get("op")),
                                   f"arguments that cannot be sent ({exc})") from None
        failed = self._send(text, deadline)
        if failed:
            return failed
        lines = []
        while True:
            while not lines:
                while b"\n" not in self._buffer:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return self._too_late(deadline, budget_ends, seconds)
                    ready, _, _ = select.select([self._resp], [], [], left)
                    if not ready:
                        continue
                    chunk = os.read(self._resp, 1 << 20)
                    if not chunk:
                        return self._died(self._exit_reason())
                    self._buffer += chunk
                    if len(self._buffer) > self.limits.response_bytes:
                        return dict(self._died(f"answer larger than {self.limits.response_bytes} bytes"),
                                    too_large=True)
                # All complete lines at once (one partition per line would be quadratic in a
                # flood of short lines); what follows the last newline waits for more.
                *lines, self._buffer = self._buffer.split(b"\n")
                lines.reverse()
            line = lines.pop()
            if time.monotonic() > deadline:  # a flood of lines must not outlast the deadline
                return self._too_late(deadline, budget_ends, seconds)
            if request_id.encode() not in line:
                continue  # not an answer to this request: something the student's code wrote
            try:
                answer = wire.loads(line.decode("utf-8", errors="replace"),
                                    wire.Budget(deadline=deadline), max_chars=self.limits.response_bytes)
            except wire.WireError as exc:
                # The line was read whole, but the child may still be answering: end it.
                return dict(self._died(f"its answer was refused: {exc}"), too_large=True)
            except MemoryError:
                return dict(self._died("its answer does not fit in the grader's memory"), too_large=True)
            except ValueError:
                continue  # not JSON: something the student's code printed into the channel
            if not (isinstance(answer, dict) and answer.get("id") == request_id):
                continue
            if "callback" in answer:  # the child asks for a product with weights we keep
                reply = self._weights_registry().answer(answer["callback"])
                failed = self._send(json.dumps(wire.to_wire(reply), separators=(",", ":")) + "\n", deadline)
                if failed:
                    return failed
                continue
            return answer

    def _too_late(self, deadline, budget_ends, seconds):
        if deadline >= budget_ends:
            return dict(self._died("the notebook used up its grading time", timeout=True), budget=True)
        return self._died(f"no answer within {seconds:g} s", timeout=True)

    def _exit_reason(self):
        try:
            code = self.proc.wait(timeout=5) if self.proc else None
        except subprocess.TimeoutExpired:  # it closed the channel but lives on
            return "it closed its answer channel"
        if code is not None and self.sandbox is not None and 128 < code < 160:
            code = 128 - code  # bwrap reports a child killed by signal N as status 128 + N
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            hint = " (out of memory?)" if name in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""
            return f"killed by {name}{hint}"
        return f"it exited with status {code}"

    def _died(self, reason, timeout=False):
        self.dead_reason = reason
        self.close()
        return {"died": reason, "timeout": timeout}

    def _weights_registry(self):
        if getattr(self, "_weights", None) is None:
            self._weights = WeightsRegistry()
        return self._weights

    def _request(self, message, label):
        fn = message.get("name") or label
        if self.seconds_left() <= 0:
            raise StudentCodeError("time budget", label, f"the notebook used up its {self.limits.notebook_seconds:g} s "
                                   "of grading time")
        crashes = getattr(self, "crashes", None)
        if crashes is None:
            crashes = self.crashes = {}
        if crashes.get(fn, 0) >= self.limits.max_restarts:
            raise StudentCodeError("crashed", label, f"{self.dead_reason or 'it died'}; {fn} was not run again "
                                   f"after it crashed {crashes[fn]} times")
        # A function that hung once gets a short limit from then on: its other checks
        # still run (a hang may depend on the input), but it cannot cost minutes.
        seconds = self.limits.retry_seconds if fn in self.timed_out else self.limits.call_seconds
        cpu_seconds = min(self.limits.call_cpu_seconds, seconds)  # CPU time: a busy machine does not stretch it
        try:
            self.ensure_started()
        except StudentCodeError:
            crashes[fn] = crashes.get(fn, 0) + 1
            raise
        registry = self._weights_registry()
        message = dict(message, args=_to_wire_args(message.get("args", []), registry),
                       kwargs=_to_wire_args(message.get("kwargs", {}), registry), timeout=seconds,
                       cpu_timeout=cpu_seconds)
        answer = self._exchange(message, seconds)
        if "died" in answer and not answer.get("timeout"):
            crashes[fn] = crashes.get(fn, 0) + 1
        return self._interpret(answer, fn, label, seconds)

    def _interpret(self, answer, fn, label, seconds):
        if answer.get("budget"):
            raise StudentCodeError("time budget", label, "stopped: the notebook used up its "
                                   f"{self.limits.notebook_seconds:g} s of grading time")
        if answer.get("too_large"):
            raise StudentCodeError("too large", label, answer["died"])
        if "timeout" in answer and ("died" not in answer or answer["timeout"]):
            self.timed_out[fn] = True
            cut_in = answer.get("cut_in")
            if answer.get("cpu") is True and isinstance(cut_in, str):  # see child/timing.py
                # "did not return within" as every timeout says (class_report reads it from text)
                if cut_in == fn:
                    why = "it had already run out of time once"
                else:
                    why = f"stopped inside {safetext.clean(cut_in, safetext.NAME_CHARS)}, which had already run out of time once"
                raise StudentCodeError("timeout", label, f"did not return within {self.limits.hung_cpu_seconds:g} s "
                                       f"of CPU time ({why})")
            if answer.get("cpu") is True:  # the child's CPU timer (the limit is ours, not its word)
                raise StudentCodeError("timeout", label, f"did not return within "
                                       f"{min(self.limits.call_cpu_seconds, seconds):g} s of CPU time")
            raise StudentCodeError("timeout", label, f"did not return within {seconds:g} s")
        if "died" in answer:
            raise StudentCodeError("crashed", label, answer["died"])
        if "missing" in answer:
            raise StudentCodeError("missing", label)
        if "error" in answer:
            err = clean_error(answer["error"])
            if err is None:
                self._died("it broke the answer format")
                raise StudentCodeError("crashed", label, "it broke the answer format")
            if err["type"] == "NotImplementedError":
                raise StudentCodeError("not implemented", label)
            if err["type"] == "UnsendableResult":
                raise StudentCodeError("unsendable", label, "returned a value that cannot be sent back "
                                       f"as numbers, strings, lists, tuples or dicts ({err['message']})")
            detail = f"{err['type']}: {err['message']}" if err["message"] else err["type"]
            raise StudentCodeError("raised", label, detail, err["where"])
        if "ok" not in answer:
            self._died("it broke the answer format")
            raise StudentCodeError("crashed", label, "it broke the answer format")
        value = answer["ok"]
        if isinstance(value, dict) and "__handle__" in value and set(value) <= {"__handle__", "type"}:
            value = RemoteObject(self, value["__handle__"], safetext.clean(value.get("type", "object"),
                                                                           safetext.NAME_CHARS), label)
        if "args_after" in answer:
            return value, answer["args_after"]
        return value

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

    def new(self, name, *args, **kwargs):
        """Instantiate the student's class ``name``; returns a ``RemoteObject``."""
        return self._request({"op": "new", "name": name, "args": args, "kwargs": kwargs}, name)

    def probe(self, name, *args):
        """Build one of the child's helper objects (``child.PROBES``); returns a ``RemoteObject``."""
        return self._request({"op": "probe", "name": name, "args": args}, name)

    def counted_weights(self, values):
        """A weight matrix whose products the grader counts (``counted.CountedWeights``): passed
        to the student's code it arrives as a real array (``child/probes.CountedArray``) whose
        products with token rows are reported to the tally kept here."""
        return CountedWeights(values)
