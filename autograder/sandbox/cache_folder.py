"""Writing a cache file where other users may have planted something: the checks and the write.

``python -m autograder caches`` runs as the instructor (``scripts/hub.sh course``) and as root
(``scripts/setup.sh``), and tiktoken's default cache folder, ``$TMPDIR/data-gym-cache``, lies in
a folder every user may write. A student could create that folder first, or put a link at the
name of the file about to be written (``<key>.tmp``, once a fixed name), and have the
instructor's or root's write land in any file of theirs. So a cache file is written only:

* into a folder opened without following a link (``O_NOFOLLOW | O_DIRECTORY``; created with
  ``mkdir``, which never follows one either), that this user owns and that no other user may
  write: a folder that is a link, that another user owns (root included: it is then not ours
  to fill) or that others may write (``o+w``, or ``g+w`` for a group other than this user's
  own and root's) is refused, naming it (``UnsafeFolder``);
* whose parent folder is owned by root or this user and, when others may write it, has the
  sticky bit (``/tmp`` does): otherwise another user could rename the checked folder away and
  put one of theirs in its place for whoever reads it next;
* through a new file of an unpredictable name, created exclusively in that folder's descriptor
  (``O_CREAT | O_EXCL | O_NOFOLLOW`` with ``dir_fd``), then renamed over the target
  (``rename`` replaces the name, never writes through it).

A file already there is read only when it is a regular file reached without a link, and only
up to the size expected (a link to ``/dev/zero`` or a FIFO is neither read nor trusted).
"""
from __future__ import annotations

import errno
import os
import secrets
import stat

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFolder(Exception):
    """A cache folder that others could redirect or fill (``path``: the folder, ``why``)."""

    def __init__(self, path, why):
        super().__init__(f"{path}: {why}; refused (nothing written there)")
        self.path, self.why = str(path), why


def _owner(uid):
    if uid == 0:
        return "root"
    try:
        import pwd
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def _others_may_write(st) -> bool:
    """Whether a user other than the folder's owner may add or rename entries in it."""
    if st.st_mode & stat.S_IWOTH:
        return True
    return bool(st.st_mode & stat.S_IWGRP) and st.st_gid not in (0, os.getegid())


def open_folder(path, create: bool = True, owners=None) -> int:
    """Open the cache folder ``path`` for writing in it, after the checks of the module docstring.

    Args:
        path: the folder (``str`` or ``Path``). Links in the path *above* its parent are followed
            (they are their owners' choice, such as a symlinked home); the folder itself must
            not be one.
        create: make it (mode 0755) when missing, and its missing parents (``os.makedirs``).
        owners: the uids it may belong to (default: this user's only, as writing needs; a
            reader may add root's).
    Returns:
        an open descriptor of the folder (``int``; the caller closes it).
    Raises:
        UnsafeFolder: the folder or its parent fails a check (the message names it and why).
        OSError: it is missing (``create=False``) or cannot be made.
    """
    path = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(path)
    if create:
        os.makedirs(parent, exist_ok=True)
    pfd = os.open(os.path.realpath(parent), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        pst = os.fstat(pfd)
        if pst.st_uid not in (0, os.geteuid()):
            raise UnsafeFolder(path, f"the folder that holds it, {parent}, is owned by {_owner(pst.st_uid)}, "
                                     "who could put another folder in its place")
        if _others_may_write(pst) and not pst.st_mode & stat.S_ISVTX:
            raise UnsafeFolder(path, f"the folder that holds it, {parent}, may be written by other users "
                                     "and has no sticky bit, so they could put another folder in its place")
        if create:
            try:
                os.mkdir(name, 0o755, dir_fd=pfd)
            except FileExistsError:
                pass
            else:
                os.chmod(name, 0o755, dir_fd=pfd, follow_symlinks=False)  # whatever the umask
        try:
            fd = os.open(name, _DIR, dir_fd=pfd)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):  # what O_NOFOLLOW | O_DIRECTORY says of a link
                raise
            try:
                target = f" (to {os.readlink(name, dir_fd=pfd)!r})"
            except OSError:
                raise UnsafeFolder(path, "it is not a folder") from None
            raise UnsafeFolder(path, f"it is a symbolic link{target}, which could lead anywhere") from None
    finally:
        os.close(pfd)
    st = os.fstat(fd)
    why = None
    if st.st_uid not in (owners or (os.geteuid(),)):
        why = f"it is owned by {_owner(st.st_uid)}, not by {_owner(os.geteuid())}, who writes it"
    elif _others_may_write(st) and not st.st_mode & stat.S_ISVTX:
        why = f"other users may write it (mode {stat.filemode(st.st_mode)}) and it has no sticky bit"
    if why:
        os.close(fd)
        raise UnsafeFolder(path, why)
    return fd


def read_file(dir_fd: int, name: str, size: int) -> bytes | None:
    """The bytes of ``name`` in the folder ``dir_fd`` when it is a regular file reached without
    a link, at most ``size + 1`` of them (so a longer file shows as such); else ``None``."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, want = [], size + 1
        while want > 0:
            chunk = os.read(fd, min(want, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_file(dir_fd: int, name: str, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` as ``name`` in the folder open as ``dir_fd``: a new file of an
    unpredictable name created exclusively there (no link followed), flushed to disk, given
    ``mode``, then renamed over ``name``.

    Raises:
        OSError: the write or the rename failed (the new file is removed).
    """
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name for {name}")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
