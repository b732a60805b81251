"""The child package's bytecode, compiled where the sandbox reads it.

Inside a sandbox every folder is read-only, so Python cannot write the ``__pycache__`` of the
child's own code (``autograder/child``) there: where none exists it compiles those twelve modules
from source in every sandbox (each student's fork server, each cold child), and throws the result
away. That is what a fresh clone gets when the grader runs with ``PYTHONDONTWRITEBYTECODE=1``
(as CI does): no process ever writes them. An unconfined run does not pay it (its child may
write the files), which made part of the sandbox's apparent cost in a class run
(docs/benchmarks.md). ``compile_child`` writes them from the grader, once; the sandbox then
only reads them, read-only as everything else it sees. The installed packages (numpy,
tiktoken, matplotlib) are compiled by pip when the venv is made; ``compile_project`` (run by
``python -m autograder caches``, so by ``scripts/setup.sh``) compiles the grader's own packages too,
which a grading process under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile at every start.
"""
from __future__ import annotations

import compileall
import contextlib
import io

from autograder.sandbox.policy import CHILD_PACKAGE, PROJECT_ROOT


def compile_child(folder=None) -> bool:
    """Write the ``__pycache__`` bytecode of ``folder`` (default the child package) where it is
    missing or older than its source (``compileall``, timestamp-checked as Python's imports
    check it; ``PYTHONDONTWRITEBYTECODE`` does not stop it).

    Returns:
        ``True`` when every module's bytecode is in place; ``False`` when some could not be
        written (a read-only install): the sandbox then compiles those itself, slower but the same.
    """
    folder = CHILD_PACKAGE if folder is None else folder
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return bool(compileall.compile_dir(str(folder), maxlevels=0, quiet=2))
        except OSError:
            return False


def compile_project() -> bool:
    """``compile_child``, then the bytecode of the project's packages (``autograder``, ``exercises``,
    ``solutions``, every level). Returns ``True`` when all of it is in place."""
    done = compile_child()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for name in ("autograder", "exercises", "solutions"):
            try:
                done = bool(compileall.compile_dir(str(PROJECT_ROOT / name), quiet=2)) and done
            except OSError:
                done = False
    return done
