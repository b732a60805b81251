"""Checks before a class is graded: what the hidden checks need must be in place, or the
run stops with an instructor-facing error instead of charging every student for it.

* tiktoken's ``cl100k_base`` file in the project's cache (``tiktoken_cache.cache_dir()``),
  with the sha256 tiktoken itself checks: without it the tokens exercise's checks would
  fail for everyone (tiktoken tries to download it, and the child has no network);
* the course secret: a missing one is created only on request (``--new-secret``), because
  another secret means other randomized cases and so other grades;
* the sandbox: ``autograder.sandbox.bubblewrap.check_available()`` (provided by the sandbox
  module) when the run is confined.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from autograder.sandbox import tiktoken_cache


class PreflightError(RuntimeError):
    """Something the grading needs is missing; ``str()`` tells the instructor what to do."""


def check_tiktoken_cache(directory=None) -> None:
    """Raise ``PreflightError`` unless ``cl100k_base`` is in tiktoken's cache with the right sha256.

    Args:
        directory: the cache folder (default: ``tiktoken_cache.cache_dir()``, the one the
            grader gives submissions as ``TIKTOKEN_CACHE_DIR``).
    """
    directory = Path(directory) if directory is not None else tiktoken_cache.cache_dir()
    key = hashlib.sha1(tiktoken_cache.CL100K_URL.encode()).hexdigest()
    path = directory / key
    fix = "run `bash scripts/setup.sh` or `python -m autograder caches` to fill it"
    try:
        data = path.read_bytes()
    except OSError:
        raise PreflightError(f"tiktoken's cl100k_base file is missing from {directory} ({path.name}); "
                             f"{fix}") from None
    if hashlib.sha256(data).hexdigest() != tiktoken_cache.CL100K_SHA256:
        raise PreflightError(f"tiktoken's cl100k_base file {path} is damaged or truncated "
                             f"({len(data)} bytes, wrong sha256); {fix}")


def check_sandbox(level: str | None = None, extra: tuple = ()) -> str:
    """The confinement level to grade with; raise ``PreflightError`` when none can start.

    Tries bubblewrap, then the setuid level (``levels.choose``), or only ``level`` when it
    names one; prints to stderr which level was skipped and why.

    Args:
        level: ``None``/"auto", "bubblewrap" or "setuid" (``--confinement``).
        extra: paths a child at the setuid level must not be able to read (the submissions).
    Returns:
        the level's name (``str``).
    """
    import sys

    from autograder.sandbox.levels import NoLevel, choose
    try:
        chosen, skipped = choose(level, extra)
    except NoLevel as exc:
        problems = exc.problems
    except Exception as exc:
        problems = {level or "auto": str(exc) or type(exc).__name__}
    else:
        for name, why in skipped.items():
            print(f"note: confinement level {name} cannot start here ({why}); using {chosen}", file=sys.stderr)
        return chosen
    text = "; ".join(f"{name}: {why}" for name, why in problems.items())
    raise PreflightError(f"the sandbox for student code is not available ({text}); fix "
                         "that, or grade with --unconfined (student code then runs as this "
                         "user, with resource limits only; see docs/containers.md)")


# Exercises whose checks call tiktoken's cl100k_base (see check_tokens.py).
NEEDS_TIKTOKEN = {"tokens"}


def run(jobs: list | None = None, confined: bool = True, tiktoken_dir=None, level: str | None = None) -> str | None:
    """All checks that do not need the secret; raises ``PreflightError`` on the first failure.

    Args:
        jobs: the ``vocabulary.Job`` list to grade (``None``: check everything); tiktoken's
            cache is checked only when some job needs it.
        confined: whether the run uses the sandbox.
        level: the confinement level asked for (``check_sandbox``).
    Returns:
        the confinement level to grade with, or ``None`` when not ``confined``.
    """
    if jobs is None or any(j.exercise is not None and j.exercise.name in NEEDS_TIKTOKEN for j in jobs):
        check_tiktoken_cache(tiktoken_dir)
    if confined:
        from autograder.sandbox.bytecode import compile_child
        compile_child()  # else each sandbox compiles the child's code again (sandbox/bytecode.py)
        notebooks = tuple(str(j.path) for j in (jobs or [])[:3] if getattr(j, "path", None))
        return check_sandbox(level, notebooks)
    return None
