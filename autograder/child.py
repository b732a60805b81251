"""The child process that runs one submission's code (standard library and numpy only).

Started by ``sandbox.ChildSubmission`` as ``python -I -c <wire.py + probes.py + this file>
REQ_FD RESP_FD``:
isolated mode, an empty working directory, a minimal environment and resource limits.
It never imports the grader: it cannot see hidden values or reference solutions, and it
answers only with plain data (see ``wire.py``).

Protocol: one JSON request per line on REQ_FD, one JSON response per line on RESP_FD.
A first line (no answer) gives the project root to hide and the Landlock confinement.
The first request is ``{"op": "init", "cells": [...], "cell_timeout": s, ...}``; the
answer lists the names the notebook defined and the errors its cells raised.
"""
import ast
import io
import json
import os
import signal
import sys
import time
import traceback

# Not importable on its own: sandbox.child_source() puts wire.py (from_wire, dumps) and
# probes.py (PROBES) in front of this file, and the child runs the three as one script.

# Names whose import a submission must not be helped by (requirement 2 of issue #2).
BLOCKED_PACKAGES = ("autograder", "solutions")
ALLOWED_TOP_LEVEL = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                     ast.ClassDef, ast.Assign, ast.AnnAssign, ast.AugAssign)
STREAM_CAP = 64 * 1024  # bytes of the student's own print output kept (it is discarded)


class GraderTimeout(BaseException):
    """Raised inside student code when its time budget runs out."""


class _Blocker:
    """Meta-path finder that refuses the grader's own packages."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED_PACKAGES:
            raise ImportError(f"'{name}' is not available to submissions: the grader keeps "
                              "its hidden values and reference solutions to itself")
        return None


class _CappedStream(io.TextIOBase):
    """A stdout/stderr stand-in that keeps only the first STREAM_CAP characters."""

    def __init__(self):
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        self.size += len(text)
        return len(text)

    def flush(self):
        pass


def _hide_grader(project_root):
    for mod in list(sys.modules):
        if mod.split(".")[0] in BLOCKED_PACKAGES:
            del sys.modules[mod]
    root = os.path.realpath(project_root) if project_root else None
    if root:
        # Drop the project's own folders from sys.path, but keep the interpreter's
        # (a venv inside the project holds numpy, tiktoken, matplotlib ...).
        prefixes = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix})

        def grader_path(p):
            real = os.path.realpath(p or ".")
            return (real == root or real.startswith(root + os.sep)) and not (real + os.sep).startswith(prefixes)
        sys.path[:] = [p for p in sys.path if not grader_path(p)]
    # Editable installs put a finder on sys.meta_path; drop it and block by name.
    sys.meta_path[:] = [f for f in sys.meta_path
                        if "__editable__" not in getattr(f, "__module__", "")
                        and "__editable__" not in type(f).__module__]
    sys.meta_path.insert(0, _Blocker())


# -- Landlock: what the child may read, write, execute, connect to and signal ----------------
# Linux's Landlock LSM (kernel 5.13+) lets an unprivileged process restrict itself, and
# everything it starts, for good. The child keeps read access to the Python installation
# and the system libraries, full access to its own empty working folder, and nothing else:
# not the course folder (reference solutions, hidden checks, course secret, other
# students' submissions, grades), no TCP connections (ABI 4+), no signals to processes
# outside (ABI 6+: it cannot kill the grader). Where Landlock is missing it does nothing.
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_FS_EXECUTE, _FS_WRITE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ALL_V1 = (1 << 13) - 1
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11
_NET_ALL = 1 | 2          # bind and connect TCP
_SCOPE_ALL = 1 | 2        # abstract unix sockets and signals


def landlock(read_paths, exec_paths, write_paths):
    """Confine this process: read ``read_paths``, also execute programs under ``exec_paths``
    (the Python installation), and do anything under ``write_paths``.

    Returns the Landlock ABI version applied, or 0 when the kernel has no Landlock.
    """
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    fs = _FS_ALL_V1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) \
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, _NET_ALL, _SCOPE_ALL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, _NET_ALL)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(_SYS_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    read = _FS_READ_FILE | _FS_READ_DIR
    write = fs & ~(_MAKE_CHAR | _MAKE_BLOCK)  # no device nodes, even in its own folder
    for paths, access in ((read_paths, read), (exec_paths, read | _FS_EXECUTE), (write_paths, write)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = access if os.path.isdir(path) else access & (_FS_EXECUTE | _FS_WRITE | _FS_READ_FILE
                                                                   | _FS_TRUNCATE | _FS_IOCTL_DEV)
            rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
            libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
            os.close(fd)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required by restrict_self
        return 0
    if libc.syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        return 0
    os.close(ruleset)
    return abi


# -- seccomp: system calls Landlock does not cover ------------------------------------------
# Landlock says nothing about resource limits or priorities of other processes of the same
# user (prlimit could kill the grader with RLIMIT_CPU = 0), nor, when grading runs as root,
# about rebooting, renaming the host, device nodes or immutable files. A small seccomp
# filter refuses those calls with EPERM, and new processes too (threads are allowed), so a
# submission is one process: no fork bomb, nothing left running, memory bounded by one
# RLIMIT_AS. x86_64 only; elsewhere it does nothing.
_AUDIT_ARCH_X86_64 = 0xC000003E
_X86_64_DENIED = {
    141: "setpriority", 169: "reboot", 170: "sethostname", 171: "setdomainname",
    133: "mknod", 259: "mknodat", 165: "mount", 166: "umount2", 155: "pivot_root", 161: "chroot",
    272: "unshare", 308: "setns", 101: "ptrace", 310: "process_vm_readv", 311: "process_vm_writev",
    246: "kexec_load", 320: "kexec_file_load", 175: "init_module", 313: "finit_module",
    176: "delete_module", 167: "swapon", 168: "swapoff", 163: "acct", 164: "settimeofday",
    227: "clock_settime", 159: "adjtimex", 250: "keyctl", 321: "bpf", 298: "perf_event_open",
    425: "io_uring_setup", 323: "userfaultfd", 144: "sched_setscheduler", 314: "sched_setattr",
    251: "ioprio_set", 203: "sched_setaffinity", 57: "fork", 58: "vfork",
    41: "socket", 53: "socketpair",  # no sockets at all: Landlock does not cover unix sockets
}
_X86_64_PRLIMIT64, _X86_64_IOCTL, _X86_64_CLONE, _X86_64_CLONE3 = 302, 16, 56, 435
_CLONE_THREAD = 0x00010000
_FS_IOC_SETFLAGS = 0x40086602


def seccomp_filter():
    """Install the filter described above; returns True when installed."""
    import ctypes
    import platform
    import struct
    if platform.machine() != "x86_64":
        return False
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
    ALLOW, DENY, NOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38  # ALLOW, ERRNO(EPERM), ERRNO(ENOSYS)
    prog = []

    def op(code, k, jt=0, jf=0):
        prog.append((code, jt, jf, k))
    # Symbolic instructions first; jumps are then resolved to the two final returns
    # (RET ALLOW, RET DENY), counted in instructions to skip.
    code = []
    code.append(("LD", 4))                                   # arch
    code.append(("JNE_ALLOW", _AUDIT_ARCH_X86_64))
    code.append(("LD", 0))                                   # syscall number
    code.append(("JGE_DENY", 0x40000000))                    # x32 ABI
    for nr in sorted(_X86_64_DENIED):
        code.append(("JEQ_DENY", nr))
    code.append(("JEQ_NOSYS", _X86_64_CLONE3))               # glibc then falls back to clone
    code.append(("JNE_SKIP", _X86_64_CLONE, 2))              # clone: threads only, no new process
    code.append(("LD", 16))
    code.append(("JSET_ALLOW_ELSE_DENY", _CLONE_THREAD))
    code.append(("JNE_SKIP", _X86_64_PRLIMIT64, 4))          # prlimit64: only on itself (pid 0)
    code.append(("LD", 16))
    code.append(("JNE_DENY", 0))
    code.append(("LD", 20))
    code.append(("JNE_DENY", 0))
    code.append(("JNE_ALLOW", _X86_64_IOCTL))                # ioctl: no FS_IOC_SETFLAGS
    code.append(("LD", 24))
    code.append(("JEQ_DENY", _FS_IOC_SETFLAGS))
    n = len(code)
    allow, deny, nosys = n, n + 1, n + 2
    for i, item in enumerate(code):
        kind, k = item[0], item[1]
        to_allow, to_deny, to_nosys = allow - i - 1, deny - i - 1, nosys - i - 1
        if kind == "LD":
            op(LD, k)
        elif kind == "JEQ_DENY":
            op(JEQ, k, to_deny, 0)
        elif kind == "JEQ_NOSYS":
            op(JEQ, k, to_nosys, 0)
        elif kind == "JNE_DENY":
            op(JEQ, k, 0, to_deny)
        elif kind == "JGE_DENY":
            op(JGE, k, to_deny, 0)
        elif kind == "JNE_ALLOW":
            op(JEQ, k, 0, to_allow)
        elif kind == "JNE_SKIP":
            op(JEQ, k, 0, item[2])
        elif kind == "JSET_ALLOW_ELSE_DENY":
            op(JSET, k, to_allow, to_deny)
    op(RET, ALLOW)
    op(RET, DENY)
    op(RET, NOSYS)
    raw = b"".join(struct.pack("=HBBI", c, jt, jf, k) for c, jt, jf, k in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = SockFprog(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    return libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER


def _alarm(seconds):
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 0.0))


def _on_alarm(signum, frame):
    raise GraderTimeout()


def _student_frames(tb):
    """Return 'cell N, line L' of the innermost frame that is student code, if any."""
    where = None
    for frame, lineno in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.startswith("<cell "):
            where = f"{name[1:-1]}, line {lineno}"
    return where


def _error(exc, tb=None):
    tb = tb if tb is not None else exc.__traceback__
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message[:2000], "where": _student_frames(tb)}


def _strip_magics(source):
    """Drop IPython-only lines (%magic, !shell, %%cell magic header, trailing ?)."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return ""  # a cell magic makes the whole cell IPython-specific
    kept = []
    for line in lines:
        s = line.lstrip()
        if s.startswith(("%", "!")) or (s.endswith("?") and not s.startswith("#")):
            kept.append(line[: len(line) - len(s)] + "pass")
        else:
            kept.append(line)
    return "\n".join(kept)


DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _selected(tree, definitions_only=False):
    for node in tree.body:
        if isinstance(node, DEFINITIONS if definitions_only else ALLOWED_TOP_LEVEL):
            yield node
        elif isinstance(node, ast.Try) and all(isinstance(n, (ast.Import, ast.ImportFrom))
                                               for n in node.body):
            yield node  # try: import x / except ImportError: ...


class _Dummy:
    """Stands in for get_ipython() and display() so notebook idioms do not fail."""

    def __getattr__(self, name):
        return lambda *a, **k: None

    def __call__(self, *a, **k):
        return None


class Child:
    def __init__(self, req, resp):
        self.req = req
        self.resp = resp
        self.ns = {"__name__": "__submission__", "__builtins__": __builtins__,
                   "get_ipython": _Dummy(), "display": _Dummy()}
        self.handles = {}
        self.probes = {}

    # -- running the notebook ------------------------------------------------
    def init(self, msg):
        errors = []
        cell_timeout = float(msg.get("cell_timeout", 10))
        for index, source in msg["cells"]:
            filename = f"<cell {index}>"
            try:
                tree = ast.parse(_strip_magics(source), filename=filename)
            except SyntaxError as exc:
                errors.append({"cell": index, "type": "SyntaxError",
                               "message": f"{exc.msg} (line {exc.lineno})", "where": filename[1:-1]})
                continue
            except (RecursionError, MemoryError, ValueError) as exc:
                errors.append({"cell": index, "type": type(exc).__name__,
                               "message": "the cell is too deeply nested or too large to compile",
                               "where": filename[1:-1]})
                continue
            _alarm(cell_timeout)
            try:
                for node in _selected(tree, msg.get("definitions_only", False)):
                    try:
                        code = compile(ast.Module(body=[node], type_ignores=[]), filename, "exec")
                        exec(code, self.ns)
                    except GraderTimeout:
                        raise
                    except BaseException as exc:  # SystemExit, KeyboardInterrupt included
                        errors.append(dict(_error(exc), cell=index))
            except GraderTimeout:
                errors.append({"cell": index, "type": "Timeout",
                               "message": f"cell did not finish within {cell_timeout:g} s",
                               "where": f"cell {index}"})
            finally:
                _alarm(0)
        defined = sorted(k for k, v in self.ns.items() if callable(v) and not k.startswith("__"))
        return {"ok": {"defined": defined, "errors": errors}}

    # -- requests ------------------------------------------------------------
    def resolve(self, value):
        if isinstance(value, dict) and "__handle__" in value:
            return self.handles[value["__handle__"]]
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.resolve(v) for v in value)
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        return value

    def new_handle(self, obj):
        handle = len(self.handles) + 1
        self.handles[handle] = obj
        return {"__handle__": handle, "type": type(obj).__name__}

    def target(self, msg):
        if "handle" in msg:
            return self.handles[msg["handle"]]
        name = msg["name"]
        if name not in self.ns:
            raise LookupError(name)
        return self.ns[name]

    def handle(self, msg):
        op = msg["op"]
        if op == "init":
            return self.init(msg)
        if op == "probe":
            factory = PROBES[msg["name"]]
            return {"ok": self.new_handle(factory(*self.resolve(msg.get("args", []))))}
        try:
            obj = self.target(msg)
        except LookupError:
            return {"missing": msg.get("name")}
        args = self.resolve(list(msg.get("args", [])))
        kwargs = self.resolve(msg.get("kwargs", {}))
        timeout = float(msg.get("timeout", 10))
        _alarm(timeout)
        try:
            if op == "call":
                result = obj(*args, **kwargs)
            elif op == "method":
                result = getattr(obj, msg["method"])(*args, **kwargs)
            elif op == "new":
                return {"ok": self.new_handle(obj(*args, **kwargs))}
            elif op == "getattr":
                result = getattr(obj, msg["attr"])
                if callable(result) and not hasattr(result, "__array__"):
                    return {"ok": {"__callable__": msg["attr"]}}
            elif op == "len":
                result = len(obj)
            else:
                return {"error": {"type": "ProtocolError", "message": f"unknown op {op}", "where": None}}
        except GraderTimeout:
            return {"timeout": timeout}
        except BaseException as exc:
            return {"error": _error(exc)}
        finally:
            _alarm(0)
        answer = {"ok": result}
        if msg.get("return_args"):
            answer["args_after"] = args
        if msg.get("keep"):
            answer = {"ok": self.new_handle(result)}
        return answer

    def serve(self):
        for line in self.req:
            t0 = time.perf_counter()
            request_id = None
            try:
                msg = from_wire(json.loads(line))
                request_id = msg.get("id")
                answer = self.handle(msg)
            except GraderTimeout:
                answer = {"timeout": None}
            except BaseException as exc:  # never let the harness die on a bad value
                answer = {"error": dict(_error(exc), type="GraderError:" + type(exc).__name__)}
            answer["seconds"] = time.perf_counter() - t0
            answer["id"] = request_id
            try:
                text = dumps(answer)
            except BaseException as exc:
                text = dumps({"error": {"type": "UnsendableResult", "message": str(exc)[:500],
                                        "where": None}, "id": request_id})
            self.resp.write(text + "\n")
            self.resp.flush()


def main():
    req = os.fdopen(int(sys.argv[1]), "r", encoding="utf-8")
    resp = os.fdopen(int(sys.argv[2]), "w", encoding="utf-8")
    sys.argv[:] = ["submission"]
    signal.signal(signal.SIGALRM, _on_alarm)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized file write fails, not the process
    setup = json.loads(req.readline())  # {"project_root": ..., "confine": {"read": [...], "write": [...]}}
    _hide_grader(setup.get("project_root"))
    if setup.get("confine"):
        landlock(setup["confine"]["read"], setup["confine"]["exec"], setup["confine"]["write"])
        seccomp_filter()
    del setup
    sys.stdout = _CappedStream()
    sys.stderr = _CappedStream()
    sys.stdin = io.StringIO("")
    Child(req, resp).serve()


if __name__ == "__main__":
    main()
