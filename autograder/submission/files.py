"""Read what students hand in without being led elsewhere by it.

A submitted notebook is read only when it is a regular file reached without a symbolic
link: a link to ``/proc/kmsg`` would hang the class run, a link to another student's
notebook would copy that student's grade, a FIFO would block. Folders in the submitted
tree are entered only when they are real folders (``is_real_dir``). The size cap is on
the notebook's CODE (``code_size_problem``), not on its saved outputs; the whole file has
only a generous cap (``MAX_FILE_BYTES``) so a huge file cannot exhaust the grader's memory.
"""
from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 512 * 1024 ** 2  # read no more than this of any submitted file
MAX_CODE_BYTES = 2 * 1024 ** 2    # code cells of one notebook, together (UTF-8 bytes)


class UnreadableSubmission(Exception):
    """A submitted file that is not read; ``str(exc)`` says why, for the student."""


def read_submission(path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the submitted file ``path``.

    Opens it with ``O_NOFOLLOW | O_NONBLOCK`` (a symbolic link fails, a FIFO does not
    block) and checks with ``fstat`` on the open descriptor that it is a regular file.

    Args:
        path: ``str`` or ``Path``.
        max_bytes: largest file read (bytes).
    Returns:
        ``bytes``.
    Raises:
        UnreadableSubmission: a symbolic link, not a regular file, too large, or unreadable.
    """
    name = os.path.basename(os.fspath(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        if os.path.islink(path):
            raise UnreadableSubmission(f"{name} is a symbolic link, not a notebook: hand in the file itself") from None
        raise UnreadableSubmission(f"cannot read {name}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableSubmission(f"{name} is not a regular file")
        if st.st_size > max_bytes:
            raise UnreadableSubmission(f"{name} is {st.st_size / 1024 ** 2:.0f} MB, more than the "
                                       f"{max_bytes / 1024 ** 2:.0f} MB the grader reads")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > max_bytes:  # it grew while being read
                raise UnreadableSubmission(f"{name} is larger than {max_bytes / 1024 ** 2:.0f} MB")
            chunks.append(chunk)
    except OSError as exc:
        raise UnreadableSubmission(f"cannot read {name}: {exc.strerror}") from None
    finally:
        os.close(fd)


def is_real_dir(path) -> bool:
    """True when ``path`` is a folder and not a symbolic link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def code_size_problem(cells: list, name: str, max_bytes: int = MAX_CODE_BYTES) -> str | None:
    """A message when the code of ``cells`` (``[(index, source)]``) is over ``max_bytes``
    (UTF-8 bytes, all cells together), else ``None``."""
    size = sum(len(src.encode("utf-8", errors="replace")) for _, src in cells)
    if size > max_bytes:
        return (f"{name} holds {size / 1024 ** 2:.1f} MB of code, more than the "
                f"{max_bytes / 1024 ** 2:.0f} MB the grader runs")
    return None
