"""What a child at the setuid level sees of the file tree, where the grader may mount.

The setuid level has no mount namespace of its own unless the launcher (root, between ``fork``
and ``exec``) may make one (CAP_SYS_ADMIN). Where it may, ``show_through`` covers folders in the
child's namespace with an empty tmpfs of root's, holding bind mounts of just the paths the child
needs below them; the machine's own mounts and modes are untouched. Two kinds of folder are
covered: those other users cannot enter (``for_unreachable``: a Python installation under
``/root``, reached without opening ``/root`` to anyone), and the shared folders any user may
write (``with_places``: ``/tmp``, ``/var/tmp``, ``/dev/shm``, ...), so that without Landlock the
child still writes nothing outside its bounded scratch.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path


def unreachable_top(path):
    """The first folder on the way to ``path`` that other users cannot enter (no ``o+x``, such
    as ``/root``), or ``None`` when every folder on the way lets them through."""
    parts = Path(os.path.realpath(path)).parts
    for i in range(1, len(parts)):
        folder = os.path.join(*parts[:i])
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return None
    return None


def for_unreachable(paths):
    """``{folder: [paths under it]}`` for the paths a child must reach that lie below a folder
    other users cannot enter (a Python installation under ``/root``, for instance)."""
    out = {}
    for path in paths:
        top = unreachable_top(path)
        if top is not None and os.path.realpath(path) != top:
            out.setdefault(top, []).append(os.path.realpath(path))
    return out


def _under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def with_places(covers, needed, places):
    """``covers`` (``for_unreachable``) with every folder of ``places`` added (the shared folders a child
    could write: ``/tmp``, ``/var/tmp``, ``/dev/shm``, ...), each with the paths of ``needed``
    below it (the scratch folder under ``/tmp``, a venv under ``/tmp``), so that in the child's
    mount namespace a shared folder is an empty tmpfs of root's that it cannot write: nothing it
    writes outside its bounded scratch reaches a shared folder or another user. A place nested
    in another is covered with it; a place that is itself a needed path is left as it is."""
    needed = {os.path.realpath(p) for p in needed}
    outer = []
    # found once per process: a place removed since, or now a link, is not covered (show_through
    # also skips one that goes between here and the child's start)
    for place in sorted({os.path.realpath(p) for p in places if os.path.isdir(p) and not os.path.islink(p)}):
        if any(_under(place, q) for q in outer) or place in needed:
            continue
        outer.append(place)
    out = {place: sorted(p for p in needed if _under(p, place) and p != place) for place in outer}
    for top, paths in covers.items():
        if not any(_under(top, place) for place in out):
            out[top] = paths
    return out


def show_through(covers, optional=()):
    """In a private mount namespace of this (forked, still root) process: cover each folder of
    ``covers`` with an empty tmpfs that others may enter, holding bind mounts of just the
    paths below it that the child needs; the machine's own mounts and modes are untouched.
    Needs CAP_SYS_ADMIN (a container's root usually lacks it: then nothing is done, and the
    paths must be reachable as they are). A folder is covered through a descriptor opened
    without following a link (a shared folder its owner replaced by a link to ``/usr`` covers
    nothing of ``/usr``); a folder of ``optional`` that is gone or is no folder is skipped.

    Raises:
        OSError: a mount failed, or a folder not in ``optional`` cannot be opened.
    """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
        return
    if libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None) != 0:  # MS_REC | MS_PRIVATE
        raise OSError(ctypes.get_errno(), "make / private")
    # opened in the new namespace (a bind mount's source must belong to it), before the covers
    fds = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for paths in covers.values() for path in paths}
    for top, paths in covers.items():
        try:
            tfd = os.open(top, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            if top in optional:
                continue
            raise
        try:
            if libc.mount(b"setuid-level", f"/proc/self/fd/{tfd}".encode(), b"tmpfs", 0x2 | 0x4 | 0x8,
                          b"mode=0711,size=64k") != 0:
                raise OSError(ctypes.get_errno(), f"tmpfs on {top}")
        finally:
            os.close(tfd)
        for path in paths:
            if os.path.isdir(f"/proc/self/fd/{fds[path]}"):
                os.makedirs(path, mode=0o711, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), mode=0o711, exist_ok=True)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
            if libc.mount(f"/proc/self/fd/{fds[path]}".encode(), path.encode(), None, 0x1000 | 0x4000, None) != 0:
                raise OSError(ctypes.get_errno(), f"bind {path}")
    for fd in fds.values():
        os.close(fd)
