"""Trees shaped to resist removal, built as student code builds them: by descriptor.

Standard library only and self-contained: a test hands this module's text in as a notebook cell,
so that a child builds the same trees (tests/sandbox/test_setuid_leftovers.py).
"""
import os

# a name of one letter, a newline, bytes that are not UTF-8, the longest a name may be
NAMES = [b"d", b"new\nline", b"\xff\xfe", b"x" * 255]
# the folder modes, level by level: none at all, sticky+setgid+0777, sticky only, setgid only
MODES = [0o000, 0o3777, 0o1000, 0o2000]
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def build_chain(parent, name, depth, bottom=None):
    """Make ``parent/name`` and a chain of ``depth`` folders below it, named and moded level by
    level after ``NAMES`` and ``MODES`` (modes set from the bottom up, once the chain exists);
    ``bottom(fd)``, when given, is called with the deepest folder open first. Returns the path
    of the deepest folder (``str``; longer than ``PATH_MAX`` for a deep chain: for messages)."""
    os.mkdir(os.path.join(parent, name))
    fd = os.open(os.path.join(parent, name), _DIR)
    for i in range(depth):
        os.mkdir(NAMES[i % 4], dir_fd=fd)
        deeper = os.open(NAMES[i % 4], _DIR, dir_fd=fd)
        os.close(fd)
        fd = deeper
    if bottom is not None:
        bottom(fd)
    for i in reversed(range(depth)):
        up = os.open("..", _DIR, dir_fd=fd)
        os.close(fd)
        fd = up
        os.chmod(NAMES[i % 4], MODES[i % 4], dir_fd=fd)
    os.close(fd)
    return os.path.join(parent, name, *(os.fsdecode(NAMES[i % 4]) for i in range(depth)))


def exists_any(parent, name):
    """Whether ``parent`` holds an entry ``name`` (of any kind, a dangling link included)."""
    try:
        fd = os.open(parent, _DIR)
    except OSError:
        return False
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def leave_shapes(places, tag, depth, width):
    """In each folder of ``places``: a chain of ``depth`` folders (``build_chain``) with a file
    at its bottom, a folder of ``width`` files, and a folder of mode 000 inside one of mode 000.
    Returns ``(paths made, uid)``; a place that refuses is reported as ``"refused <error>"``."""
    made = []
    for place in places:
        try:
            build_chain(place, tag, depth, bottom=lambda fd: os.close(
                os.open("secret", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)))
            wide = os.path.join(place, tag + "-wide")
            os.mkdir(wide)
            for i in range(width):
                os.close(os.open(os.path.join(wide, str(i)), os.O_CREAT | os.O_WRONLY, 0o644))
            locked = os.path.join(place, tag + "-locked")
            os.makedirs(os.path.join(locked, "inner"))
            os.chmod(os.path.join(locked, "inner"), 0)
            os.chmod(locked, 0)
            made += [os.path.join(place, tag), wide, locked]
        except OSError as exc:
            made.append(f"refused {type(exc).__name__}")
    return made, os.getuid()
