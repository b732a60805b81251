"""Limits on one submission's child process, and the error every student-code failure becomes."""
from dataclasses import dataclass


@dataclass
class Limits:
    """Resource limits for one submission's child process.

    Attributes:
        call_seconds: wall-clock limit of one call into student code (seconds).
        retry_seconds: the limit for later calls of a function that already hung once.
        cell_seconds: wall-clock limit for running one notebook cell at start-up (seconds).
        startup_seconds: limit for the whole notebook start-up (seconds).
        memory_bytes: address-space limit of the child (bytes).
        file_bytes: largest file the child may write (bytes).
        response_bytes: largest answer accepted from the child (bytes).
        max_restarts: how often one function may crash the child before its calls are no longer
            run (each function has its own count: a crashing function costs only its checks).
        confine: run the child in the sandbox of ``confinement.py`` (bubblewrap, seccomp,
            an unprivileged uid); False runs it unconfined (``--unconfined``), with the
            resource limits only.
        notebook_seconds: total waiting time one notebook may cost, a deadline enforced during
            every exchange (decoding answers included); calls after that fail (seconds).
        grader_memory_bytes: address-space limit of each grading worker process (bytes).
        cpu_seconds: CPU time of the child process (RLIMIT_CPU; seconds).
        open_files: open file descriptors of the child (RLIMIT_NOFILE).
        processes: processes and threads in one sandbox (RLIMIT_NPROC, counted per sandbox).
        scratch_bytes: size of the child's private writable ``/tmp`` (bytes).
        scratch_inodes: files and folders the child's ``/tmp`` may hold (tmpfs ``nr_inodes``):
            ``scratch_bytes`` does not bound empty files and folders, whose kernel memory
            (about 600 bytes each) is outside every other limit. Applied where the grader
            mounts the scratch itself (grading as root, ``launch.py``).
    """
    call_seconds: float = 10.0
    retry_seconds: float = 1.0
    cell_seconds: float = 10.0
    startup_seconds: float = 60.0
    memory_bytes: int = 1024 ** 3
    file_bytes: int = 64 * 1024 ** 2
    response_bytes: int = 16 * 1024 ** 2
    max_restarts: int = 10
    confine: bool = True
    notebook_seconds: float = 120.0
    grader_memory_bytes: int = 4 * 1024 ** 3
    cpu_seconds: float = 300.0
    open_files: int = 256
    processes: int = 32
    scratch_bytes: int = 64 * 1024 ** 2
    scratch_inodes: int = 16384


class StudentCodeError(Exception):
    """A call into student code did not return a value.

    Attributes:
        kind: one of "not implemented", "missing", "raised", "timeout", "crashed", "unsendable",
            "not run" (the notebook could not be read or started at all), "time budget" (the
            notebook used up ``Limits.notebook_seconds``), "too large" (an answer the grader
            refused to read).
        function: the student-facing name that was called.
        detail: exception type and message, or what went wrong.
        where: "cell N, line L" of the innermost student frame, when known.
    """

    def __init__(self, kind, function, detail="", where=None):
        self.kind, self.function, self.detail, self.where = kind, function, detail, where
        super().__init__(self.describe())

    def describe(self):
        f = self.function
        if self.kind == "not implemented":
            return f"{f}: not implemented (it still raises NotImplementedError)"
        if self.kind == "missing":
            return f"{f}: not defined in your notebook (check the name and that its cell runs)"
        if self.kind == "timeout":
            return f"{f}: {self.detail or 'did not return in time'} (an infinite loop?)"
        if self.kind == "crashed":
            return f"{f}: the Python process running your notebook died ({self.detail})"
        if self.kind == "unsendable":
            return f"{f}: {self.detail}"
        if self.kind == "time budget":
            return f"{f}: {self.detail}"
        if self.kind == "too large":
            return f"{f}: {self.detail}"
        if self.kind == "not run":
            return f"{f}: not graded, because {self.detail}"
        where = f" at {self.where}" if self.where else ""
        return f"{f} raised {self.detail}{where}"
