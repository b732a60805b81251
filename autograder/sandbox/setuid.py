"""The second confinement level: a uid of its own per child, for hosts where bubblewrap cannot start.

Inside a container started with a runtime's defaults (Docker, Podman, Gradescope's), the
container's masked ``/proc`` forbids the new procfs of a user namespace and its seccomp
profile may refuse ``unshare(CLONE_NEWUSER)``, so ``bwrap`` stops ("Can't mount proc on
/newroot/proc: Operation not permitted"). The grader runs as root there, and this level uses
what root may still do. ``SetuidSandbox(limits)`` starts each child, between ``fork`` and
``exec`` (``subprocess``'s ``preexec_fn``), as follows:

1. a new session; the resource limits of ``policy.set_limits`` (soft = hard, core dumps
   off), ``RLIMIT_NPROC`` included, which counts only this uid's tasks;
2. ``os.setgroups([])``, ``os.setresgid`` and ``os.setresuid`` to a leased uid/gid of its own
   (``bubblewrap.UidLease``: the same range as bubblewrap's sandbox uids, owning no file and no
   process on the machine);
3. ``PR_SET_PDEATHSIG`` (SIGKILL when the grader's worker dies; set after the uid change,
   which clears it);
4. Landlock (``child/landlock.py``), where the kernel has it: read the system's libraries,
   the Python installation, the venv, the child package, tiktoken's cache file; list the
   folder that holds the child package (Python's import system lists it); execute only
   under those folders (the interpreter); write only its scratch folder and ``/dev/null``;
   no TCP, no signals outside (ABI 4 and 6);
5. the seccomp allow-list of ``policy.seccomp_filter`` (the bubblewrap level's), loaded
   with libseccomp (``pyseccomp``), which sets ``no_new_privs`` first.

Its environment is built from nothing (``policy.child_env``, with its own scratch as
``HOME``/``TMPDIR``); its working folder is a private scratch folder owned by that uid
(mode 0700, in a root-owned 0711 folder of the machine's temporary folder), removed
afterwards. Once started, the child adds its own Landlock layer (no program at all, write
only the scratch), as at the bubblewrap level.

What this level does NOT give (``docs/containers.md`` has the full comparison): no PID,
network or IPC namespace, and a mount namespace only where the grader may mount. It sees the
container's file tree and process list; it reads what Landlock allows, and without Landlock
what the file modes let any user read, so every course file must be readable by root only
(``restrict_tree``; ``check_available`` refuses to grade when the child can read the course
secret, the reference or the checks). The scratch folder is a tmpfs of
``Limits.scratch_bytes`` where the grader may mount one (``leftovers.mount_scratch``);
otherwise it is on the container's disk and only each file is capped (``RLIMIT_FSIZE``). Where it may mount, the launcher also covers every shared folder a child
could write (``/tmp``, ``/var/tmp``, ``/dev/shm``, ...: ``leftovers.writable_places``) with an
empty tmpfs of root's in the child's mount namespace (``sandbox/covers.py``): without Landlock the
child still writes nothing outside its bounded scratch. Where it may not, after each child,
everything its uid owns in any folder a child can write is removed whatever its shape, and a
uid whose files remain is never leased (``sandbox/leftovers.py``).
"""
from __future__ import annotations

import functools
import json
import os
import signal
import stat
import sys
import tempfile
from pathlib import Path

from autograder.sandbox import covers, leftovers, one_submission, proc_view
from autograder.sandbox.policy import (
    CHILD_PACKAGE,
    child_env,
    grader_locations,
    seccomp_filter,
    set_limits,
    visible_paths,
)
from autograder.sandbox.process import close_fds, interpreter, read_child_pid

LEVEL = "setuid"


# Tests only: set to 1 in the grader's environment, children at this level run without Landlock,
# as under a container runtime whose seccomp profile refuses the landlock_* calls (the
# reports then say so). docs/confinement.md, "Testing the setuid level without Landlock".
WITHOUT_LANDLOCK = "AUTOGRADER_TEST_WITHOUT_LANDLOCK"


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (``int``), 0 where Landlock is missing or disabled
    (``landlock_create_ruleset`` with ``LANDLOCK_CREATE_RULESET_VERSION``, man 2 landlock_create_ruleset),
    or when ``$AUTOGRADER_TEST_WITHOUT_LANDLOCK`` is 1 (tests)."""
    if os.environ.get(WITHOUT_LANDLOCK) == "1":
        return 0
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(0, int(abi))


def description() -> str:
    """How children run at this level, as recorded in results.json and grades.csv (stable
    across runs of one machine: no uid number)."""
    return "setuid+seccomp" + ("+landlock" if landlock_abi() > 0 else "") + " (a uid of its own, no namespaces)"


def _scratch_base():
    """A root-owned folder (0711) in the machine's temporary folder that holds the scratch
    folders: others may enter their own folder, not list the others."""
    base = Path(tempfile.gettempdir()) / f"autograder-scratch-{os.geteuid()}"
    try:
        base.mkdir(mode=0o711)
    except FileExistsError:
        pass
    st = os.lstat(base)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o066:
        raise RuntimeError(f"{base} is not a private folder of this user; remove it")
    os.chmod(base, 0o711)
    return base


def landlock_paths() -> dict:
    """What the child may reach at this level (Landlock rules).

    Returns:
        dict of lists of paths: ``read`` (read files and list folders), ``list`` (list only:
        the folder holding the child package), ``exec`` (read and execute: the system's
        libraries and the Python installation, for the interpreter and its loader).
    """
    read, execute = [], []
    for path, kind in visible_paths():
        if kind in ("dir", "file"):
            read.append(path)
        if kind == "dir" and (path == "/usr" or path.startswith(("/lib", "/bin", "/sbin"))
                              or path == os.path.realpath(sys.base_prefix)):
            execute.append(path)
    for top in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        if os.path.isdir(top):
            execute.append(os.path.realpath(top))
    read += [str(CHILD_PACKAGE), "/dev/null", "/dev/zero", "/dev/urandom"]
    return {"read": sorted(set(read)), "list": [str(CHILD_PACKAGE.parent)], "exec": sorted(set(execute))}


class SetuidSandbox:
    """One child's launch data at the setuid level; the same interface as ``bubblewrap.Sandbox``:
    ``subprocess.Popen(sandbox.command(argv), **sandbox.popen_kwargs(fds))``, then
    ``started()``, ``child_pid()`` and, after the process ended, ``close()``.

    Attributes:
        uid: the child's uid (and gid). scratch: its scratch folder (``str``).
        description: what the reports record (``description()``).
    Raises:
        RuntimeError: the grader is not root, or no free sandbox uid.
        ImportError/OSError: libseccomp or pyseccomp is missing.
    """

    level = LEVEL

    def __init__(self, limits):
        from autograder.sandbox.bubblewrap import UidLease
        if os.geteuid() != 0:
            raise RuntimeError("the setuid level needs a grader running as root (it starts each child "
                               "as a uid of its own)")
        self.limits = limits
        self.root = True
        self._filter = seccomp_filter()  # built here: the launcher between fork and exec only loads it
        self._paths = landlock_paths()
        self.description = description()
        self._landlock = landlock_abi() > 0
        self.child_landlock = os.environ.get(WITHOUT_LANDLOCK) != "1"  # the child's own layer (tests)
        # a uid whose files remain anywhere a child can write is never leased (leftovers.py)
        try:
            self.lease = UidLease(usable=leftovers.clean)
        except RuntimeError as exc:
            if not leftovers.unusable():
                raise
            raise RuntimeError(f"{exc} (uids left out because what they left could not be removed, named in "
                               f"the log above: {', '.join(map(str, sorted(leftovers.unusable())))})") from None
        self.uid = self.lease.uid
        self.scratch = self._info_w = self.info_r = None
        self.bounded = False
        try:
            self.scratch = tempfile.mkdtemp(prefix=f"{self.uid}-", dir=_scratch_base())
            self.bounded = os.environ.get(one_submission.WITHOUT_TMPFS) != "1" and \
                leftovers.mount_scratch(self.scratch, self.uid, limits.scratch_bytes)
            if not self.bounded:  # the disk is the bound: one submission per container
                one_submission.claim(_scratch_base())
            os.chown(self.scratch, self.uid, self.uid)
        except BaseException:
            self.close()
            raise
        self._paths["write"] = [self.scratch, "/dev/null"]
        needed = self._paths["read"] + self._paths["exec"] + self._paths["list"] + [self.scratch]
        self._covers = covers.for_unreachable(needed)
        self._places = ()
        if self.bounded:  # the launcher may mount: the shared folders are covered for the child too
            self._places = {os.path.realpath(p) for p in leftovers.writable_places()}
            self._covers = covers.with_places(self._covers, needed, self._places)
        self.info_r, self._info_w = os.pipe()
        self._parent = os.getpid()

    def command(self, argv):
        return list(argv)

    def env(self):
        env = child_env()
        env.update(HOME=self.scratch, TMPDIR=self.scratch, MPLCONFIGDIR=f"{self.scratch}/.mpl")
        return env

    def popen_kwargs(self, pass_fds):
        return {"env": self.env(), "pass_fds": tuple(pass_fds), "preexec_fn": self._launcher,
                "cwd": self.scratch, "start_new_session": True}

    def started(self):
        """Call right after Popen: closes the grader's copy of the pid pipe's write end."""
        if self._info_w is not None:
            os.close(self._info_w)
            self._info_w = None

    def _launcher(self):
        # Between fork and exec, in the child: limits, the uid of its own, Landlock, seccomp.
        import ctypes

        from autograder.child.landlock import landlock
        os.write(self._info_w, json.dumps({"child-pid": os.getpid()}).encode())
        os.close(self._info_w)
        if self._covers:
            covers.show_through(self._covers, optional=self._places)
        proc_view.hide_other_processes()  # where it may (CAP_SYS_ADMIN): no other uid's /proc/N
        set_limits(self.limits)  # RLIMIT_NPROC counts this uid's tasks: this child's only
        os.setgroups([])
        os.setresgid(self.uid, self.uid, self.uid)
        os.setresuid(self.uid, self.uid, self.uid)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "PR_SET_PDEATHSIG")
        if os.getppid() != self._parent:  # the grader's worker died before that
            os._exit(1)
        p = self._paths
        # its own /proc/<pid> too: the child lists /proc/self/fd to close inherited descriptors
        applied = (landlock(p["read"] + ["/proc/self"], p["exec"], p["write"], list_paths=p["list"])
                   if self.child_landlock else 0)
        if self._landlock and not applied:  # the reports say Landlock: never run without it
            raise OSError("Landlock is available but could not be applied")
        self._filter.load()  # libseccomp sets no_new_privs before it loads the filter

    def child_pid(self, timeout=5.0):
        """The child's pid (written by the launcher); None if unknown."""
        return read_child_pid(self.info_r, timeout)

    def close(self):
        """Release the uid and remove the scratch folder (call after the child ended). What the
        child left anywhere a child can write is removed too; a uid whose leftovers cannot be
        removed is not leased again by this process (``leftovers.mark_unusable``, which names
        them in the grader's log). Never raises for what the child left."""
        close_fds(self._info_w, self.info_r)
        self._info_w = self.info_r = None
        left = []
        if self.scratch is not None:
            if self.bounded:
                leftovers.unmount(self.scratch)
                self.bounded = False
            left += leftovers.remove(self.scratch)  # whatever shape the child gave it; no link followed
            self.scratch = None
        if self.lease is not None:
            try:
                # what the child wrote outside its scratch (possible without Landlock and without
                # the covers of a mount namespace) goes too
                left += leftovers.remove_files_of(self.uid)
                if left:
                    leftovers.mark_unusable(self.uid, left)
            finally:
                self.lease.release()
                self.lease = None


# -- course files: readable by root only --------------------------------------------------------


# -- can it start here? ------------------------------------------------------------------------
_PROBE = r'''
import json, os, sys
import numpy, tiktoken, matplotlib
secrets = json.loads(sys.argv[1])
readable = []
for path in secrets:
    try:
        if os.path.isdir(path):
            os.listdir(path)
            for folder, dirs, files in os.walk(path):
                for name in files:
                    try:
                        open(os.path.join(folder, name), "rb").close()
                        readable.append(os.path.join(folder, name))
                    except OSError:
                        pass
        else:
            open(path, "rb").close()
            readable.append(path)
    except OSError:
        pass
print(json.dumps({"uid": os.getuid(), "groups": os.getgroups(), "readable": readable[:5]}))
'''


def _secret_paths(extra=()):
    """Files a child must never read: the grader's locations (reference solutions, the grader
    package with its checks, the course secret) minus the child package itself, and ``extra``."""
    child = str(CHILD_PACKAGE)
    out = []
    for p in [*grader_locations(), *map(str, extra)]:
        if os.path.isdir(p) and os.path.realpath(p) == os.path.realpath(child.rsplit("/", 1)[0]):
            for name in sorted(os.listdir(p)):  # the grader package: all but the child package
                q = os.path.join(p, name)
                if os.path.realpath(q) != os.path.realpath(child) and name != "__pycache__":
                    out.append(q)
        elif os.path.exists(p):
            out.append(p)
    return out


@functools.lru_cache(maxsize=8)
def check_available(extra: tuple = ()) -> str | None:
    """Can a child start at the setuid level here, with no course file readable?

    Starts one child that imports numpy, tiktoken and matplotlib and tries to read the course
    secret, the reference solutions, the grader's checks and ``extra`` (a tuple of paths).

    Returns:
        ``None`` when it can, else a ``str`` saying why not and how to fix it.
    """
    import subprocess

    from autograder.sandbox.limits import Limits
    if sys.platform != "linux":
        return f"the setuid level needs Linux; this is {sys.platform}"
    if os.geteuid() != 0:
        return "the setuid level needs the grader to run as root"
    try:
        sandbox = SetuidSandbox(Limits())
    except (RuntimeError, ValueError, OSError, ImportError) as exc:
        return f"cannot prepare a child at the setuid level: {exc}"
    try:
        try:
            proc = subprocess.Popen([interpreter(), "-I", "-c", _PROBE, json.dumps(_secret_paths(extra))],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    **sandbox.popen_kwargs(()))
        except (OSError, subprocess.SubprocessError) as exc:
            return f"cannot start a child at the setuid level: {exc}"
        sandbox.started()
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return "a test child at the setuid level did not finish within 60 s"
    finally:
        sandbox.close()
    if proc.returncode != 0:
        text = err.decode(errors="replace").strip()
        return (f"a test child at the setuid level failed (exit {proc.returncode}): {text[-600:]} -- every user "
                "must be able to read the Python installation, the venv, autograder/child and tiktoken's cache "
                "file (e.g. `chmod -R o+rX .venv autograder/child .cache`)")
    try:
        report = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"a test child at the setuid level answered {out[-200:]!r}"
    if report["uid"] == 0 or report["groups"]:
        return f"a test child at the setuid level ran as uid {report['uid']} with groups {report['groups']}"
    if report["readable"]:
        return ("a child at the setuid level can read course files ("
                + ", ".join(report["readable"]) + "): make them readable by root only "
                "(`chmod -R go-rwx` on the secret, solutions/, autograder/ and exercises/), or use a kernel with Landlock")
    return None
