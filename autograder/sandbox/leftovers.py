"""What a child at the setuid level may leave outside its scratch folder, and its removal.

At the setuid level (``sandbox/setuid.py``) a child runs as a leased uid of its own in the
container's own file tree. With Landlock it writes only its scratch folder. Without Landlock
(a container runtime whose seccomp profile refuses the ``landlock_*`` calls, as older Docker and
containerd defaults do) it may write every folder any user may write: ``/tmp``, ``/var/tmp``,
``/dev/shm`` and whatever else is world-writable. A later student given the same uid would
find those files. So, after each child and before a uid is leased again, every file owned by
that uid in those places is removed (``remove_files_of``), whatever shape the child gave it:
any depth, width, modes or names, without recursion, by descriptor, following no link
(``child/removal.py``). A uid whose files remain is not leased again by this process
(``clean``, ``mark_unusable``: the grader's log names what remains) and the lease goes on with
the other uids. Where the grader may mount, the launcher also covers these places in the
child's mount namespace (``sandbox/covers.py``), so the child writes none of them at all.

``writable_places()`` finds the places once per process: the usual ones, and every folder with
mode o+w that other users can reach (each folder on the way has o+x), found by walking the
file system from ``/`` without crossing into other file systems (``find / -xdev -type d
-perm -0002``), and each usual place's file system likewise; ``/proc`` and ``/sys`` are skipped.
"""
from __future__ import annotations

import functools
import os
import stat
import sys

from autograder.child import removal

USUAL = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock", "/var/lock")
SKIPPED = ("/proc", "/sys")


def _walk_writable(top, found):
    """Add to ``found`` the world-writable folders under ``top`` (itself included) on ``top``'s
    file system that other users can reach from ``top``."""
    try:
        st = os.lstat(top)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        return
    device = st.st_dev
    stack = [(top, st)]
    while stack:
        folder, fst = stack.pop()
        if fst.st_mode & stat.S_IWOTH:
            found.add(folder)
        if not fst.st_mode & stat.S_IXOTH:
            continue  # other users cannot pass this folder: nothing below is theirs to reach
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.path in SKIPPED or not entry.is_dir(follow_symlinks=False):
                    continue  # (d_type: files cost no stat)
                est = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if est.st_dev == device:
                stack.append((entry.path, est))


def _reachable(path):
    """Whether every folder on the way to ``path`` lets other users through (o+x)."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(1, len(parts)):
        folder = os.sep.join(parts[:i]) or os.sep
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


@functools.lru_cache(maxsize=None)
def writable_places() -> tuple[str, ...]:
    """Every folder a child of another uid may write to (see module docstring), sorted
    (``tuple`` of ``str``); found once per process."""
    found: set[str] = set()
    _walk_writable("/", found)
    for path in USUAL:
        if os.path.isdir(path) and not os.path.islink(path):
            _walk_writable(path, found)
    return tuple(sorted(p for p in found if _reachable(p)))


def remove(path) -> list[str]:
    """Remove ``path`` (a file, a link or a whole folder tree), whatever its depth, width, modes
    and names, without recursion and without following a link (``child/removal.py``).

    Returns:
        ``list`` of ``str``: what remains, each ``"path: why"`` (``[]`` when ``path`` is gone).
    """
    parent, name = os.path.split(os.path.abspath(path))
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"{removal.shown(path)}: {exc.strerror}"]
    try:
        return removal.remove(fd, name, removal.shown(path))
    finally:
        os.close(fd)


def files_of(uid: int, places=None) -> list[str]:
    """Paths owned by ``uid`` directly in ``places`` (default ``writable_places()``): what a
    child of that uid left there. A folder of its own counts once (its contents go with it)."""
    left = []
    for place in places if places is not None else writable_places():
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    left.append(entry.path)
            except OSError:
                continue
    return left


def remove_files_of(uid: int, places=None) -> list[str]:
    """Remove every file and folder owned by ``uid`` in ``places`` (default
    ``writable_places()``). Returns what remains, each ``"path: why"`` (``[]`` when clean)."""
    left = []
    for path in files_of(uid, places):
        left += remove(path)
    return left


# uid -> what it left that could not be removed: not leased again by this process
_unusable: dict[int, list[str]] = {}


def mark_unusable(uid: int, left) -> None:
    """Leave ``uid`` out of this process's leases from now on, because what it left (``left``:
    ``"path: why"`` lines) could not be removed; said once in the grader's log (stderr)."""
    if uid in _unusable:
        return
    _unusable[uid] = list(left)
    print(f"setuid level: sandbox uid {uid} is not used again in this run: what it left could not be "
          "removed (remove it as root; the next run tries again):\n  " + "\n  ".join(_unusable[uid]),
          file=sys.stderr, flush=True)


def unusable() -> dict[int, list[str]]:
    """The uids this process left out (``mark_unusable``), each with what remains."""
    return dict(_unusable)


def clean(uid: int) -> bool:
    """Remove what ``uid`` left in the writable places; whether nothing of it remains. A uid
    whose leftovers cannot be removed is marked unusable (``mark_unusable``) and not tried again
    by this process: the lease goes on with the other uids."""
    if uid in _unusable:
        return False
    left = remove_files_of(uid)
    if left:
        mark_unusable(uid, left)
    return not left


def mount_scratch(folder, uid, size) -> bool:
    """At the setuid level: mount a tmpfs of ``size`` bytes, owned by ``uid``, on ``folder``: the scratch's total size
    is bounded, not only each file's (``RLIMIT_FSIZE``). Whether it could (it needs
    CAP_SYS_ADMIN, which a container's root usually lacks; then the scratch stays on the
    container's disk, docs/confinement.md says what that leaves)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={int(size)},mode=0700,uid={int(uid)},gid={int(uid)},nr_inodes=16384".encode()
    # MS_NOSUID | MS_NODEV | MS_NOEXEC
    return libc.mount(b"setuid-scratch", os.fsencode(folder), b"tmpfs", 0x2 | 0x4 | 0x8, options) == 0


def unmount(folder) -> None:
    """Detach the tmpfs ``mount_scratch`` put on ``folder``."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.umount2(os.fsencode(folder), 2)  # MNT_DETACH
