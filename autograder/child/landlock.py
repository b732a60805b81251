"""Landlock: the second layer of confinement, which the child applies to itself.

The first layer is the bubblewrap sandbox with its seccomp allow-list, set up by the
grader (``autograder/sandbox/policy.py``) before this process starts. Standard library only;
part of the child package (see ``autograder/child/__init__.py``).
"""
import os

# -- Landlock: what the child may read, write, execute, connect to and signal ----------------
# Linux's Landlock LSM (kernel 5.13+) lets an unprivileged process restrict itself, and
# everything it starts, for good. Inside the sandbox the child keeps read access to what
# the sandbox shows, write access to its scratch folder only, runs no program, opens no
# TCP connection (ABI 4+) and signals nothing outside itself (ABI 6+). Where Landlock is
# missing it does nothing: the sandbox already enforces all of that.
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_FS_EXECUTE, _FS_WRITE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ALL_V1 = (1 << 13) - 1
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11
_NET_ALL = 1 | 2          # bind and connect TCP
_SCOPE_ALL = 1 | 2        # abstract unix sockets and signals


def landlock(read_paths, exec_paths, write_paths, list_paths=()):
    """Confine this process: read ``read_paths``, also execute programs under ``exec_paths``
    (the Python installation), do anything under ``write_paths``, and only list the folders
    of ``list_paths`` (names, not contents: the import system lists ``sys.path`` entries).

    Returns the Landlock ABI version applied, or 0 when the kernel has no Landlock.
    """
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    fs = _FS_ALL_V1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) \
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, _NET_ALL, _SCOPE_ALL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, _NET_ALL)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(_SYS_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    read = _FS_READ_FILE | _FS_READ_DIR
    write = fs & ~(_MAKE_CHAR | _MAKE_BLOCK)  # no device nodes, even in its own folder
    for paths, access in ((read_paths, read), (exec_paths, read | _FS_EXECUTE), (write_paths, write),
                          (list_paths, _FS_READ_DIR)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = access if os.path.isdir(path) else access & (_FS_EXECUTE | _FS_WRITE | _FS_READ_FILE
                                                                   | _FS_TRUNCATE | _FS_IOCTL_DEV)
            rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
            libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
            os.close(fd)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, required by restrict_self
        return 0
    if libc.syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        return 0
    os.close(ruleset)
    return abi
