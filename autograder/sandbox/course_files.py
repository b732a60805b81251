"""Course files readable by root only, for grading at the setuid level in a container: ``restrict_tree`` takes
read access to the course's files from every other uid (so a child, running as a uid of its own, cannot read
the hidden checks, the reference solutions or the secret), leaving named paths readable or listable."""
from __future__ import annotations

import os
import stat


def restrict_tree(top, readable: tuple = (), listable: tuple = ()):
    """Make every file and folder under ``top`` readable by its owner only (group and other
    permission bits cleared), except the paths a child must reach: each of ``readable``
    (and all below it) gets ``o+rX``, each of ``listable`` ``o+rx`` (names, not contents), and
    every folder above one of them ``o+x``. Symbolic links are not followed.

    Args:
        top: a folder (``str`` or ``Path``), e.g. Gradescope's ``/autograder``.
        readable, listable: paths (under ``top`` or not: those outside are left alone).
    Returns:
        the number of paths whose mode changed (``int``).
    """
    top = os.path.realpath(top)
    readable = tuple(os.path.realpath(p) for p in readable)
    listable = tuple(os.path.realpath(p) for p in listable)

    def under(path, folders):
        return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)
    above = set()
    for p in readable + listable:
        while p not in ("/", "") and under(p, [top]):
            p = os.path.dirname(p)
            above.add(p)
    changed = 0

    def fix(path, st):
        nonlocal changed
        mode = stat.S_IMODE(st.st_mode)
        if under(path, readable):
            new = mode | 0o004 | (0o001 if stat.S_ISDIR(st.st_mode) or mode & 0o100 else 0)
        elif path in listable:
            new = (mode & ~0o070) | 0o005
        elif path in above:
            new = (mode & ~0o076) | 0o001
        else:
            new = mode & ~0o077
        if new != mode:
            try:
                os.chmod(path, new)
                changed += 1
            except OSError:  # a read-only mount: check_available tells whether it matters
                pass
    fix(top, os.lstat(top))
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if not stat.S_ISLNK(st.st_mode):
                fix(path, st)
    return changed
