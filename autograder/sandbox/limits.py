"""Limits on one submission's child process, and the error every student-code failure becomes.

How the time limits per call were derived (``benchmarks/call_limits.py`` prints this table):
every exercise was graded in a child that reports the CPU time (``time.process_time``) of
each request, once with the reference notebook and once in the slowest honest style we
could write (pure-Python loops over lists for the maths, numpy only to build the returned
arrays; the tokens and next_token references already loop in Python or are tiny), on the
checks' own inputs, the largest hidden ones included. ``CALL_CPU_MEASURED`` holds the
largest CPU time of one call, per function, in milliseconds (2 cores shared by ~10 busy
processes, 2026-12-01; CPU time is what such load does not stretch). The slowest honest call
is a pure-Python ``train_step`` at 25 ms; ``call_cpu_seconds`` = 1 s leaves a margin of 40x
over it, so an endless loop now costs 1 s of CPU instead of 10 s of wall clock. The slowest
run of a notebook's cells between two hidden-test cells (learned_attention's training demo
in the loop style) used 0.67 s; ``cell_cpu_seconds`` = 5 s leaves 7x over all of that run.
A function that has used up a limit once is watched more closely for the rest of the
notebook: ``hung_cpu_seconds`` = 0.25 s (10x the slowest honest call) is what any later
call or cell may spend inside it (``child/timing.py``), so a loop that every check and
visible cell runs into costs one full limit and then a quarter second each time.
The wall-clock limits (``call_seconds``, ``cell_seconds``) stay as the backstop for code
that waits without using CPU (``time.sleep``, a blocked read); they are not derived from
CPU measurements and a busy machine can stretch honest work towards them, so they are wide.
"""
from dataclasses import dataclass

# Largest CPU milliseconds of one call, ``(reference, slowest honest style or None)``, the
# largest over two runs of ``benchmarks/call_limits.py`` (0.0: under 0.05 ms). "(cells)":
# the largest run of a notebook's cells between two hidden-test cells. See the docstring.
CALL_CPU_MEASURED = {
    "tokens": {"get_pair_counts": (0.0, None), "merge_pair": (0.0, None), "learn_bpe": (0.0, None),
               "bpe_encode": (0.2, None), "tiktoken_pieces": (0.2, None), "(cells)": (223.0, None)},
    "embeddings": {"cosine_similarity": (0.2, 0.4), "cosine_similarity_matrix": (0.0, 0.0),
                   "semantic_search": (0.0, 0.0), "(cells)": (11.2, 10.2)},
    "attention": {"softmax": (0.0, 0.1), "project_qkv": (0.4, 0.2), "attention_row": (0.2, 0.0),
                  "causal_mask": (0.4, 0.0), "attention_matrix": (0.0, 0.0), "(cells)": (9.6, 12.0)},
    "next_token": {"forward": (0.0, None), "cross_entropy": (0.0, None), "grad_logits": (0.1, None),
                   "grad_unembedding": (0.0, None), "sgd_update": (0.2, None),
                   "numerical_gradient": (0.0, None), "(cells)": (10.2, None)},
    "kv_cache": {"KVCache": (0.0, None), "decode_step": (1.0, None), "causal_self_attention": (0.2, None),
                 "kv_cache_size": (0.0, None), "(cells)": (23.4, None)},
    "learned_attention": {"positional_encoding": (0.0, 0.0), "model_forward": (1.3, 1.1),
                          "attention_backward": (0.5, 0.2), "train_step": (8.9, 24.9),
                          "multi_head_attention": (0.8, 0.7), "(cells)": (145.3, 673.5)},
    # 2026-12-02; generate's largest call is one 300-step generation; the cells train toy model 1
    "sampling": {"apply_temperature": (0.2, None), "sample_next": (0.2, None), "top_p_filter": (0.0, None),
                 "generate": (22.9, None), "(cells)": (301.4, None)},
}


@dataclass
class Limits:
    """Resource limits for one submission's child process.

    Attributes:
        call_seconds: wall-clock limit of one call into student code (seconds): the backstop
            for code that waits; a call that computes is stopped by ``call_cpu_seconds``.
        call_cpu_seconds: CPU-time limit of one call (seconds; ITIMER_PROF in the child), 40x
            the slowest honest call measured (``CALL_CPU_MEASURED``, module docstring). Never
            more than the call's wall-clock limit.
        cell_cpu_seconds: CPU-time limit of one notebook cell (seconds), 7x the slowest run
            of cells measured between two hidden-test cells.
        retry_seconds: the limit for later calls of a function that already hung once.
        hung_cpu_seconds: CPU time granted to code running inside a notebook function that
            already ran out of time once in this notebook (seconds): every call and cell
            is checked at this interval of CPU time and stopped when such a function is
            running (``child/timing.py``); 10x the slowest honest call measured.
        cell_seconds: wall-clock limit for running one notebook cell at start-up (seconds).
        startup_seconds: limit for the whole notebook start-up (seconds).
        memory_bytes: address-space limit of the child (bytes).
        file_bytes: largest file the child may write (bytes).
        response_bytes: largest answer accepted from the child (bytes).
        max_restarts: how often one function may crash the child before its calls are no longer
            run (each function has its own count: a crashing function costs only its checks).
        confine: run the child in the sandbox of ``sandbox/policy.py`` (bubblewrap, seccomp,
            an unprivileged uid); False runs it unconfined (``--unconfined``), with the
            resource limits only.
        notebook_seconds: total waiting time one notebook may cost, a deadline enforced during
            every exchange (decoding answers included); calls after that fail (seconds).
        grader_memory_bytes: address-space limit of each grading worker process (bytes).
        cpu_seconds: CPU time of the child process (RLIMIT_CPU; seconds).
        open_files: open file descriptors of the child (RLIMIT_NOFILE).
        processes: processes and threads in one sandbox (RLIMIT_NPROC, counted per sandbox).
        scratch_bytes: size of the child's private writable ``/tmp`` (bytes; the bubblewrap
            level only: at the setuid level only each file is capped, by ``file_bytes``).
        scratch_inodes: files and folders the child's ``/tmp`` may hold (tmpfs ``nr_inodes``):
            ``scratch_bytes`` does not bound empty files and folders, whose kernel memory
            (about 600 bytes each) is outside every other limit. Applied where the grader
            mounts the scratch itself (grading as root at the bubblewrap level, ``sandbox/bubblewrap.py``).
        level: the confinement level (``levels.LEVELS``: "bubblewrap" or "setuid"); ``None``
            uses the first that starts here (``levels.choose``). Ignored when not ``confine``.
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
    level: "str | None" = None
    call_cpu_seconds: float = 1.0
    cell_cpu_seconds: float = 5.0
    scratch_inodes: int = 16384
    hung_cpu_seconds: float = 0.25


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
        inside: for "not implemented" and "raised", the innermost notebook function the
            exception came from, when known (``child/errors.student_function``); another
            function than ``function`` (a helper it calls) is named in the message.
    """

    def __init__(self, kind, function, detail="", where=None, inside=None):
        self.kind, self.function, self.detail, self.where = kind, function, detail, where
        self.inside = inside
        super().__init__(self.describe())

    @property
    def helper(self):
        """The other notebook function the exception came from (``inside``), or None."""
        if self.kind in ("not implemented", "raised") and self.inside and self.inside != self.function:
            return self.inside
        return None

    def describe(self):
        f, g = self.function, self.helper
        if g and self.kind == "not implemented":
            return f"{f}: {g}, which it calls, is not implemented yet (it raises NotImplementedError)"
        if g:
            return f"{f}: {g}, which it calls, raised {self.detail}" + (f" at {self.where}" if self.where else "")
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
