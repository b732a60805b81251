"""The setuid level without a bounded scratch grades one submission per container.

At the setuid level the scratch folder is a tmpfs of ``Limits.scratch_bytes`` only when the
grader may mount one (CAP_SYS_ADMIN, ``leftovers.mount_scratch``). Without it the scratch lies on
the container's disk, only each file is capped (``RLIMIT_FSIZE``), and a child can fill the
disk in about a second (``posix_fallocate``). That harms the container it runs in; a later
submission graded in the same container would then meet a full disk (its own files fail to
write) through no fault of its own. So the first sandbox started without a bounded scratch
claims the container for its submission (a root-owned marker file beside the scratch folders),
and a sandbox for any other submission is refused with a message that says what to do.
Gradescope grades one submission per container and throws the container away, so it never
meets the refusal; a class run at this level needs CAP_SYS_ADMIN or the bubblewrap level.

Which submission is being graded is set by ``grading(key)`` around one student's notebook
(``grading/notebook.grade_notebook``). ``docs/confinement.md`` explains the choice.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

MARKER = "unbounded-scratch-owner"
# Tests only: the setuid level acts as if no tmpfs could be mounted (docs/confinement.md).
WITHOUT_TMPFS = "AUTOGRADER_TEST_WITHOUT_TMPFS"

# The submission being graded in this process (one at a time; a process-wide value, not a
# context variable: the checks' pytest session runs in a thread of its own and starts
# children for the same submission there).
_current: list[str | None] = [None]


class ContainerTaken(RuntimeError):
    """The container already graded another submission with an unbounded scratch."""


@contextlib.contextmanager
def grading(key: str):
    """Within this block, sandboxes are started for the submission ``key`` (a student id)."""
    before, _current[0] = _current[0], str(key)
    try:
        yield
    finally:
        _current[0] = before


def claim(base: Path) -> None:
    """Claim the container for the submission being graded, before a child starts with an
    unbounded scratch. ``base``: the root-owned folder of the scratch folders.

    Outside ``grading`` (no submission: the level's own probe) nothing is claimed.

    Raises:
        ContainerTaken: another submission holds it.
    """
    key = _current[0]
    if key is None:
        return  # no submission's code (the level's own probe, check_available)
    path = Path(base) / MARKER
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(key)
        return
    try:
        owner = path.read_text(encoding="utf-8") if not path.is_symlink() else None
    except OSError:
        owner = None
    if owner == key:
        return
    raise ContainerTaken(
        "the setuid level could not bound the scratch's total size (no tmpfs: the grader lacks "
        "CAP_SYS_ADMIN), so it grades one submission per container, and this container has graded "
        "another one; grade each submission in a fresh container (as Gradescope does), give the "
        "grader CAP_SYS_ADMIN, or use the bubblewrap level")


def release(base: Path) -> None:
    """Forget the claim (tests; a fresh container has none)."""
    with contextlib.suppress(FileNotFoundError):
        (Path(base) / MARKER).unlink()
