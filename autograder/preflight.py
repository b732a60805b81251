"""Checks before a class is graded: what the hidden checks need must be in place, or the
run stops with an instructor-facing error instead of charging every student for it.

* tiktoken's ``cl100k_base`` file in the project's cache (``tiktoken_cache.cache_dir()``),
  with the sha256 tiktoken itself checks: without it the tokens exercise's checks would
  fail for everyone (tiktoken tries to download it, and the child has no network);
* the course secret: a missing one is created only on request (``--new-secret``), because
  another secret means other randomized cases and so other grades;
* the sandbox: ``autograder.launch.check_available()`` (provided by the sandbox
  module) when the run is confined.
"""
import hashlib
from pathlib import Path

from . import tiktoken_cache


class PreflightError(RuntimeError):
    """Something the grading needs is missing; ``str()`` tells the instructor what to do."""


def check_tiktoken_cache(directory=None):
    """Raise ``PreflightError`` unless ``cl100k_base`` is in tiktoken's cache with the right sha256.

    Args:
        directory: the cache folder (default: ``tiktoken_cache.cache_dir()``, the one the
            grader gives submissions as ``TIKTOKEN_CACHE_DIR``).
    """
    directory = Path(directory) if directory is not None else tiktoken_cache.cache_dir()
    key = hashlib.sha1(tiktoken_cache.CL100K_URL.encode()).hexdigest()
    path = directory / key
    fix = "run `bash scripts/setup.sh` or `python -m autograder.tiktoken_cache` to fill it"
    try:
        data = path.read_bytes()
    except OSError:
        raise PreflightError(f"tiktoken's cl100k_base file is missing from {directory} ({path.name}); "
                             f"{fix}") from None
    if hashlib.sha256(data).hexdigest() != tiktoken_cache.CL100K_SHA256:
        raise PreflightError(f"tiktoken's cl100k_base file {path} is damaged or truncated "
                             f"({len(data)} bytes, wrong sha256); {fix}")


def check_sandbox():
    """Raise ``PreflightError`` when the sandbox module reports that confinement is unavailable.

    ``autograder.launch.check_available()`` returns a text describing what is
    missing, or None when bubblewrap and seccomp can start a sandbox here.
    """
    from .launch import check_available
    try:
        problem = check_available()
    except Exception as exc:
        problem = str(exc) or type(exc).__name__
    if problem is False:
        problem = "launch.check_available() reported it unavailable"
    if isinstance(problem, str) and problem:
        raise PreflightError(f"the sandbox for student code is not available: {problem}; fix "
                             "that, or grade with --unconfined (student code then runs as this "
                             "user, with resource limits only; see docs/confinement.md)")


# Exercises whose checks call tiktoken's cl100k_base (see check_tokens.py).
NEEDS_TIKTOKEN = {"tokens"}


def run(jobs=None, confined=True, tiktoken_dir=None):
    """All checks that do not need the secret; raises ``PreflightError`` on the first failure.

    Args:
        jobs: the ``discover.Job`` list to grade (``None``: check everything); tiktoken's
            cache is checked only when some job needs it.
        confined: whether the run uses the sandbox.
    """
    if jobs is None or any(j.exercise is not None and j.exercise.name in NEEDS_TIKTOKEN for j in jobs):
        check_tiktoken_cache(tiktoken_dir)
    if confined:
        check_sandbox()
