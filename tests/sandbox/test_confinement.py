"""Each attack that worked on the unconfined grader, made from inside a graded
function, must fail in the sandbox, while reference students graded in the same class run
before and after keep full marks.

Every attack is a hostile attention notebook whose ``causal_mask(T)`` runs attack number
``T % len(ATTACKS)`` and returns what happened. Each test (1) calls that graded function
in a sandboxed child for every attack and checks the outcome, then (2) grades a class of
reference / hostile / reference with ``grade_all`` in this process (this process is the
grader whose limits, files and listeners the attacks aim at) and checks that the grader is
untouched and nothing of the sandbox is left running.

These tests need the sandbox (bubblewrap, user namespaces, libseccomp): where it is
missing they FAIL, they do not skip.
"""
import errno
import os
import resource
import socket
import stat
import sys
import textwrap

import nbformat
import pytest
from conftest import SECRET

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover
from autograder.grading.workers import grade_all
from autograder.sandbox import bubblewrap as launch
from autograder.sandbox import policy as confinement
from autograder.sandbox.bubblewrap import Sandbox
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.sandbox.setuid import landlock_abi
from autograder.submission.remote import ChildSubmission

ATTENTION = EXERCISES["attention"]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
FAST = Limits(call_seconds=5.0, retry_seconds=2.0, cell_seconds=5.0)
# Every attack runs once per confinement level (autograder/sandbox/levels.py): the bubblewrap
# sandbox, and the setuid level (forced: on this machine bubblewrap starts).
LEVELS = ("bubblewrap", "setuid")
PREFIX = {"bubblewrap": "bubblewrap+seccomp", "setuid": "setuid+seccomp"}
LANDLOCK = landlock_abi() > 0  # the setuid level's reads are confined by Landlock where the kernel has it


@pytest.fixture(params=LEVELS)
def level(request):
    return request.param


def fast(level, **limits):
    """``FAST`` limits at confinement level ``level``, with ``limits`` changed."""
    return Limits(call_seconds=5.0, retry_seconds=2.0, cell_seconds=5.0, level=level, **limits)

# Shared by every hostile notebook: raw system calls through ctypes, also in the 32-bit
# (int 0x80 from an RWX page below 4 GiB) and x32 ABIs, and a report of what happened.
PRELUDE = r'''
import ctypes, errno, os, struct
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]

def _page32():
    page = _libc.mmap(None, 4096, 7, 0x22 | 0x40, -1, 0)  # RWX, private, anonymous, MAP_32BIT
    assert page not in (None, 2 ** 64 - 1), "mmap failed"
    return page

def int80(nr, *args):
    """A 32-bit (i386) system call: push rbx; mov eax/ebx/ecx/edx/esi; int 0x80; pop rbx; ret."""
    args = (list(args) + [0, 0, 0, 0])[:4]
    page = _page32()
    code = b"\x53\xb8" + struct.pack("<I", nr)
    for opcode, value in zip((b"\xbb", b"\xb9", b"\xba", b"\xbe"), args):
        code += opcode + struct.pack("<I", value & 0xFFFFFFFF)
    code += b"\xcd\x80\x5b\xc3"
    ctypes.memmove(page, code, len(code))
    return ctypes.CFUNCTYPE(ctypes.c_int)(page)()

def low_buffer(data):
    """Bytes copied to memory below 4 GiB (32-bit system calls take 32-bit pointers)."""
    page = _page32()
    ctypes.memmove(page, data, len(data))
    return page

def syscall(nr, *args):
    ret = _libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return ret if ret >= 0 else "errno " + errno.errorcode.get(ctypes.get_errno(), "?")

def outcome(action):
    """"allowed: <value>" when ``action`` worked, else the exception's name."""
    try:
        return "allowed: %r" % (action(),)
    except Exception as exc:
        return "%s %s" % (type(exc).__name__, errno.errorcode.get(getattr(exc, "errno", None) or 0, ""))
'''


def _hostile_source(attacks, setup=""):
    """A ``causal_mask`` cell that runs ``ATTACKS[T % n]``; ``attacks`` is a list of
    expressions (strings) evaluated inside ``outcome(lambda: ...)``."""
    body = ",\n    ".join(f"lambda: {a}" for a in attacks)
    return (PRELUDE + textwrap.dedent(setup) + f"\nATTACKS = [\n    {body},\n]\n"
            "def causal_mask(T):\n    return outcome(ATTACKS[T % len(ATTACKS)])\n")


def _write(path, nb):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def attack_outcomes(tmp_path, attacks, setup="", limits=FAST):
    """Call the hostile notebook's graded ``causal_mask(i)`` for each attack, in a sandbox.

    Returns: list of outcome strings, or "crashed: <detail>" where the child died.
    """
    # Only the hostile cell runs: the notebook's other cells (its visible checks, a demo
    # printing causal_mask(3)) would call the attacks at start-up too.
    cells = [(1, "import numpy as np\n" + _hostile_source(attacks, setup))]
    out = []
    with ChildSubmission(cells, limits) as sub:
        assert sub.ensure_started()["errors"] == []
        assert sub.confinement.startswith(PREFIX[limits.level or "bubblewrap"]), sub.confinement
        for i in range(len(attacks)):
            try:
                out.append(sub.function("causal_mask")(i))
            except StudentCodeError as exc:
                out.append(f"{exc.kind}: {exc.detail}")
    return out


def _grader_state():
    limits = {name: resource.getrlimit(getattr(resource, name))
              for name in ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CPU", "RLIMIT_CORE")}
    return limits, os.getpriority(os.PRIO_PROCESS, 0), os.getpriority(os.PRIO_USER, os.getuid())


def _sandbox_processes():
    """Pids of processes running as a sandbox uid of this test run (only meaningful when
    grading as root). The run leases its sandbox uids from a range of its own
    (``$AUTOGRADER_SANDBOX_UIDS``, set by ``conftest.hermetic_course``), so another clone grading
    on the same machine at the same time is never counted, and every process of this run's
    range is, whatever its command line (a daemon a submission left behind names no grader)."""
    first, last = confinement.sandbox_uids()
    assert (first, last) != confinement.DEFAULT_SANDBOX_UIDS, "this run must use a uid range of its own"
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as f:
                    uid = next(int(line.split()[1]) for line in f if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if first <= uid <= last:
                found.append(int(entry))
    return found


def class_run(tmp_path, attacks, setup="", limits=FAST):
    """Grade reference, hostile, reference in one class run; check the references keep
    full marks, the grader is untouched and no sandbox process is left. Returns the results."""
    root = tmp_path / "submitted"
    _write(root / "a_ref" / "attention" / "attention.ipynb", filled_notebook(ATTENTION))
    _write(root / "b_hostile" / "attention" / "attention.ipynb",
           filled_notebook(ATTENTION, {"causal_mask": _hostile_source(attacks, setup)}))
    _write(root / "c_ref" / "attention" / "attention.ipynb", filled_notebook(ATTENTION))
    before = _grader_state()
    results, failures, _ = grade_all(discover(root), SECRET, limits, workers=1)
    assert failures == 0
    by_student = {r.student_id: r for r in results}
    for ref in ("a_ref", "c_ref"):
        assert by_student[ref].score == by_student[ref].max_score == ATTENTION_POINTS, by_student[ref].checks
    hostile = by_student["b_hostile"]
    assert all(c.score == 0 for c in hostile.checks if c.function == "causal_mask")
    assert all(r.confinement.startswith(PREFIX[limits.level or "bubblewrap"]) for r in results), results
    assert _grader_state() == before
    if os.geteuid() == 0:
        assert _sandbox_processes() == []
    return results


def _killed(out):
    return out.startswith("crashed") and "SIGSYS" in out


# -- the sandbox is there ---------------------------------------------------------------
def test_the_sandbox_is_available_here():
    """On CI (and wherever the suite runs) the sandbox must start: this fails, never skips."""
    assert launch.check_available() is None


@pytest.mark.slow
def test_many_sandboxes_in_a_row_leave_no_process_behind():
    """bwrap's own PID-1 reaper was left a zombie for the machine's init to reap, which
    exhausted the sandbox uid's RLIMIT_NPROC after ~30 notebooks: the child is PID 1 now."""
    import subprocess
    for _ in range(3 * Limits().processes):
        sandbox = Sandbox(Limits())
        try:
            proc = subprocess.Popen(sandbox.command(["/bin/true"]), stderr=subprocess.PIPE,
                                    **sandbox.popen_kwargs(()))
            sandbox.started()
            _, err = proc.communicate(timeout=30)
        finally:
            sandbox.close()
        assert proc.returncode == 0, err
    if os.geteuid() == 0:
        assert _sandbox_processes() == []


# -- 32-bit and x32 system calls --------------------------------------------------------
@pytest.mark.slow
def test_32_bit_and_x32_system_calls_kill_the_child(tmp_path, level):
    """prlimit on the grader, fork and socket through i386 ``int 0x80`` and the x32 ABI."""
    if os.uname().machine != "x86_64":
        pytest.fail("this test is written for x86_64 (i386 and x32 ABIs)")
    grader = os.getpid()
    attacks = [
        # i386: prlimit64 = 340 (RLIMIT_FSIZE = 1 -> 0 bytes), fork = 2, socketcall(SYS_SOCKET) = 102
        f"int80(340, {grader}, 1, low_buffer(bytes(16)), 0)",
        "int80(2)",
        "int80(102, 1, low_buffer(struct.pack('<III', 2, 2, 0)))",
        # x32: syscall numbers | 0x40000000: prlimit64 = 302, fork = 57, socket = 41
        f"syscall(0x40000000 | 302, {grader}, 1, low_buffer(bytes(16)), 0)",
        "syscall(0x40000000 | 57)",
        "syscall(0x40000000 | 41, 2, 2, 0)",
    ]
    outcomes = attack_outcomes(tmp_path, attacks, limits=fast(level))
    assert all(_killed(o) for o in outcomes), outcomes
    class_run(tmp_path, attacks, limits=fast(level))


# -- other processes' limits and priority -------------------------------------------------
@pytest.mark.slow
def test_prlimit_and_setpriority_of_other_processes_are_refused(tmp_path, level):
    grader = os.getpid()
    attacks = [
        f"__import__('resource').prlimit({grader}, 1, (0, 0))",      # the grader's RLIMIT_FSIZE
        f"__import__('resource').prlimit({grader}, 7, (16, 16))",    # the grader's RLIMIT_NOFILE
        f"syscall(302, {grader}, 7, 0, 0)",                            # raw prlimit64, reading
        f"os.setpriority(os.PRIO_PROCESS, {grader}, 19)",
        "os.setpriority(os.PRIO_USER, 0, 19)",
        "os.setpriority(os.PRIO_PROCESS, 0, 19)",
        "__import__('resource').prlimit(0, 4, (0, 0))",              # its own: allowed
    ]
    outcomes = attack_outcomes(tmp_path, attacks, limits=fast(level))
    assert all(o.startswith("PermissionError") or o == "allowed: 'errno EPERM'" for o in outcomes[:6]), outcomes
    assert outcomes[6].startswith("allowed")
    class_run(tmp_path, attacks, limits=fast(level))


# -- processes --------------------------------------------------------------------------
@pytest.mark.slow
def test_fork_chains_with_setsid_are_refused_and_nothing_outlives_the_run(tmp_path, level):
    setup = '''
    def fork_chain():
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                import time
                time.sleep(600)
            os._exit(0)
        return pid
    '''
    attacks = [
        "fork_chain()",
        "syscall(56, 17, 0, 0, 0, 0)",          # raw clone(SIGCHLD): a new process
        "syscall(58)",                           # vfork
        "syscall(435, 0, 0)",                    # clone3: ENOSYS, so glibc falls back to clone
        "__import__('subprocess').run(['/bin/true']).returncode",
        "syscall(272, 0x10000000)",              # unshare(CLONE_NEWUSER)
        "syscall(161, low_buffer(b'/tmp\\0'))",  # chroot
    ]
    outcomes = attack_outcomes(tmp_path, attacks, setup, fast(level))
    assert outcomes[0].startswith("PermissionError"), outcomes
    assert outcomes[1] == outcomes[2] == "allowed: 'errno EPERM'", outcomes
    assert outcomes[3] == "allowed: 'errno ENOSYS'", outcomes
    assert outcomes[4].startswith("PermissionError"), outcomes
    assert outcomes[5] == outcomes[6] == "allowed: 'errno EPERM'", outcomes
    class_run(tmp_path, attacks, setup, fast(level))


@pytest.mark.slow
def test_more_threads_than_the_limit_fail(tmp_path, level):
    """RLIMIT_NPROC counts this sandbox's tasks only (threads too): ``processes`` = 8."""
    limits = fast(level, processes=8)
    setup = '''
    import threading
    def many_threads(n=50):
        stop = threading.Event()
        started = 0
        try:
            for _ in range(n):
                threading.Thread(target=stop.wait, daemon=True).start()
                started += 1
        except RuntimeError:
            pass
        stop.set()
        return started
    '''
    outcomes = attack_outcomes(tmp_path, ["many_threads()", "os.fork()"], setup, limits)
    started = int(outcomes[0].split(": ")[1])
    assert 0 < started < 8, outcomes  # the main thread counts too
    assert outcomes[1].startswith("PermissionError"), outcomes
    class_run(tmp_path, ["many_threads()"], setup, limits)


# -- network ------------------------------------------------------------------------------
@pytest.mark.slow
def test_unix_udp_and_tcp_sockets_to_listeners_outside_are_refused(tmp_path, level):
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(tmp_path / "grader.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    unix.listen()
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0autograder-test-%d" % os.getpid())
    abstract.listen()
    for s in (tcp, udp, unix, abstract):
        s.setblocking(False)
    setup = '''
    import socket
    def send_tcp(port):
        return socket.create_connection(("127.0.0.1", port), timeout=2).send(b"hello")
    def send_udp(port):
        return socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hello", ("127.0.0.1", port))
    def send_unix(address):
        s = socket.socket(socket.AF_UNIX)
        s.connect(address)
        return s.send(b"hello")
    '''
    attacks = [f"send_tcp({tcp.getsockname()[1]})", f"send_udp({udp.getsockname()[1]})",
               f"send_unix({unix_path!r})", f"send_unix({abstract.getsockname()!r})",
               "syscall(41, 1, 1, 0)", "syscall(53, 1, 1, 0, low_buffer(bytes(8)))"]  # raw socket, socketpair
    try:
        outcomes = attack_outcomes(tmp_path, attacks, setup, fast(level))
        assert all(o.startswith("PermissionError") for o in outcomes[:4]), outcomes
        assert outcomes[4] == outcomes[5] == "allowed: 'errno EPERM'", outcomes
        class_run(tmp_path, attacks, setup, fast(level))
        with pytest.raises(BlockingIOError):
            tcp.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(100)
        with pytest.raises(BlockingIOError):
            unix.accept()
        with pytest.raises(BlockingIOError):
            abstract.accept()
    finally:
        for s in (tcp, udp, unix, abstract):
            s.close()


# -- files outside the scratch folder ---------------------------------------------------------
@pytest.mark.slow
def test_metadata_of_files_outside_scratch_cannot_change(tmp_path, level):
    """chmod, chown, utime, setxattr and the immutable flag on the venv's pyvenv.cfg (which
    the child can see, read-only) and on the course secret (which it cannot see at all).
    At the setuid level the child sees both but owns neither: EPERM instead of EROFS."""
    target = os.path.join(sys.prefix, "pyvenv.cfg")
    course = tmp_path / "course"  # a copy of a course folder: the live .course_secret is never touched
    course.mkdir()
    (course / ".course_secret").write_text("copy-of-a-course-secret\n")
    os.chmod(course / ".course_secret", 0o600)
    secret = str(course / ".course_secret")
    before = os.stat(target)
    setup = f'''
    import fcntl
    TARGET, SECRET = {target!r}, {secret!r}
    def set_flags(path, request, size):
        fd = os.open(path, os.O_RDONLY)
        try:
            return fcntl.ioctl(fd, request, struct.pack("=I", 0x10) + bytes(size - 4))  # FS_IMMUTABLE_FL
        finally:
            os.close(fd)
    '''
    attacks = ["os.chmod(TARGET, 0o777)", "os.chown(TARGET, 0, 0)", "os.utime(TARGET, (0, 0))",
               "os.setxattr(TARGET, 'user.evil', b'1')",
               "set_flags(TARGET, 0x40086602, 8)",    # FS_IOC_SETFLAGS
               "set_flags(TARGET, 0x401c5820, 28)",   # FS_IOC_FSSETXATTR (struct fsxattr)
               "syscall(16, 0, 0x1_40086602, 0)",     # ioctl with high bits that the kernel drops
               "os.chmod(SECRET, 0o644)", "os.open(SECRET, os.O_RDONLY)",
               "os.chmod('scratch.txt' if open('scratch.txt', 'w') else '', 0o600)"]  # its own: allowed
    outcomes = attack_outcomes(tmp_path, attacks, setup, fast(level))
    not_writable = "OSError EROFS" if level == "bubblewrap" else "PermissionError"
    # at the setuid level a secret under a shared folder (pytest's tmp_path under /tmp) is covered
    # in the child's mount namespace where the grader may mount, as on this machine (sandbox/covers.py)
    from autograder.sandbox.leftovers import writable_places
    covered = any(os.path.realpath(secret).startswith(p.rstrip("/") + "/") for p in writable_places())
    unseen = ("FileNotFoundError" if level == "bubblewrap" or not os.path.exists(secret) or covered
              else "PermissionError")
    assert outcomes[0].startswith(not_writable), outcomes
    assert outcomes[1].startswith("PermissionError"), outcomes  # chown: not on the allow-list
    assert outcomes[2].startswith(not_writable), outcomes
    assert outcomes[3].startswith("PermissionError"), outcomes  # setxattr: not on the allow-list
    assert outcomes[4].startswith("PermissionError") and outcomes[5].startswith("PermissionError"), outcomes
    assert outcomes[6] == "allowed: 'errno EPERM'", outcomes
    assert outcomes[7].startswith(unseen) and outcomes[8].startswith(unseen), outcomes
    assert outcomes[9] == "allowed: None", outcomes
    class_run(tmp_path, attacks, setup, fast(level))
    after = os.stat(target)
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (before.st_mode, before.st_uid, before.st_mtime_ns)
    try:
        assert "user.evil" not in os.listxattr(target)
    except OSError as exc:  # a file system without extended attributes
        assert exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # writable: not immutable
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    assert (course / ".course_secret").read_text() == "copy-of-a-course-secret\n"


@pytest.mark.slow
def test_writing_outside_scratch_fails(tmp_path, level):
    site = next(p for p in sys.path if p.endswith("site-packages"))
    attacks = [f"open({os.path.join(site, 'evil.pth')!r}, 'w').write('import os')",
               f"open({str(PROJECT_ROOT / 'autograder' / 'child' / 'evil.py')!r}, 'w')",
               "open('/evil', 'w')", "open('/usr/evil', 'w')", "os.mkdir('/dev/evil')",
               f"open({str(tmp_path / 'evil')!r}, 'w')",
               "open('fine.txt', 'w').write('ok')"]  # its working folder is its scratch
    outcomes = attack_outcomes(tmp_path, attacks, limits=fast(level))
    assert all(o.startswith(("OSError EROFS", "PermissionError", "FileNotFoundError")) for o in outcomes[:6]), outcomes
    assert outcomes[6] == "allowed: 2", outcomes
    class_run(tmp_path, attacks, limits=fast(level))
    assert not os.path.exists(os.path.join(site, "evil.pth")) and not (tmp_path / "evil").exists()
    assert not (PROJECT_ROOT / "autograder" / "child" / "evil.py").exists() and not os.path.exists("/evil")


@pytest.mark.slow
def test_filling_scratch_past_its_cap_fails(tmp_path, level):
    """bubblewrap: 8 MiB of scratch, a ninth MiB fails with ENOSPC (files are capped at 64 MiB
    each anyway). At the setuid level, with files of 8 MiB at most, a ninth MiB of one file fails
    with EFBIG (its scratch as a whole: tests/sandbox/test_setuid_leftovers.py)."""
    cap = {"scratch_bytes": 8 * 1024 ** 2} if level == "bubblewrap" else {"file_bytes": 8 * 1024 ** 2}
    limits = fast(level, **cap)
    setup = '''
    def fill():
        written = 0
        with open("big", "wb") as f:
            for _ in range(16):
                f.write(b"x" * 1024 ** 2)
                f.flush()
                written += 1
        return written
    '''
    outcomes = attack_outcomes(tmp_path, ["fill()"], setup, limits)
    assert outcomes[0].startswith("OSError ENOSPC" if level == "bubblewrap" else "OSError EFBIG"), outcomes
    class_run(tmp_path, ["fill()"], setup, limits)


def test_grader_files_inside_a_shown_folder_are_covered(tmp_path, monkeypatch):
    """A non-editable install puts ``solutions`` into the venv's packages, which the child
    sees: such grader locations are covered by an empty folder (or /dev/null for a file).
    (The bubblewrap level only: at the setuid level file modes protect them, which
    ``setuid.check_available`` verifies before grading.)"""
    site_dir = tmp_path / "site-packages"
    (site_dir / "solutions").mkdir(parents=True)
    (site_dir / "solutions" / "attention.py").write_text("ANSWER = 42\n")
    (site_dir / "public.py").write_text("x = 1\n")
    (site_dir / ".course_secret").write_text("secret\n")
    monkeypatch.setattr(confinement.site, "getsitepackages", lambda: [str(site_dir)])
    real = confinement.grader_locations
    monkeypatch.setattr(confinement, "grader_locations",
                        lambda: real() + [str(site_dir / "solutions"), str(site_dir / ".course_secret")])
    assert (str(site_dir / "solutions"), "hide") in confinement.visible_paths()
    base = str(site_dir)
    attacks = [f"open({base!r} + '/public.py').read()", f"os.listdir({base!r} + '/solutions')",
               f"open({base!r} + '/solutions/attention.py').read()", f"open({base!r} + '/.course_secret').read()",
               f"open({base!r} + '/solutions/new.py', 'w')"]
    outcomes = attack_outcomes(tmp_path, attacks, limits=fast("bubblewrap"))
    assert outcomes[:2] == ["allowed: 'x = 1\\n'", "allowed: []"], outcomes
    assert outcomes[2].startswith("FileNotFoundError"), outcomes
    assert outcomes[3].startswith("PermissionError") or outcomes[3] == "allowed: ''", outcomes
    assert outcomes[4].startswith(("OSError EROFS", "PermissionError")), outcomes


# -- reading the grader's secrets --------------------------------------------------------------
@pytest.mark.slow
def test_the_graders_environment_shadow_and_devices_are_unreadable(tmp_path, monkeypatch, level):
    monkeypatch.setenv("GRADER_TOKEN", "s3cret-token-of-the-instructor")
    grader = os.getpid()
    disks = sorted(os.listdir("/sys/block")) if os.path.isdir("/sys/block") else []
    disk = f"/dev/{disks[0]}" if disks else "/dev/sda"
    attacks = [f"open('/proc/{grader}/environ', 'rb').read()",
               f"open('/proc/{grader}/cmdline', 'rb').read()",
               "b'GRADER_TOKEN' in open('/proc/1/environ', 'rb').read() or 1 / 0",
               "'GRADER_TOKEN' in os.environ or 1 / 0",
               "open('/etc/shadow').read()", f"open({disk!r}, 'rb').read(512)",
               "sorted(os.listdir('/dev'))", "sorted(p for p in os.listdir('/proc') if p.isdigit())",
               "os.listdir('/sys')"]
    outcomes = attack_outcomes(tmp_path, attacks, limits=fast(level))
    if level == "setuid":
        # No PID namespace, but a root launcher (CAP_SYS_ADMIN, as here) mounts the child a /proc
        # that hides every other uid's process (sandbox/proc_view.py): the grader's and PID 1's
        # entries are not there at all. /dev and /sys are the machine's; with Landlock nothing
        # outside the allowed folders is readable.
        assert os.geteuid() == 0
        assert all(outcomes[i].startswith("FileNotFoundError") for i in (0, 1, 2)), outcomes
        assert outcomes[3].startswith("ZeroDivisionError"), outcomes
        assert outcomes[4].startswith("PermissionError"), outcomes  # /etc/shadow
        assert outcomes[5].startswith(("PermissionError", "FileNotFoundError")), outcomes
        if LANDLOCK:
            assert all(outcomes[i].startswith("PermissionError") for i in (6, 7, 8)), outcomes
        else:  # /proc lists the child's own processes only (docs/confinement.md)
            assert outcomes[7].startswith("allowed"), outcomes
        class_run(tmp_path, attacks, limits=fast(level))
        return
    assert outcomes[0].startswith("FileNotFoundError") and outcomes[1].startswith("FileNotFoundError"), outcomes
    assert outcomes[2].startswith(("ZeroDivisionError", "PermissionError")), outcomes  # its PID 1's: no token
    assert outcomes[3].startswith("ZeroDivisionError"), outcomes
    assert outcomes[4].startswith("FileNotFoundError") and outcomes[5].startswith("FileNotFoundError"), outcomes
    assert outcomes[6] == "allowed: ['null', 'urandom', 'zero']", outcomes
    assert outcomes[7] == "allowed: ['1']", outcomes  # itself, the sandbox's PID 1
    assert outcomes[8].startswith("FileNotFoundError"), outcomes
    class_run(tmp_path, attacks, limits=fast(level))


# -- submissions read safely -------------------------------------------------------------------
@pytest.mark.slow
def test_symlinked_notebooks_and_folders_are_not_followed(tmp_path):
    root = tmp_path / "submitted"
    alice = _write(root / "alice" / "attention" / "attention.ipynb", filled_notebook(ATTENTION))
    (root / "bob" / "attention").mkdir(parents=True)
    (root / "bob" / "attention" / "attention.ipynb").symlink_to(alice)       # copies alice's grade?
    (root / "carol").symlink_to(root / "alice")                               # a linked folder
    (root / "dave" / "attention").mkdir(parents=True)
    (root / "dave" / "attention" / "attention.ipynb").symlink_to("/proc/kmsg")  # hung the class run
    (root / "erin" / "attention").mkdir(parents=True)
    os.mkfifo(root / "erin" / "attention" / "attention.ipynb")                # blocks a reader
    results, failures, _ = grade_all(discover(root), SECRET, FAST, workers=1)
    by = {r.student_id: r for r in results}
    assert failures == 0 and sorted(by) == ["alice", "bob", "dave", "erin"]  # carol's link is not entered
    assert by["alice"].score == by["alice"].max_score == ATTENTION_POINTS
    for sid in ("bob", "dave"):
        assert by[sid].score == 0 and "symbolic link" in by[sid].notes[0], by[sid].notes
    assert by["erin"].score == 0 and "not a regular file" in by["erin"].notes[0]


def test_read_submission_refuses_links_fifos_and_oversized_files(tmp_path):
    from autograder.submission.files import UnreadableSubmission, code_size_problem, read_submission
    real = tmp_path / "a.ipynb"
    real.write_bytes(b"{}")
    link = tmp_path / "b.ipynb"
    link.symlink_to(real)
    os.mkfifo(tmp_path / "c.ipynb")
    assert read_submission(real) == b"{}"
    for path, message in ((link, "symbolic link"), (tmp_path / "c.ipynb", "not a regular file"),
                          (tmp_path / "missing.ipynb", "cannot read")):
        with pytest.raises(UnreadableSubmission, match=message):
            read_submission(path)
    with pytest.raises(UnreadableSubmission, match="more than"):
        read_submission(real, max_bytes=1)
    assert code_size_problem([(1, "x = 1\n")], "a.ipynb") is None
    assert "MB of code" in code_size_problem([(1, "é" * 600_000), (2, "x" * 900_000)], "a.ipynb", 2 * 1024 ** 2)


# -- the policy's pieces ------------------------------------------------------------------------
def test_bwrap_arguments_unshare_everything_and_show_only_what_is_listed():
    args = confinement.bwrap_args([("/stage/0", "/opt/py", "dir"), ("usr/lib", "/lib", "symlink"),
                                   ("dir", "/opt/py/solutions", "hide"), ("file", "/opt/py/secret", "hide")],
                                  Limits(scratch_bytes=12345), 7, 8)
    for flag in ("--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                 "--disable-userns", "--die-with-parent", "--new-session"):
        assert flag in args
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[args.index("--size") + 1:args.index("--size") + 4] == ["12345", "--tmpfs", "/tmp"]
    assert args[args.index("--seccomp") + 1] == "7" and args[args.index("--info-fd") + 1] == "8"
    assert ["--ro-bind", "/stage/0", "/opt/py"] == args[args.index("/stage/0") - 1:args.index("/stage/0") + 2]
    assert args[len(args) - 1 - args[::-1].index("--remount-ro") + 1] == "/" and args[-1] == "--"
    binds = [args[i + 2] for i, a in enumerate(args) if a in ("--bind", "--dev-bind", "--ro-bind")]
    assert sorted(binds) == ["/dev/null", "/dev/urandom", "/dev/zero", "/opt/py", "/opt/py/secret"]
    assert args[args.index("/opt/py/secret") - 1] == "/dev/null"  # a hidden file reads as /dev/null
    i = args.index("/opt/py/solutions")
    assert args[i - 1] == "--tmpfs" and ["--remount-ro", "/opt/py/solutions"] == args[args.index("--remount-ro"):][:2]


def test_the_allow_list_leaves_out_what_reaches_outside():
    dangerous = {"socket", "socketpair", "connect", "fork", "vfork", "ptrace", "mount", "umount2", "unshare",
                 "setns", "chroot", "pivot_root", "bpf", "perf_event_open", "keyctl", "io_uring_setup",
                 "userfaultfd", "kexec_load", "init_module", "finit_module", "reboot", "setpriority",
                 "chown", "fchown", "lchown", "fchownat", "setxattr", "fsetxattr", "lsetxattr", "memfd_create",
                 "process_vm_writev", "mknod", "mknodat", "setuid", "setgid", "sethostname", "swapon"}
    assert not dangerous & set(confinement.ALLOWED_SYSCALLS)
    assert "FS_IOC_SETFLAGS" not in confinement.IOCTLS and 0x40086602 not in confinement.IOCTLS.values()
    import re
    import tempfile
    with tempfile.TemporaryFile("w+") as f:  # libseccomp's own rendering of the compiled filter
        confinement.seccomp_filter().export_pfc(f)
        f.seek(0)
        text = f.read()
    assert "# invalid architecture action\naction KILL_PROCESS;" in text  # i386, x32
    assert re.search(r"# default action\n\s*action ERRNO\(1\);", text)  # EPERM
    named = set(re.findall(r'filter for syscall "(\w+)"', text))
    assert not dangerous & named
    assert {"read", "write", "mmap", "futex", "clone", "clone3", "prlimit64", "ioctl", "prctl"} <= named
    assert re.search(r'syscall "clone3".*\n.*\n\s*action ERRNO\(38\);', text)  # ENOSYS


def test_the_allow_list_builds_for_aarch64_by_name():
    """Names, not numbers: the same list compiles for aarch64 (where open, stat, fork ...
    do not exist and are skipped) with the same default and bad-architecture actions."""
    import re
    import tempfile
    with tempfile.TemporaryFile("w+") as f:
        confinement.seccomp_filter("AARCH64").export_pfc(f)
        f.seek(0)
        text = f.read()
    assert "# filter for arch aarch64" in text and "x86_64" not in text
    assert "# invalid architecture action\naction KILL_PROCESS;" in text
    named = set(re.findall(r'filter for syscall "(\w+)"', text))
    assert {"openat", "read", "mmap", "futex", "clone", "prlimit64", "ioctl"} <= named
    assert not {"open", "stat", "arch_prctl", "socket", "fork"} & named


def test_sandbox_uid_range_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SANDBOX_UIDS", "70000-70009")
    assert confinement.sandbox_uids() == (70000, 70009)
    for bad in ("0-5", "5", "x-y", "9-3"):
        monkeypatch.setenv("AUTOGRADER_SANDBOX_UIDS", bad)
        with pytest.raises(ValueError):
            confinement.sandbox_uids()


# -- fail closed --------------------------------------------------------------------------------
def _no_bwrap(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on PATH
    monkeypatch.setenv("COURSE_SECRET", "test-secret")
    launch.check_available.cache_clear()


def test_grading_stops_before_student_code_without_the_sandbox(tmp_path, monkeypatch, capsys):
    """Forced to bubblewrap where it is missing, or where neither level starts: exit 3 before
    any student code ran; ``--unconfined`` runs it and says so in the reports."""
    from autograder.cli import main
    from autograder.sandbox import setuid as launch_setuid
    marker = tmp_path / "student-code-ran"
    nb = filled_notebook(ATTENTION, {"causal_mask": f"ran = open({str(marker)!r}, 'w').close()\n"
                                     "def causal_mask(T):\n    return np.tril(np.ones((T, T), dtype=bool))\n"})
    path = _write(tmp_path / "attention.ipynb", nb)
    _no_bwrap(tmp_path, monkeypatch)
    try:
        code = main(["grade", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet",
                     "--confinement", "bubblewrap"])
        err = capsys.readouterr().err
        assert code == 3 and "bubblewrap is not installed" in err and "apt-get install bubblewrap" in err
        assert "--unconfined" in err and "setuid" not in err
        monkeypatch.setattr(launch_setuid, "check_available", lambda extra=(): "refused by this test")
        code = main(["grade", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
        err = capsys.readouterr().err
        assert code == 3 and "bubblewrap is not installed" in err and "setuid: refused by this test" in err
        assert not marker.exists() and not (tmp_path / "out").exists()
        code = main(["grade", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet",
                     "--unconfined"])
        assert code == 0 and marker.exists()
    finally:
        launch.check_available.cache_clear()
    import csv
    import json
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["extra_data"]["confinement"] == "unconfined" and data["score"] == ATTENTION_POINTS
    rows = list(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
    assert rows[0]["confinement"] == "unconfined"


def test_without_bubblewrap_grading_falls_back_to_the_setuid_level(tmp_path, monkeypatch, capsys):
    from autograder.cli import main
    path = _write(tmp_path / "attention.ipynb", filled_notebook(ATTENTION))
    _no_bwrap(tmp_path, monkeypatch)
    try:
        code = main(["grade", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
    finally:
        launch.check_available.cache_clear()
    err = capsys.readouterr().err
    assert code == 0 and "bubblewrap cannot start here" in err and "using setuid" in err, err
    import json
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["score"] == 19 and data["extra_data"]["confinement"].startswith("setuid+seccomp")
    assert "setuid+seccomp" in (tmp_path / "out" / "grades.csv").read_text()


@pytest.mark.parametrize("level", LEVELS)
def test_reports_record_the_sandbox(tmp_path, monkeypatch, level):
    from autograder.cli import main
    monkeypatch.setenv("COURSE_SECRET", "test-secret")
    path = _write(tmp_path / "attention.ipynb", filled_notebook(ATTENTION))
    assert main(["grade", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet",
                 "--confinement", level]) == 0
    import json
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["score"] == 19 and data["extra_data"]["confinement"].startswith(PREFIX[level] + "+landlock ("
                                                                               if level == "setuid" and LANDLOCK
                                                                               else PREFIX[level] + " (")
    assert PREFIX[level] in (tmp_path / "out" / "grades.csv").read_text()


def test_a_missing_sandbox_is_not_a_student_error(monkeypatch):
    """Where bwrap cannot be started, ChildSubmission raises SandboxUnavailable (the class
    run reports a grader error), never a student's crash; so does a child with no level
    given where neither level starts."""
    from autograder.sandbox import setuid as launch_setuid
    from autograder.submission.remote import SandboxUnavailable
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailable):
        with ChildSubmission([(1, "x = 1\n")], fast("bubblewrap")) as sub:
            sub.ensure_started()
    monkeypatch.setattr(launch_setuid, "check_available", lambda extra=(): "refused by this test")
    launch.check_available.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="refused by this test"):
            with ChildSubmission([(1, "x = 1\n")], FAST) as sub:
                sub.ensure_started()
    finally:
        launch.check_available.cache_clear()


def test_the_setuid_level_starts_here_and_hides_the_course_files():
    """The setuid level's own check: a test child, a uid of its own with no groups, cannot
    read the course secret, the reference solutions or the checks. Fails, never skips."""
    from autograder.sandbox import setuid as launch_setuid
    launch_setuid.check_available.cache_clear()
    assert launch_setuid.check_available() is None


def test_restrict_tree_leaves_readable_only_what_a_child_needs(tmp_path):
    """Course files lose every group and other permission bit; the venv and the child package
    become readable by others, the folders above them only enterable, the grader package
    listable (names, not contents)."""
    from autograder.sandbox.course_files import restrict_tree
    top = tmp_path / "autograder-root"
    files = {"source/project/.course_secret": 0o644, "source/project/solutions/attention.py": 0o644,
             "source/project/autograder/grading/notebook.py": 0o664, "source/project/autograder/child/main.py": 0o600,
             "source/.venv/bin/python": 0o700, "source/.venv/pyvenv.cfg": 0o600, "submission/a.ipynb": 0o666}
    for rel, mode in files.items():
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text("x")
        os.chmod(top / rel, mode)
    restrict_tree(top, readable=[top / "source/.venv", top / "source/project/autograder/child"],
                  listable=[top / "source/project/autograder"])

    def mode(rel):
        return os.stat(top / rel).st_mode & 0o777
    assert mode("source/project/.course_secret") == 0o600
    assert mode("source/project/solutions/attention.py") == 0o600 and mode("source/project/solutions") & 0o077 == 0
    assert mode("source/project/autograder/grading/notebook.py") == 0o600
    assert mode("submission/a.ipynb") == 0o600 and mode("submission") & 0o077 == 0
    assert mode("source/project/autograder/child/main.py") == 0o604
    assert mode("source/.venv/bin/python") == 0o705 and mode("source/.venv/pyvenv.cfg") == 0o604
    assert mode("source/project/autograder") & 0o077 == 0o005  # listable: names only
    for above in ("", "source", "source/project"):
        assert mode(above) & 0o077 == 0o001, above  # enter, not list
