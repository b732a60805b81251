"""A warm start for one student's notebooks: a process that forks one fresh child per notebook.

Started by ``autograder/sandbox/warm.py`` inside that student's bubblewrap sandbox (PID 1 of its PID
namespace, the student's sandbox uid) as ``python -I -c "...; from child.forkserver import
main; main()" CONTROL_FD SECCOMP_FD``. bubblewrap installs no seccomp filter on it: this
process runs only the grader's own code (it never runs a notebook cell), and it must be able
to fork. It imports once what every notebook's child needs (numpy and the child package),
then serves requests on CONTROL_FD, a unix socket whose other end the grader holds:

* ``{"op": "spawn", "load": [group, ...]}`` with two descriptors attached (SCM_RIGHTS: the
  child's request pipe's read end and its answer pipe's write end): first import the groups
  of ``OPTIONAL`` named in ``load`` that are not imported yet (matplotlib's pyplot with the
  Agg backend; tiktoken and its cl100k_base encoding): the grader names those the notebook
  imports (``sandbox/needs.py``), so a student whose notebooks draw nothing and read no
  tokens never pays for them, and one who does pays once, not once per notebook. A
  notebook that imports them anyway (a way the grader's reading did not see) imports them
  in its own child, as a cold child would. Then fork; the new process installs the seccomp
  filter read from SECCOMP_FD (the same compiled allow-list bubblewrap installs on a
  cold child: ``policy.seccomp_bpf``, so it can start no process, open no socket ...)
  *before* it runs anything else, then becomes an ordinary child (``main.serve_child``:
  only its two pipes stay open, RLIMIT_NPROC, Landlock). Answer ``{"pid": N, "loaded": [groups imported so far]}``.
* ``{"op": "end", "pid": N, "wait": s}``: wait up to ``s`` seconds for child N to exit
  (0: not at all), then SIGKILL it, reap it and empty the scratch folder, so the next
  notebook finds nothing of this one. Answer ``{"status": wait status as Popen's
  returncode: exit code, or -signal}``.
* ``{"op": "modules"}``: the top-level names in this server's ``sys.modules`` (what its
  children inherit already imported), for tests and benchmarks.

No state passes between notebooks: each runs in a fresh process forked from a server that
has run no student code; the notebook's process cannot fork (seccomp), so killing it ends all
of it; its files in the scratch folder are removed. The server is protected from its
children: it is PID 1 of the namespace (a signal a descendant sends it is ignored, as for any
namespace init, SIGKILL included), it is not dumpable (``/proc/1/mem`` needs ptrace rights the
sandbox has not got), and Landlock in the child forbids signals and ptrace across domains.

Standard library only at import (numpy is imported by ``main``; matplotlib by ``_load``, after
its font list is copied in: ``child/mplcache.py``).
"""
import ctypes
import json
import os
import signal
import socket
import sys
import time

from .removal import empty

PRELOAD = ("numpy",)  # what every notebook imports: paid once per student
# Imported on the grader's request only (``spawn``'s "load"), once per student at most: about
# half and a fifth of a start that imported everything (benchmarks/cpu_accounting.py).
OPTIONAL = {"matplotlib": ("matplotlib", "matplotlib.pyplot"), "tiktoken": ("tiktoken",)}
# tiktoken keeps each encoding it has built in its registry: built once here, a notebook's
# tiktoken.get_encoding("cl100k_base") finds it ready (0.2 s of parsing saved per notebook;
# about 40 MB of the child's address space, well inside its limit).
OPTIONAL_ENCODINGS = {"tiktoken": ("cl100k_base",)}
_PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 4, 38, 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(bpf):
    """Install the compiled filter ``bpf`` (``bytes`` of ``struct sock_filter``, 8 bytes each,
    exported by libseccomp) on this single-threaded process, as bubblewrap's ``--seccomp``
    does: PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER.

    Raises:
        OSError: the kernel refused it (the caller must then not run student code).
    """
    if not bpf or len(bpf) % 8:
        raise OSError("empty or malformed seccomp program")
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def _empty_scratch(folder):
    """Remove everything in ``folder`` (the scratch tmpfs), whatever the notebook made of it:
    any depth, width, modes or names (``child/removal.py``)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        empty(fd, folder)
    finally:
        os.close(fd)


def _status(wait_status):
    if os.WIFSIGNALED(wait_status):
        return -os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None


def _end(pid, wait, scratch, statuses):
    """Wait up to ``wait`` s for ``pid``, kill it, reap it, empty the scratch folder."""
    deadline = time.monotonic() + max(0.0, float(wait))
    while pid not in statuses:
        try:
            got, st = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            statuses.setdefault(pid, None)
            break
        if got == pid:
            statuses[pid] = _status(st)
            break
        if time.monotonic() >= deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                _, st = os.waitpid(pid, 0)
                statuses[pid] = _status(st)
            except ChildProcessError:
                statuses.setdefault(pid, None)
            break
        time.sleep(0.01)
    _reap_others(statuses)
    _empty_scratch(scratch)
    return statuses.pop(pid, None)


def _reap_others(statuses):
    while True:
        try:
            got, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if got == 0:
            return
        statuses[got] = _status(st)


def _child(control, seccomp_fd, fds):
    """In the forked process: filter first, then an ordinary child on ``fds``."""
    try:
        control.close()
        os.lseek(seccomp_fd, 0, os.SEEK_SET)
        bpf = b""
        while True:
            chunk = os.read(seccomp_fd, 1 << 16)
            if not chunk:
                break
            bpf += chunk
        os.close(seccomp_fd)
        install_seccomp(bpf)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a cold child
        from .main import serve_child
        serve_child(fds[0], fds[1])
    except BaseException:
        os._exit(70)
    os._exit(0)


def _project_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(groups, loaded, scratch, statuses, forked):
    """Import the ``OPTIONAL`` groups named in ``groups`` not in ``loaded`` yet (unknown
    names are ignored), then empty the scratch folder of what the imports wrote.

    Only while no notebook's process of this sandbox is running: the scratch folder is this
    server's working folder and matplotlib's configuration folder, and a notebook may write
    there (a ``matplotlibrc``, a font list) what an import would then read in this process,
    which has no seccomp filter. So the folder is emptied first, with no process left that
    could write into it; while one runs, nothing is imported here (the notebook about to be
    forked imports what it needs itself, as a cold child does)."""
    import importlib
    todo = [g for g in groups if isinstance(g, str) and g in OPTIONAL and g not in loaded]
    if not todo:
        return
    _reap_others(statuses)
    forked -= set(statuses)
    if forked:
        return
    _empty_scratch(scratch)
    if "matplotlib" in todo:
        from .mplcache import seed
        seed(_project_root())  # the font list, so the import does not scan the fonts
    for group in todo:
        loaded.add(group)
        for name in OPTIONAL[group]:
            try:
                importlib.import_module(name)
            except Exception:
                pass
        for encoding in OPTIONAL_ENCODINGS.get(group, ()):  # from the tiktoken cache; no network
            try:
                sys.modules["tiktoken"].get_encoding(encoding)
            except Exception:
                pass
    _empty_scratch(scratch)  # caches the imports wrote (matplotlib's): every notebook starts empty
    import gc
    gc.freeze()  # what is loaded now stays shared with the children (copy-on-write)


def main():
    control = socket.socket(fileno=int(sys.argv[1]))
    seccomp_fd = int(sys.argv[2])
    scratch = os.getcwd()
    sys.argv[:] = ["submission"]
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    # A namespace's init receives from inside it only the signals it handles: handle none.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path[:] = [p for p in sys.path if p != os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    import importlib

    for name in PRELOAD:  # what every notebook imports: paid once per student, not per notebook
        try:
            importlib.import_module(name)
        except Exception:
            pass
    from . import main as _main  # noqa: F401
    _empty_scratch(scratch)  # caches the imports wrote (matplotlib's): every notebook starts empty
    import gc
    gc.freeze()  # what is loaded now stays shared with the children (copy-on-write)
    statuses, loaded, forked = {}, set(), set()  # forked: processes not reaped yet
    buffer = b""
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 4)
        except OSError:
            break
        if not data:
            break
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {}
            if msg.get("op") == "spawn" and len(fds) == 2:
                load = msg.get("load")
                _load(load if isinstance(load, list) else [], loaded, scratch, statuses, forked)
                pid = os.fork()
                if pid == 0:
                    _child(control, seccomp_fd, fds)
                forked.add(pid)
                for fd in fds:
                    os.close(fd)
                fds = []
                answer = {"pid": pid, "loaded": sorted(loaded)}
            elif msg.get("op") == "modules":
                answer = {"modules": sorted({m.split(".")[0] for m in sys.modules})}
            elif msg.get("op") == "end" and isinstance(msg.get("pid"), int):
                answer = {"status": _end(msg["pid"], msg.get("wait", 0), scratch, statuses)}
                forked.discard(msg["pid"])
            else:
                answer = {"error": "unknown request"}
            for fd in fds:
                os.close(fd)
            fds = []
            control.sendall(json.dumps(answer).encode() + b"\n")
