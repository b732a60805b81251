"""Entry point of the child process that runs one submission's code.

Started by ``remote.ChildSubmission`` as ``python -I -c "...; from child.main import main;
main()" REQ_FD RESP_FD`` with this package's parent folder first on ``sys.path`` (and
removed again once the package is imported): isolated mode, an empty working directory,
a minimal environment and resource limits. It never imports the grader: it cannot see
hidden values or reference solutions, and it answers only with plain data (``wire``).

It runs inside the grader's bubblewrap sandbox (``autograder/sandbox/policy.py``). A first
line on REQ_FD (no answer) gives the project root to hide and, when confined, the scratch
folder and the number of processes allowed; the child then closes every other inherited
descriptor, limits its own processes (RLIMIT_NPROC counts this sandbox only) and adds
Landlock; then ``server.Child`` answers requests until the grader closes the pipe.
"""
import io
import json
import os
import signal
import sys

from . import server, timing
from .landlock import landlock

# Packages a submission must not import: the grader, the reference solutions, the course's
# hidden checks.
BLOCKED_PACKAGES = ("autograder", "solutions", "exercises")


class _Blocker:
    """Meta-path finder that refuses the grader's own packages."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED_PACKAGES:
            raise ImportError(f"'{name}' is not available to submissions: the grader keeps "
                              "its hidden values and reference solutions to itself")
        return None


class _CappedStream(io.TextIOBase):
    """A stdout/stderr stand-in that counts what is written and keeps none of it."""

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


def _confine(confine, keep):
    """Second layer, inside the sandbox: only the two pipes stay open, at most
    ``processes`` tasks (threads included), Landlock (read what the sandbox shows, write
    only the scratch folder, run nothing)."""
    import resource
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    n = int(confine["processes"])
    resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
    if confine.get("landlock", True) is not False:  # False: tests without Landlock (setuid level)
        landlock(["/"], [], [confine["scratch"], "/dev/null"])


def main():
    serve_child(int(sys.argv[1]), int(sys.argv[2]))


def serve_child(req_fd, resp_fd):
    """Answer the grader's requests on the pipes ``req_fd`` (read) and ``resp_fd`` (write):
    read the setup line, hide the grader, confine this process, then serve until the grader
    closes the request pipe. Used by ``main`` (a cold child) and by ``forkserver`` (a child
    forked from a warm one, after it installed the seccomp filter)."""
    req = os.fdopen(req_fd, "r", encoding="utf-8")
    resp = os.fdopen(resp_fd, "w", encoding="utf-8")
    sys.argv[:] = ["submission"]
    timing.install()
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized file write fails, not the process
    sys.path[:] = [p for p in sys.path if p != os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    setup = json.loads(req.readline())  # {"project_root": ..., "confine": {"scratch": ..., "processes": N}}
    if "matplotlib" not in sys.modules:  # a cold child: the notebook's import finds the font list
        from .mplcache import seed
        seed(setup.get("project_root"))
    _hide_grader(setup.get("project_root"))
    confine = setup.get("confine")
    if confine:
        _confine(confine, (req.fileno(), resp.fileno()))
    del setup, confine
    sys.stdout = _CappedStream()
    sys.stderr = _CappedStream()
    sys.stdin = io.StringIO("")
    server.Child(req, resp).serve()
