"""What a submission's child process can see and do: the whole confinement policy.

Every child that runs student code is started by bubblewrap (``bwrap``, Debian package
``bubblewrap``) with the argument list of ``bwrap_args`` and the seccomp allow-list of
``ALLOWED_SYSCALLS``:

* **Namespaces**: new user, PID, network, IPC, UTS, mount and (where the kernel has them)
  cgroup namespaces. Its ``/proc`` shows only the sandbox's own processes; its network
  namespace has nothing but its own loopback interface; ``--disable-userns`` stops it
  from making namespaces of its own. ``--new-session``, ``--die-with-parent`` and
  ``--as-pid-1``: the child itself is the sandbox's PID 1 (it cannot fork, so it needs no
  reaper, and bwrap reaps it: bwrap's own reaper was left a zombie for the machine's init,
  which used up the sandbox uid's RLIMIT_NPROC); killing it ends every process in the sandbox.
* **User**: an unprivileged uid with every capability dropped. When grading runs as root,
  bubblewrap itself is started as a uid of its own from ``SANDBOX_UIDS`` (default
  1500000000-1500000063; change with the environment variable ``AUTOGRADER_SANDBOX_UIDS``
  = ``FIRST-LAST``), one per sandbox running at a time, that owns no file and no other
  process on the machine: the child is nobody outside too, and each sandbox's
  ``RLIMIT_NPROC`` counts only its own processes. When grading runs as an ordinary user,
  bubblewrap runs as that user: outside the sandbox the child's processes belong to the
  grading user, so it can read what that user can read *if* it were visible (it is not:
  see below), and the host counts its processes with the user's (the sandbox's own limit
  still counts only the sandbox's, since Linux 5.14 counts per user namespace).
* **Files**: an empty root with, read-only, ``/usr`` (system libraries), the Python
  installation (``sys.base_prefix``), the virtual environment (``sys.prefix``, its
  packages), the child package (``autograder/child``), tiktoken's one cache file and
  ``/etc/ld.so.cache``; a private ``/proc``; a ``/dev`` holding only ``null``, ``zero``
  and ``urandom``; and a private writable ``/tmp`` (its working directory and ``HOME``)
  capped at ``Limits.scratch_bytes`` and, grading as root, at ``Limits.scratch_inodes``
  files and folders (a tmpfs the launcher mounts with ``nr_inodes``: a million empty
  folders would otherwise hold kernel memory outside every limit). Nothing else exists there: not the course folder,
  not ``/etc/shadow``, not other students' notebooks, not ``/sys`` (the folders above what
  is shown exist only as empty mount points). Grader files that lie inside a shown folder
  (``grader_locations``: ``solutions``, ``autograder``, ``exercises``, the course secret, e.g. after a
  non-editable install into the venv) are covered by an empty folder. Paths under ``/root``
  (0700) are handed to it through a private mount namespace of the grader's launcher,
  so ``/root`` is never made readable on the machine.
* **System calls**: a seccomp allow-list built with libseccomp (``pyseccomp``), by name,
  so it holds on x86_64 and aarch64 alike. Anything not listed fails with EPERM; a call
  of any other architecture (i386 ``int 0x80``, x32) kills the process. New processes
  are refused (``clone`` only with ``CLONE_THREAD`` and no namespace flag; ``fork``,
  ``vfork`` refused, ``clone3`` answers ENOSYS so glibc falls back to ``clone``), so
  a submission is one process with threads; ``RLIMIT_NPROC`` bounds the threads.
  No sockets at all, no ``prlimit64`` on another process, no ``setpriority``, no
  ``ptrace``, ``mount``, ``unshare``, ``setns``, ``chroot``, ``bpf``, ``perf_event_open``,
  ``keyctl``, ``io_uring``, ``userfaultfd``, ``kexec``, modules, ``reboot``, no
  ``chown`` or ``setxattr``, ``ioctl`` only for the few terminal and descriptor
  queries Python makes (so no ``FS_IOC_SETFLAGS``/``FS_IOC_FSSETXATTR``).
  ``chmod`` and ``utime`` are allowed: outside ``/tmp`` every file is on a read-only mount.
* **Limits** (``Limits``): address space, CPU seconds, file size, open files, number of
  processes and threads, scratch size; set by the launcher before bubblewrap starts, so
  everything in the sandbox inherits them (as soft = hard: they cannot be raised again);
  the child sets ``RLIMIT_NPROC`` once more on itself, where it counts only the sandbox's
  own tasks. Core dumps off.

Inside, the child adds Landlock (``child/landlock.py``) as a second layer: read anything
it can see, write only ``/tmp``, run no program, no TCP, no signals out.

This is the first of two confinement levels (``sandbox/levels.py``). Where bubblewrap cannot start
(a container started with a runtime's defaults refuses user namespaces or a new ``/proc``)
and the grader runs as root, the second level (``sandbox/setuid.py``) starts each child as a
uid and gid of its own with the same seccomp allow-list, the same limits, an environment
built from nothing and Landlock where the kernel has it, but no namespaces: it sees the
machine's file tree and, without Landlock, its process list and command lines. What each
level hides and does not hide: ``docs/containers.md``.

``bubblewrap.Sandbox`` starts one sandbox with this policy (uid lease, descriptors, the
launcher between fork and exec); ``bubblewrap.check_available()`` says whether all of this can start here; the grader refuses to run
student code when it cannot, unless told ``--unconfined``.
"""
from __future__ import annotations

import errno
import functools
import os
import resource
import shutil
import site
import sys
from pathlib import Path

CHILD_PACKAGE = Path(__file__).resolve().parents[1] / "child"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
SCRATCH = "/tmp"  # the child's working folder, HOME and TMPDIR, inside the sandbox

# -- uids for sandboxes started by root -------------------------------------------------
DEFAULT_SANDBOX_UIDS = (1_500_000_000, 1_500_000_063)


def sandbox_uids():
    """``(first, last)`` uids used for sandboxes when grading runs as root.

    Read from ``$AUTOGRADER_SANDBOX_UIDS`` ("FIRST-LAST") or ``DEFAULT_SANDBOX_UIDS``.
    Raises:
        ValueError: a malformed range, or one that includes uid 0.
    """
    text = os.environ.get("AUTOGRADER_SANDBOX_UIDS")
    if not text:
        return DEFAULT_SANDBOX_UIDS
    try:
        first, last = (int(x) for x in text.split("-"))
    except ValueError:
        raise ValueError(f"AUTOGRADER_SANDBOX_UIDS={text!r}: expected FIRST-LAST, e.g. 1500000000-1500000063") from None
    if not 0 < first <= last < 2 ** 32 - 1:
        raise ValueError(f"AUTOGRADER_SANDBOX_UIDS={text!r}: not a range of unprivileged uids")
    return first, last


# -- the files the child sees ------------------------------------------------------------
def grader_locations() -> list:
    """Files of the grader that must never be visible, even inside a shown folder (a
    non-editable install puts ``solutions``, ``autograder`` and ``exercises`` into the venv's
    packages): the reference solutions, the grader package, the course (hidden checks), the
    course secret."""
    import importlib.util

    from autograder.core.registry import SECRET_FILE
    packages = ("solutions", "autograder", "exercises")
    locations = {str(PROJECT_ROOT / name) for name in packages} | {str(SECRET_FILE)}
    for name in packages:
        try:
            spec = importlib.util.find_spec(name)  # finds, does not import
        except (ImportError, ValueError):
            continue
        locations.update(spec.submodule_search_locations or [] if spec else [])
    return sorted({os.path.realpath(p) for p in locations if os.path.exists(p)})


def _inside(path, folders):
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def visible_paths() -> list:
    """What the sandbox shows, read-only, each at its own path, in mount order.

    Returns:
        list of ``(path, kind)``: kind "dir" or "file" (bound read-only), "symlink"
        (``path`` is a symbolic link on this machine, e.g. ``/lib -> usr/lib``; recreated),
        or "hide" (a grader location inside a shown folder, covered by an empty one).
    """
    import hashlib

    from autograder.sandbox.tiktoken_cache import CL100K_URL, cache_dir
    out = [("/usr", "dir")]
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(top):
            out.append((top, "symlink"))
        elif os.path.isdir(top):
            out.append((top, "dir"))
    dirs = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, *site.getsitepackages())}
    for d in sorted(dirs):
        if os.path.isdir(d) and not _inside(d, [p for p, k in out if k == "dir"]) and not _inside(d, dirs - {d}):
            out.append((d, "dir"))
    shown = [p for p, k in out if k == "dir"]
    hidden = [p for p in grader_locations() if _inside(p, shown)]
    out += [(p, "hide") for p in hidden]
    child = str(CHILD_PACKAGE)
    if not _inside(child, shown) or _inside(child, hidden):
        out.append((child, "dir"))
    tiktoken_file = cache_dir() / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    from autograder.sandbox.matplotlib_cache import cache_dir as matplotlib_cache
    font_lists = sorted(str(p) for p in matplotlib_cache().glob("fontlist-*.json"))  # child/mplcache.py
    for f in ("/etc/ld.so.cache", str(tiktoken_file), *font_lists):
        if os.path.isfile(f):
            out.append((os.path.realpath(f), "file"))
    return out


def shown_in_sandbox(path: str, shown: list | None = None) -> bool:
    """Whether ``path`` opens inside the sandbox as it does here: each symbolic link met on the way
    (the path's own folders, then each link's target) lies where the sandbox shows it, and the file
    reached lies in a shown folder or is a shown file.

    Args:
        path: an absolute path (``str``), e.g. ``process.interpreter()``.
        shown: ``visible_paths()`` (computed when ``None``).
    Returns:
        ``bool``; ``False`` also for a loop of more than 40 links.
    """
    shown = visible_paths() if shown is None else shown
    dirs = [p for p, k in shown if k == "dir"]
    files = {p for p, k in shown if k == "file"}
    links = {p for p, k in shown if k == "symlink"}
    parts, current, hops = [x for x in path.split("/") if x], "/", 0
    while parts:
        name = parts.pop(0)
        if name in (".", ""):
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        step = os.path.join(current, name)
        if os.path.islink(step):
            hops += 1
            if hops > 40 or not (step in links or _inside(step, dirs)):
                return False
            target = os.readlink(step)
            current = "/" if target.startswith("/") else current
            parts[:0] = [x for x in target.split("/") if x]
            continue
        current = step
    return _inside(current, dirs) or current in files


# -- the system calls it may make -----------------------------------------------------------
ALLOWED_SYSCALLS = (
    # files and descriptors (what it can reach is decided by the mount view)
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "lseek", "close", "close_range", "open", "openat", "openat2", "creat", "stat", "fstat", "lstat",
    "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat", "faccessat2", "readlink",
    "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "truncate", "ftruncate", "fsync", "fdatasync", "fallocate", "fadvise64", "readahead", "flock", "fcntl",
    "dup", "dup2", "dup3", "pipe", "pipe2", "sendfile", "copy_file_range", "umask",
    "chmod", "fchmod", "fchmodat", "fchmodat2", "utime", "utimes", "futimesat", "utimensat",
    "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
    "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
    "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
    # memory
    "brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "msync", "mincore", "mbind",
    "get_mempolicy", "set_mempolicy", "membarrier",
    # signals and time (kill reaches only the sandbox's own processes: PID namespace)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigsuspend",
    "sigaltstack", "kill", "tkill", "tgkill", "pause", "nanosleep", "clock_nanosleep", "clock_gettime",
    "clock_getres", "gettimeofday", "time", "getitimer", "setitimer", "alarm", "timer_create",
    "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete", "timerfd_create",
    "timerfd_settime", "timerfd_gettime",
    # identity and its own limits (setrlimit cannot raise a hard limit without a capability)
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
    "getgroups", "getpgrp", "getpgid", "getsid", "getpriority", "getrlimit", "setrlimit", "getrusage",
    "sysinfo", "times", "uname", "getrandom", "capget",
    # threads and the process itself
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address", "rseq", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
    "sched_get_priority_min", "arch_prctl", "exit", "exit_group", "wait4", "waitid",
    "execve",  # bubblewrap installs the filter just before it starts Python
    "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",  # can only restrict
)
# Allowed only with these arguments (see seccomp_filter): clone (threads), clone3 (ENOSYS),
# prlimit64 (itself), ioctl (IOCTLS), prctl (PRCTLS). Everything else: EPERM.
_CLONE_THREAD = 0x00010000
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000 | 0x00000080  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
IOCTLS = {"TCGETS": 0x5401, "TIOCGWINSZ": 0x5413, "FIONREAD": 0x541B, "FIONBIO": 0x5421,
          "FIONCLEX": 0x5450, "FIOCLEX": 0x5451}
PRCTLS = {"PR_GET_DUMPABLE": 3, "PR_SET_NAME": 15, "PR_GET_NAME": 16, "PR_GET_SECCOMP": 21,
          "PR_SET_NO_NEW_PRIVS": 38, "PR_GET_NO_NEW_PRIVS": 39, "PR_SET_VMA": 0x53564D41}


def seccomp_filter(arch=None):
    """The allow-list as a ``pyseccomp.SyscallFilter`` for this machine's architecture
    (or for ``arch``, a ``pyseccomp.Arch`` name such as "AARCH64", to inspect it).

    Default action ERRNO(EPERM); calls of any other architecture (i386, x32 on x86_64;
    arm on aarch64) kill the process. Names this architecture lacks are skipped.
    Raises:
        ImportError/OSError: pyseccomp or the system's libseccomp is missing.
    """
    import pyseccomp as sc
    f = sc.SyscallFilter(defaction=sc.ERRNO(errno.EPERM))
    if arch is not None:
        f.add_arch(getattr(sc.Arch, arch))
        f.remove_arch(sc.Arch.NATIVE)
    f.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)

    def add(action, name, *args):
        try:
            f.add_rule_exactly(action, name, *args)
        except (ValueError, RuntimeError, OSError):  # not a system call on this architecture
            pass
    for name in ALLOWED_SYSCALLS:
        add(sc.ALLOW, name)
    add(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD | _CLONE_NAMESPACES, _CLONE_THREAD))
    add(sc.ERRNO(errno.ENOSYS), "clone3")
    add(sc.ALLOW, "prlimit64", sc.Arg(0, sc.EQ, 0))
    for cmd in IOCTLS.values():
        add(sc.ALLOW, "ioctl", sc.Arg(1, sc.EQ, cmd))
    for option in PRCTLS.values():
        add(sc.ALLOW, "prctl", sc.Arg(0, sc.EQ, option))
    return f


@functools.lru_cache(maxsize=1)
def seccomp_bpf() -> bytes:
    """The compiled filter (``bytes`` of ``struct sock_filter``), as bwrap's ``--seccomp`` reads it."""
    f = seccomp_filter()
    fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
    with os.fdopen(fd, "w+b") as tmp:
        f.export_bpf(tmp)
        tmp.seek(0)
        return tmp.read()


# -- bubblewrap's arguments ------------------------------------------------------------
def bwrap_args(shown, limits, seccomp_fd, info_fd, scratch=None):
    """bubblewrap's argument list (everything before the command).

    Args:
        shown: ``[(source, path, kind)]``: ``source`` (where bwrap finds it) is shown
            read-only at ``path``; kind "dir", "file", "symlink" (``source`` is then the
            link's target) or "hide" (``path`` is covered: an empty read-only folder, or
            ``/dev/null`` for a file; ``source`` is "dir" or "file").
        limits: ``Limits`` (``scratch_bytes``).
        seccomp_fd, info_fd: descriptors bwrap reads the filter from and writes
            ``{"child-pid": N}`` to; ``seccomp_fd`` None installs no filter (only for the
            warm start's fork server, which installs it on each child it forks: ``sandbox/warm.py``).
        scratch: a tmpfs prepared by the launcher (``sandbox/bubblewrap.py``: capped in bytes and in
            inodes, ``Limits.scratch_inodes``), bound at ``/tmp``; ``None``: bwrap mounts a
            tmpfs of ``Limits.scratch_bytes`` there (bwrap's ``--tmpfs`` takes no inode cap).
    """
    args = [shutil.which("bwrap") or "bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--disable-userns", "--as-pid-1", "--hostname", "sandbox",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    args += ["--bind", scratch, SCRATCH] if scratch else ["--size", str(int(limits.scratch_bytes)), "--tmpfs", SCRATCH]
    covered = []
    for source, path, kind in shown:
        if kind == "symlink":
            args += ["--symlink", source, path]
        elif kind == "hide" and source == "dir":
            args += ["--perms", "0555", "--tmpfs", path]
            covered.append(path)
        elif kind == "hide":
            args += ["--ro-bind", "/dev/null", path]
        else:
            args += ["--ro-bind", source, path]
    args += ["--proc", "/proc", "--dir", "/dev"]
    for dev in ("null", "zero", "urandom"):
        args += ["--dev-bind", f"/dev/{dev}", f"/dev/{dev}"]
    for path in covered:
        args += ["--remount-ro", path]
    args += ["--remount-ro", "/", "--chdir", SCRATCH, "--info-fd", str(info_fd)]
    if seccomp_fd is not None:  # None: the sandboxed program installs it itself (warm.py)
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--"]
    return args


def child_env() -> dict[str, str]:
    """The child's whole environment, built from nothing (two BLAS settings of this
    machine are kept: they fix OpenBLAS on some CPUs)."""
    from autograder.sandbox.tiktoken_cache import cache_dir
    env = {
        "PATH": f"{os.path.realpath(sys.prefix)}/bin:/usr/bin:/bin",
        "HOME": SCRATCH, "TMPDIR": SCRATCH,
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
        "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{SCRATCH}/.mpl",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "TIKTOKEN_CACHE_DIR": str(cache_dir()),
    }
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def set_limits(limits, processes: bool = True) -> None:
    """Apply ``limits`` to this process (soft = hard, so they cannot be raised again)."""
    pairs = [(resource.RLIMIT_AS, limits.memory_bytes), (resource.RLIMIT_FSIZE, limits.file_bytes),
             (resource.RLIMIT_CORE, 0), (resource.RLIMIT_CPU, int(limits.cpu_seconds)),
             (resource.RLIMIT_NOFILE, limits.open_files)]
    if processes:
        pairs.append((resource.RLIMIT_NPROC, limits.processes))
    for which, value in pairs:
        resource.setrlimit(which, (value, value))
