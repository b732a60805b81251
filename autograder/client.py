"""Run a submission's code in a child process and call its functions from the grader.

``ChildSubmission`` starts the child package (``autograder/child``) in a fresh interpreter
(``python -I``) with an empty temporary working directory, a minimal environment and
resource limits, sends it the notebook's code cells, and then forwards calls such as
``submission.function("attention_row")(q, K, V)`` as plain-data requests (``child/wire.py``).

Every failure of student code becomes a ``StudentCodeError`` with a ``kind`` the feedback
can name ("not implemented", "missing", "raised", "timeout", "crashed", "unsendable");
nothing the student does can raise anything else in the grader.
"""
import json
import os
import secrets
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .child import wire
from .limits import Limits, StudentCodeError

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
    """Minimal environment for the child: no PYTHONPATH, single-threaded BLAS, Agg plots."""
    from .tiktoken_cache import cache_dir
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(workdir), "TMPDIR": str(workdir),
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
        "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(Path(workdir) / ".mpl"),
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "TIKTOKEN_CACHE_DIR": str(cache_dir()),
    }
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # keep this machine's BLAS fixes
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def confinement(workdir):
    """Paths the child may read (the Python installation, system libraries, tiktoken's
    cache) and write (its own working folder); everything else, the course folder
    included, is out of its reach where the kernel supports Landlock (see child/landlock.py)."""
    import site
    from .tiktoken_cache import cache_dir
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    read = {*site.getsitepackages(), "/usr", "/lib", "/lib64", "/etc", "/dev", "/proc", "/sys", str(cache_dir())}

    def existing(paths):
        return sorted(p for p in paths if p and os.path.exists(p))
    return {"read": existing(read), "exec": existing(python), "write": [str(workdir)]}


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


def _become_subreaper():
    """Orphans of a submission (a daemon it started) become our children, so we can end them."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _limit_child(limits):
    def apply():
        import resource
        os.setsid()  # own process group, so a kill takes any grandchildren too
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
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

    def __repr__(self):
        return f"<{self._type} in the submission>"


def _to_wire_args(value):
    if isinstance(value, RemoteObject):
        return {"__handle__": value._handle}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_wire_args(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_wire_args(v) for k, v in value.items()}
    return value


class ChildSubmission:
    """One submission's code, running in its own child process.

    Args:
        cells: the notebook's code cells: ``notebook_code.Cell``s (hidden-test cells become
            checkpoints), or plain ``(label_index, source)`` pairs.
        limits: a ``Limits``.
    Use as a context manager, or call ``close()``; ``close`` kills the child and
    removes its temporary directory.

    The notebook runs up to ``checkpoint`` (a hidden-test cell's grade id; ``None``: to the
    end) when the child starts, and on to later checkpoints with ``advance_to``; a restarted
    child runs again up to the current checkpoint.
    """

    def __init__(self, cells, limits=None):
        self.cells = list(cells)
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

    # -- life cycle ------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            # Anything the submission left running (a new session, a double fork) has been
            # reparented to us, the subreaper: end it, and reap it.
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
            try:
                self._req.close()
            except OSError:
                pass
            os.close(self._resp)
            self.proc = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def _start(self, definitions_only=False):
        self.close()
        _become_subreaper()
        self._children_before = _children()
        self.workdir = tempfile.mkdtemp(prefix="submission-")
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        self.proc = subprocess.Popen(
            [*child_command(), str(req_r), str(resp_w)],
            cwd=self.workdir, env=child_env(self.workdir), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(req_r, resp_w),
            preexec_fn=_limit_child(self.limits))
        os.close(req_r)
        os.close(resp_w)
        self._req = os.fdopen(req_w, "w", encoding="utf-8")
        self._resp = resp_r
        self._buffer = b""
        self._req.write(json.dumps({"project_root": str(PROJECT_ROOT),
                                    "confine": confinement(self.workdir) if self.limits.confine else None}) + "\n")
        cells = [c.to_wire() if hasattr(c, "to_wire") else c for c in self.cells]
        answer = self._exchange({"op": "init", "cells": cells, "definitions_only": definitions_only,
                                 "cell_timeout": self.limits.cell_seconds, "stop_at": self.checkpoint,
                                 "budget": self._run_budget()},
                                self.limits.startup_seconds)
        report = self._run_report(answer)
        if report is None:
            reason = answer.get("died") or "it did not start"
            self.close()
            raise StudentCodeError("crashed", "notebook", str(reason))
        self.startup = report

    # -- running the notebook's cells (issue 10) ---------------------------------
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
        answer = self._exchange({"op": "run_to", "checkpoint": checkpoint, "budget": self._run_budget()},
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
            if self.dead_reason and self.restarts >= self.limits.max_restarts:
                raise StudentCodeError("crashed", "notebook", self.dead_reason +
                                       "; gave up after repeated restarts")
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
    def _exchange(self, message, seconds):
        t0 = time.monotonic()
        try:
            return self._exchange_timed(message, seconds)
        finally:
            self.seconds_used += time.monotonic() - t0

    def _exchange_timed(self, message, seconds):
        # Each request carries a random id that its answer must echo: a line the student's
        # code writes into the channel itself is skipped, and cannot shift later answers.
        request_id = secrets.token_hex(8)
        try:
            self._req.write(json.dumps(wire.to_wire(dict(message, id=request_id)), separators=(",", ":")) + "\n")
            self._req.flush()
        except (BrokenPipeError, OSError):
            return self._died("it exited")
        deadline = time.monotonic() + seconds + 2.0  # the child's own alarm fires first
        while True:
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    return self._died(f"no answer within {seconds:g} s", timeout=True)
                ready, _, _ = select.select([self._resp], [], [], left)
                if not ready:
                    continue
                chunk = os.read(self._resp, 1 << 20)
                if not chunk:
                    return self._died(self._exit_reason())
                self._buffer += chunk
                if len(self._buffer) > self.limits.response_bytes:
                    return self._died(f"answer larger than {self.limits.response_bytes} bytes")
            line, _, self._buffer = self._buffer.partition(b"\n")
            try:
                answer = wire.from_wire(json.loads(line.decode("utf-8", errors="replace")))
            except (ValueError, RecursionError):
                continue
            if isinstance(answer, dict) and answer.get("id") == request_id:
                return answer

    def _exit_reason(self):
        try:
            code = self.proc.wait(timeout=5) if self.proc else None
        except subprocess.TimeoutExpired:  # it closed the channel but lives on
            return "it closed its answer channel"
        if code is not None and code < 0:
            import signal
            name = signal.Signals(-code).name
            hint = " (out of memory?)" if name in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""
            return f"killed by {name}{hint}"
        return f"it exited with status {code}"

    def _died(self, reason, timeout=False):
        self.dead_reason = reason
        self.close()
        return {"died": reason, "timeout": timeout}

    def _request(self, message, label):
        fn = message.get("name") or label
        if self.seconds_used > self.limits.notebook_seconds:
            raise StudentCodeError("timeout", label, f"not run: the notebook used up its {self.limits.notebook_seconds:g} s "
                                   "of grading time")
        # A function that hung once gets a short limit from then on: its other checks
        # still run (a hang may depend on the input), but it cannot cost minutes.
        seconds = self.limits.retry_seconds if fn in self.timed_out else self.limits.call_seconds
        self.ensure_started()
        message = dict(message, args=_to_wire_args(message.get("args", [])),
                       kwargs=_to_wire_args(message.get("kwargs", {})), timeout=seconds)
        answer = self._exchange(message, seconds)
        return self._interpret(answer, fn, label, seconds)

    def _interpret(self, answer, fn, label, seconds):
        if "timeout" in answer and ("died" not in answer or answer["timeout"]):
            self.timed_out[fn] = True
            raise StudentCodeError("timeout", label, f"did not return within {seconds:g} s")
        if "died" in answer:
            raise StudentCodeError("crashed", label, answer["died"])
        if "missing" in answer:
            raise StudentCodeError("missing", label)
        if "error" in answer:
            err = answer["error"]
            if err["type"] == "NotImplementedError":
                raise StudentCodeError("not implemented", label)
            if err["type"] == "UnsendableResult":
                raise StudentCodeError("unsendable", label, "returned a value that cannot be sent back "
                                       f"as numbers, strings, lists, tuples or dicts ({err['message']})")
            detail = f"{err['type']}: {err['message']}" if err["message"] else err["type"]
            raise StudentCodeError("raised", label, detail, err.get("where"))
        value = answer["ok"]
        if isinstance(value, dict) and "__handle__" in value and set(value) <= {"__handle__", "type"}:
            value = RemoteObject(self, value["__handle__"], value.get("type", "object"), label)
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
