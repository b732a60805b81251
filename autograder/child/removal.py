"""Removing a tree that student code shaped: no recursion, by descriptor, following no link.

Student code chooses the shape of what it leaves: a chain of thousands of folders (``os.walk``
and ``shutil.rmtree`` recurse once per level, and Python stops at 1,000; the deepest path is
far longer than ``PATH_MAX``, 4,096 bytes, so no call that takes a path reaches it), folders
of a hundred thousand entries, folders of mode 000 (not even their owner may list them until
a ``chmod``), sticky and setgid folders, names with newlines, bytes that are not UTF-8, or 255
bytes. ``remove(dir_fd, name)`` removes such a tree whatever its shape:

* no recursion: the folders being emptied are a list (one small record per level), and at
  most two descriptors are open at a time besides the caller's;
* every entry is reached from its folder's descriptor (``openat``, ``unlinkat``,
  ``fchmodat`` with ``dir_fd``): a folder is opened with ``O_NOFOLLOW | O_DIRECTORY``, a link
  is removed as a name and never followed, and each folder is made ``0700`` before it is
  opened (``fchmodat`` without following a link: a mode-000 folder of its owner, sticky or
  setgid bits);
* going back up opens ``..`` and checks that it is the folder it came down from (``st_dev``
  and ``st_ino``): had someone moved a folder meanwhile, the removal stops there rather than
  go on in another place;
* it never enters another file system (a mount point is left and named).

What cannot be removed (an immutable file, a mount point, a folder moved away meanwhile) is
left and named in the answer, the rest is removed all the same.

Standard library only: the fork server runs it inside the sandbox (``child/forkserver.py``),
and the grader runs it for the setuid level's leftovers (``sandbox/leftovers.py``).
"""
import os
import stat

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_RELIST = 3  # a folder is listed again at most this many times when entries appear meanwhile
SHOWN_LEFT = 20  # leftovers named in full; the rest are counted


def shown(name) -> str:
    """``name`` (``str`` or ``bytes``) as one printable line: bytes that are not UTF-8 as
    ``\\xNN``, control characters (a newline) escaped, and a long name shortened."""
    text = os.fsencode(name).decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= 80 else f"{text[:40]}...{text[-20:]} ({len(os.fsencode(name))} bytes)"


def _where(top, names):
    """The path of an entry ``names`` deep below ``top``, for a message (short for deep ones)."""
    parts = [shown(n) for n in names]
    if len(parts) > 8:
        parts = parts[:3] + [f"... {len(parts) - 6} more folders ..."] + parts[-3:]
    return "/".join([top, *parts])


class _Level:
    """One folder being emptied: its descriptor (while it is the current one), its identity,
    its name in its parent, the names still to do, and those that could not be removed."""

    __slots__ = ("fd", "dev", "ino", "name", "todo", "stuck", "listed")

    def __init__(self, fd, st, name):
        self.fd, self.dev, self.ino, self.name = fd, st.st_dev, st.st_ino, name
        self.todo, self.stuck, self.listed = [], set(), 0

    def next_name(self):
        while True:
            while self.todo:
                name = self.todo.pop()
                if name not in self.stuck:
                    return name
            if self.listed >= _RELIST:
                return None
            self.listed += 1
            self.todo = [n for n in os.listdir(self.fd) if n not in self.stuck]
            if not self.todo:
                return None


def _open_folder(parent_fd, name, device):
    """Make the folder ``name`` of ``parent_fd`` listable (``0700``, no link followed) and open
    it. Returns ``(fd, stat)``; raises ``OSError`` (``ELOOP``/``ENOTDIR`` for a link, ``EXDEV``
    for another file system)."""
    try:
        os.chmod(name, 0o700, dir_fd=parent_fd, follow_symlinks=False)
    except (OSError, ValueError, NotImplementedError):
        pass  # a link (never followed), or not ours to change: the open below decides
    fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    st = os.fstat(fd)
    if st.st_dev != device:
        os.close(fd)
        raise OSError(18, "a mount point (another file system)")  # EXDEV
    return fd, st


def remove(dir_fd: int, name, top: str = "") -> list[str]:
    """Remove the entry ``name`` of the folder open as ``dir_fd``, whatever it is: a file, a
    link (not followed), a device, a FIFO, or a folder tree of any depth, width, modes and
    names (module docstring).

    Args:
        dir_fd: a descriptor of the folder that holds ``name`` (``int``; left open).
        name: the entry's name (``str`` or ``bytes``), not a path.
        top: how to name the entry in messages (its path; default: ``name``).
    Returns:
        ``list`` of ``str``: what remains, each ``"path: why"``, at most ``SHOWN_LEFT`` of them
        and then a count; ``[]`` when the entry is gone.
    """
    top = top or shown(name)
    left = []
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"{top}: {exc.strerror}"]
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            left.append(f"{top}: {exc.strerror}")
        return left
    try:
        fd, st = _open_folder(dir_fd, name, os.fstat(dir_fd).st_dev)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"{top}: {exc.strerror}"]
    _empty(fd, st, top, left)
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if not left:
            left.append(f"{top}: {exc.strerror}")
    return _counted(left)


def empty(fd: int, top: str = "") -> list[str]:
    """Remove everything inside the folder open as ``fd`` (the folder stays; ``fd`` is left
    open). Returns what remains, as ``remove`` does."""
    left: list[str] = []
    _empty(os.dup(fd), os.fstat(fd), top or ".", left)
    return _counted(left)


def _counted(left):
    if len(left) > SHOWN_LEFT:
        return left[:SHOWN_LEFT] + [f"... and {len(left) - SHOWN_LEFT} more entries"]
    return left


def _empty(fd, st, top, left):
    """Empty the folder open as ``fd`` (closed on return); add to ``left`` what remains."""
    device = st.st_dev
    levels = [_Level(fd, st, None)]
    names = []  # the names from the top to the current folder, for messages
    try:
        while levels:
            here = levels[-1]
            try:
                name = here.next_name()
            except OSError as exc:
                left.append(f"{_where(top, names)}: cannot list: {exc.strerror}")
                here.stuck.add(None)  # named once: not again when its removal fails
                name = None
            if name is not None:
                try:
                    est = os.stat(name, dir_fd=here.fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    here.stuck.add(name)
                    left.append(f"{_where(top, [*names, name])}: {exc.strerror}")
                    continue
                if not stat.S_ISDIR(est.st_mode):
                    try:
                        os.unlink(name, dir_fd=here.fd)
                    except FileNotFoundError:
                        pass
                    except OSError as exc:
                        here.stuck.add(name)
                        left.append(f"{_where(top, [*names, name])}: {exc.strerror}")
                    continue
                try:
                    os.rmdir(name, dir_fd=here.fd)  # an empty folder needs no visit
                    continue
                except FileNotFoundError:
                    continue
                except OSError:
                    pass
                try:
                    child, cst = _open_folder(here.fd, name, device)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    here.stuck.add(name)
                    left.append(f"{_where(top, [*names, name])}: {exc.strerror}")
                    continue
                if len(levels) > 1:  # deeper than the top: found again through ".." on the way up
                    os.close(here.fd)
                    here.fd = None
                levels.append(_Level(child, cst, name))
                names.append(name)
                continue
            # this folder is done (empty, or only what cannot be removed is left): go up
            if len(levels) == 1:
                break
            done = levels.pop()
            names.pop()
            parent = levels[-1]
            if parent.fd is None:
                try:
                    up = os.open("..", _DIR_FLAGS, dir_fd=done.fd)
                except OSError as exc:
                    left.append(f"{_where(top, names)}: cannot go back up: {exc.strerror}")
                    os.close(done.fd)
                    done.fd = None
                    return
                ust = os.fstat(up)
                if (ust.st_dev, ust.st_ino) != (parent.dev, parent.ino):
                    os.close(up)
                    os.close(done.fd)
                    done.fd = None
                    left.append(f"{_where(top, [*names, done.name])}: moved while it was removed; stopped there")
                    return
                parent.fd = up
            os.close(done.fd)
            done.fd = None
            try:
                os.rmdir(done.name, dir_fd=parent.fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                parent.stuck.add(done.name)
                if not done.stuck:
                    left.append(f"{_where(top, [*names, done.name])}: {exc.strerror}")
    finally:
        for level in levels:
            if level.fd is not None:
                os.close(level.fd)
