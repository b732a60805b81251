"""Starting one sandbox: the mechanics behind the policy of ``sandbox/policy.py``.

``Sandbox(limits)`` leases a uid (grading as root), prepares the descriptors bubblewrap
reads (the seccomp filter, ``--info-fd``) and the launcher that runs between ``fork`` and
``exec``: as root it gives bwrap a private mount namespace in which the paths to show
(``/root/.pyenv/...`` included) are reachable, sets the resource limits and drops to the
sandbox uid. ``remote.ChildSubmission`` uses it; so does ``check_available`` (can a sandbox
start here at all?).
"""
from __future__ import annotations

import fcntl
import functools
import os
import platform
import pwd
import shutil
import sys
import tempfile
import time
from pathlib import Path

from autograder.sandbox.policy import (
    bwrap_args,
    child_env,
    sandbox_uids,
    seccomp_bpf,
    set_limits,
    shown_in_sandbox,
    visible_paths,
)
from autograder.sandbox.process import close_fds, interpreter, read_child_pid


class UidLease:
    """A uid from ``sandbox_uids()`` that no other sandbox on this machine uses meanwhile
    (an ``flock`` on a file in a root-only folder, released by ``release`` or at exit)."""

    def __init__(self, timeout=60.0, usable=None):
        """``usable(uid)``: optional, whether that uid may be leased now (the setuid level
        passes ``leftovers.clean``: a uid whose files remain outside a scratch is skipped)."""
        first, last = sandbox_uids()
        folder = Path(tempfile.gettempdir()) / f"autograder-sandbox-uids-{os.geteuid()}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        st = os.lstat(folder)
        if not (os.path.isdir(folder) and not os.path.islink(folder) and st.st_uid == os.geteuid()
                and st.st_mode & 0o077 == 0):
            raise RuntimeError(f"{folder} is not a private folder of this user; remove it")
        deadline = time.monotonic() + timeout
        start = os.getpid() % (last - first + 1)
        while True:
            for i in range(last - first + 1):
                uid = first + (start + i) % (last - first + 1)
                if _uid_has_owner(uid) or _uid_has_processes(uid):
                    continue
                fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                if usable is not None and not usable(uid):
                    os.close(fd)
                    continue
                self.uid, self._fd = uid, fd
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"all sandbox uids {first}-{last} are busy; widen AUTOGRADER_SANDBOX_UIDS")
            time.sleep(0.05)

    def release(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _uid_has_processes(uid):
    """True when a process (a zombie included) runs as ``uid``: that uid is not reused yet."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    return True
            except OSError:
                continue
    return False


@functools.lru_cache(maxsize=None)
def _uid_has_owner(uid):
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


_STAGE = "/tmp"  # where root's private mount namespace shows bwrap what it binds
_SCRATCH = f"{_STAGE}/scratch"  # the sandbox's /tmp, mounted there by the root launcher


class Sandbox:
    """One running sandbox's launch data: build with ``Sandbox(limits)``, start the child
    with ``subprocess.Popen(sandbox.command(argv), **sandbox.popen_kwargs(fds))``, and
    ``close()`` after the process ended.

    Raises:
        RuntimeError: no bwrap on PATH, or no free sandbox uid (grading as root).
    """

    def __init__(self, limits):
        self.limits = limits
        if shutil.which("bwrap") is None:
            raise RuntimeError("bubblewrap (bwrap) is not installed or not on PATH")
        self.root = os.geteuid() == 0
        self.lease = UidLease() if self.root else None
        self.uid = self.lease.uid if self.root else os.geteuid()
        shown = visible_paths()
        self._stage = []  # (real path, kind) mounted under _STAGE/N by the root launcher
        self.shown = []
        for path, kind in shown:
            if kind == "symlink":
                self.shown.append((os.readlink(path), path, kind))
            elif kind == "hide":
                self.shown.append(("dir" if os.path.isdir(path) else "file", path, kind))
            elif self.root:
                self.shown.append((f"{_STAGE}/{len(self._stage)}", path, kind))
                self._stage.append((path, kind))
            else:
                self.shown.append((path, path, kind))
        self._seccomp = os.memfd_create("seccomp", os.MFD_CLOEXEC)
        os.write(self._seccomp, seccomp_bpf())
        os.lseek(self._seccomp, 0, os.SEEK_SET)
        self.info_r, self._info_w = os.pipe()
        # Recorded in results.json and grades.csv: stable across runs (no uid number), so
        # a regrade or a resumed run gives byte-identical reports.
        self.description = ("bubblewrap+seccomp (" + ("a sandbox uid of its own)" if self.root
                                                      else "the grading user's uid)"))

    def command(self, argv, seccomp=True):
        """bwrap's command line running ``argv``. ``seccomp=False``: bwrap installs no filter;
        the filter's descriptor (``seccomp_fd``) is passed to ``argv`` instead, which must
        install it on every process that runs student code (the fork server of ``sandbox/warm.py``).
        Grading as root, ``/tmp`` is the tmpfs ``_launcher`` mounted, with an inode cap."""
        scratch = _SCRATCH if self.root else None
        return bwrap_args(self.shown, self.limits, self._seccomp if seccomp else None,
                          self._info_w, scratch) + list(argv)

    @property
    def seccomp_fd(self):
        """The descriptor of the compiled filter (a memfd), inherited by bwrap's program."""
        return self._seccomp

    def popen_kwargs(self, pass_fds):
        return {"env": child_env(), "pass_fds": (*pass_fds, self._seccomp, self._info_w),
                "preexec_fn": self._launcher, "cwd": "/"}

    def started(self):
        """Call right after Popen: closes the launcher's copies of bwrap's descriptors."""
        os.close(self._seccomp)
        os.close(self._info_w)
        self._seccomp = self._info_w = None

    def _launcher(self):
        # Runs in the forked launcher before bwrap starts. As root: a private mount
        # namespace shows bwrap (which runs as the sandbox uid) the paths it must bind,
        # /root's included, on a tmpfs of its own; the machine's mounts are untouched.
        if self.root:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)

            def check(ret, what):
                if ret != 0:
                    raise OSError(ctypes.get_errno(), what)
            check(libc.unshare(0x00020000), "unshare(CLONE_NEWNS)")
            check(libc.mount(b"none", b"/", None, 0x4000 | 0x40000, None), "make / private")
            fds = [os.open(path, os.O_PATH | os.O_NOFOLLOW) for path, _ in self._stage]
            check(libc.mount(b"sandbox-stage", _STAGE.encode(), b"tmpfs", 0x2 | 0x4 | 0x8,
                             b"mode=0755,size=64k"), "stage tmpfs")
            for i, ((path, kind), fd) in enumerate(zip(self._stage, fds, strict=False)):
                target = f"{_STAGE}/{i}"
                if kind == "dir":
                    os.mkdir(target)
                else:
                    os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
                check(libc.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None, 0x1000 | 0x4000, None),
                      f"bind {path}")
                os.close(fd)
            # The sandbox's /tmp: a tmpfs capped in bytes and in inodes (bwrap's own --tmpfs
            # takes no nr_inodes), owned by the sandbox uid; bwrap binds it at /tmp.
            os.mkdir(_SCRATCH, 0o700)
            options = (f"mode=0700,uid={self.uid},gid={self.uid},size={int(self.limits.scratch_bytes)},"
                       f"nr_inodes={int(self.limits.scratch_inodes)}")
            check(libc.mount(b"sandbox-scratch", _SCRATCH.encode(), b"tmpfs", 0x2 | 0x4, options.encode()),
                  "scratch tmpfs")
            set_limits(self.limits)  # RLIMIT_NPROC counts this uid's processes: this sandbox only
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
        else:
            set_limits(self.limits, processes=False)  # the child sets RLIMIT_NPROC inside

    def child_pid(self, timeout=5.0):
        """The pid (outside) of the sandbox's PID 1, from bwrap's ``--info-fd``; None if unknown."""
        return read_child_pid(self.info_r, timeout)

    def close(self):
        close_fds(self._seccomp, self._info_w, self.info_r)
        self._seccomp = self._info_w = self.info_r = None
        if self.lease is not None:
            self.lease.release()
            self.lease = None


# -- is it available? ------------------------------------------------------------------
# The probe imports what submissions import; whether tiktoken's cache file is present is
# preflight's question (``preflight.check_tiktoken_cache``), asked only when a tokens notebook is graded.
_PROBE = ("import os, numpy, tiktoken, matplotlib; "
          "print(os.getuid(), sorted(p for p in os.listdir('/proc') if p.isdigit()))")


@functools.lru_cache(maxsize=1)
def check_available() -> str | None:
    """Can a sandbox start here? Starts one that imports numpy, tiktoken and matplotlib.

    Returns:
        ``None`` when it can, else a ``str`` saying what is missing and how to fix it.
    """
    import subprocess

    from autograder.sandbox.limits import Limits
    if platform.system() != "Linux":
        return f"the sandbox needs Linux (bubblewrap, namespaces, seccomp); this is {platform.system()}"
    if shutil.which("bwrap") is None:
        return ("bubblewrap is not installed: run `sudo apt-get install bubblewrap` "
                "(or `bash scripts/setup.sh` as root)")
    try:
        seccomp_bpf()
    except (ImportError, OSError, AttributeError) as exc:
        return (f"libseccomp is not usable ({type(exc).__name__}: {exc}): install `libseccomp2` "
                "(`sudo apt-get install libseccomp2`) and the pinned `pyseccomp` (requirements.txt)")
    python = interpreter()
    if not shown_in_sandbox(python):
        return (f"the interpreter {python} (this Python, {sys.executable}) is reached through a symbolic "
                "link to a folder the sandbox does not show (it shows the Python installation, the venv "
                "and /usr at their real paths); start the grader with an interpreter whose links stay "
                "inside those, e.g. `$(realpath .venv)/bin/python -m autograder`")
    try:
        sandbox = Sandbox(Limits())
    except (RuntimeError, ValueError, OSError) as exc:
        return f"cannot prepare a sandbox: {exc}"
    try:
        try:
            proc = subprocess.Popen(sandbox.command([python, "-I", "-c", _PROBE]),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    **sandbox.popen_kwargs(()))
        except (OSError, subprocess.SubprocessError) as exc:
            hint = ""
            if sandbox.root and isinstance(exc, subprocess.SubprocessError):
                hint = (" -- as root, the launcher needs CAP_SYS_ADMIN for a private mount namespace "
                        "(in a container without it, grade as an ordinary user instead)")
            return f"cannot start bubblewrap: {exc}{hint}"
        sandbox.started()
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return "a test sandbox did not finish within 60 s"
    finally:
        sandbox.close()
    if proc.returncode != 0:
        text = err.decode(errors="replace").strip()
        hint = ""
        if "namespace" in text or "Operation not permitted" in text:
            hint = (" -- user namespaces look disabled: enable them (`sysctl -w kernel.unprivileged_userns_clone=1`"
                    " or `sysctl -w user.max_user_namespaces=15000`; on Ubuntu 24.04+ also "
                    "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for bwrap)")
        elif "Permission denied" in text or "Error" in text:
            hint = (f" -- uid {sandbox.uid} must be able to read the Python installation, the venv and the "
                    "project's autograder/child and .cache/tiktoken (e.g. `chmod -R o+rX .venv autograder .cache`)")
        return f"a test sandbox failed (exit {proc.returncode}): {text[-600:]}{hint}"
    return None
