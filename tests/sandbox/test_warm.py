"""The warm start (``warm.StudentSandbox``, ``child/forkserver.py``): one sandbox per student,
one forked process per notebook, with the guarantees of a cold start.

Each notebook of a student is a ``ChildSubmission`` on the same ``StudentSandbox``. These
tests check what a fork server could get wrong: the seccomp filter is on every forked
process (fork, sockets, ptrace refused; ``/proc/self/status`` says so), the notebook cannot
reach the server (signals to PID 1 are ignored, its memory cannot be opened), and nothing
one notebook leaves (files in the scratch folder, a changed module, a thread, an environment
variable) is seen by the next one. They need the sandbox: where it is missing they fail.
"""
import errno
import os
from pathlib import Path

import pytest
import shaped_trees

from autograder.grading.workers import grade_job
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.sandbox.warm import StudentSandbox
from autograder.submission.remote import ChildSubmission

FAST = Limits(call_seconds=5.0, retry_seconds=2.0, cell_seconds=5.0)

PROBE = r'''
import os, errno, socket, threading, numpy
def outcome(action):
    try:
        return "allowed: %r" % (action(),)
    except Exception as exc:
        return "%s %s" % (type(exc).__name__, errno.errorcode.get(getattr(exc, "errno", None) or 0, ""))

def seccomp_mode():
    with open("/proc/self/status") as f:
        return next(line.split()[1] for line in f if line.startswith("Seccomp:"))

def leave_traces():
    with open("/tmp/left_behind.txt", "w") as f:
        f.write("from the previous notebook")
    os.mkdir("/tmp/locked")
    open("/tmp/locked/inside", "w").close()
    os.chmod("/tmp/locked", 0)
    numpy.pi = 3
    os.environ["LEFT_BEHIND"] = "1"
    threading.Thread(target=threading.Event().wait, daemon=True).start()
    return True

def leave_nested_locked():
    os.makedirs("/tmp/outer/inner")
    open("/tmp/outer/inner/kept", "w").close()
    os.chmod("/tmp/outer/inner", 0)
    os.chmod("/tmp/outer", 0)
    return True

def traces():
    return sorted(os.listdir("/tmp")), numpy.pi, os.environ.get("LEFT_BEHIND"), threading.active_count()

def attacks():
    import ctypes, signal
    libc = ctypes.CDLL(None, use_errno=True)
    return {
        "fork": outcome(os.fork),
        "socket": outcome(lambda: socket.socket()),
        "ptrace": outcome(lambda: (libc.ptrace(16, 1, 0, 0), ctypes.get_errno())),  # PTRACE_ATTACH
        "interrupt_server": outcome(lambda: os.kill(1, signal.SIGINT)),
        "kill_server": outcome(lambda: os.kill(1, signal.SIGKILL)),
        "server_memory": outcome(lambda: open("/proc/1/mem", "r+b")),
        "seccomp": seccomp_mode(),
    }
'''


def _run(box, name, *args):
    with ChildSubmission([(1, PROBE)], FAST, host=box) as sub:
        assert sub.ensure_started()["errors"] == []
        assert sub.proc.host is box  # forked there, not a cold sandbox
        return sub.function(name)(*args)


def test_forked_children_carry_the_filter_and_cannot_reach_the_server():
    with StudentSandbox(FAST) as box:
        found = _run(box, "attacks")
        assert found["seccomp"] == "2"  # SECCOMP_MODE_FILTER
        assert found["fork"].startswith("PermissionError"), found
        assert found["socket"].startswith("PermissionError"), found
        assert found["ptrace"] == "allowed: (-1, %d)" % errno.EPERM, found
        assert found["server_memory"].startswith(("PermissionError", "OSError")), found
        # The signal to the namespace's init is ignored: the server still forks notebooks.
        assert _run(box, "seccomp_mode") == "2"
        assert box.usable and box.spawned == 2


def test_nothing_one_notebook_leaves_reaches_the_next():
    # The scratch starts as the sandbox's fixed view of /tmp: empty, or holding only the empty
    # mount points of shown folders that live under /tmp (a checkout in /tmp/...).
    with StudentSandbox(FAST) as box:
        files, pi, env, threads = _run(box, "traces")
        assert (env, threads) == (None, 1) and abs(pi - 3.141592653589793) < 1e-15
        assert _run(box, "leave_traces") is True
        assert _run(box, "traces") == (files, pytest.approx(3.141592653589793), None, 1)


def test_a_locked_folder_inside_a_locked_folder_is_removed_too():
    """A folder of mode 000 inside a folder of mode 000 survived the warm
    clean-up (the outer one could not be listed when the inner one's mode was to be reset)."""
    with StudentSandbox(FAST) as box:
        files = _run(box, "traces")[0]
        assert _run(box, "leave_nested_locked") is True
        assert _run(box, "traces")[0] == files


def test_a_chain_of_1500_locked_folders_with_odd_names_goes_before_the_next_notebook():
    """os.walk and shutil.rmtree recursed once per level: a deep chain stopped the clean-up
    (RecursionError). Folders of mode 000, sticky or setgid, names with newlines or bytes that
    are not UTF-8, a folder of 2,000 files: the next notebook finds the scratch as it was."""
    shaping = Limits(call_seconds=120.0, call_cpu_seconds=100.0, retry_seconds=2.0, cell_seconds=5.0,
                     notebook_seconds=300.0)
    with StudentSandbox(shaping) as box:
        files = _run(box, "traces")[0]
        with ChildSubmission([(1, Path(shaped_trees.__file__).read_text())], shaping, host=box) as sub:
            made, _ = sub.function("leave_shapes")(["/tmp"], "deep", 1_500, 2_000)
            assert made == ["/tmp/deep", "/tmp/deep-wide", "/tmp/deep-locked"]
        assert _run(box, "traces")[0] == files
        assert box.usable


def test_a_notebook_that_kills_itself_leaves_the_sandbox_usable():
    with StudentSandbox(FAST) as box:
        with ChildSubmission([(1, "import os\ndef die():\n    os._exit(3)\n")], FAST, host=box) as sub:
            with pytest.raises(StudentCodeError) as err:
                sub.function("die")()
            assert err.value.kind == "crashed" and "status 3" in err.value.detail
        assert _run(box, "seccomp_mode") == "2"


def test_a_hanging_notebook_is_ended_and_the_next_one_runs():
    with StudentSandbox(FAST) as box:
        before = _run(box, "traces")[0]
        with ChildSubmission([(1, "def spin():\n    while True:\n        pass\n")],
                             Limits(call_seconds=1.0, retry_seconds=1.0, cell_seconds=1.0), host=box) as sub:
            with pytest.raises(StudentCodeError) as err:
                sub.function("spin")()
            assert err.value.kind == "timeout"
        assert _run(box, "traces")[0] == before


def test_grade_job_on_a_student_sandbox_gives_the_cold_grade(tmp_path):
    import nbformat
    from conftest import SECRET

    from autograder.core.registry import EXERCISES
    from autograder.demo.fill import filled_notebook
    from autograder.demo.mistakes import all_mistakes
    from autograder.grading.discover import discover
    mistake = next(m for m in all_mistakes() if m.exercise == "attention")
    folder = tmp_path / "s1" / "attention"
    folder.mkdir(parents=True)
    nbformat.write(filled_notebook(EXERCISES["attention"], {mistake.function: mistake.code}),
                   folder / "attention.ipynb")
    job, = discover(tmp_path)
    cold, _ = grade_job(job, SECRET, FAST)
    with StudentSandbox(FAST) as box:
        warm, _ = grade_job(job, SECRET, FAST, box)
        assert box.spawned >= 1
    assert [(c.name, c.score) for c in warm.checks] == [(c.name, c.score) for c in cold.checks]
    assert warm.score < warm.max_score == 19 and warm.confinement == cold.confinement
    assert os.geteuid() != 0 or warm.confinement == "bubblewrap+seccomp (a sandbox uid of its own)"


def test_a_new_student_gets_the_spare_started_ahead_and_no_sandbox_serves_two():
    from autograder.sandbox.spare import WorkerSandboxes
    worker = WorkerSandboxes()
    try:
        first = worker.for_student("alice", FAST)
        spare = worker.spare[1]
        assert first is not spare and worker.for_student("alice", FAST) is first  # same student: kept
        second = worker.for_student("bob", FAST)
        assert second is spare and not first.usable  # alice's sandbox closed, bob got the spare
        assert worker.spare[1] not in (first, second) and worker.spare[1].usable  # a new spare
        assert _run(second, "seccomp_mode") == "2"
        # other limits: the spare (started for FAST) is not used for them, it is closed
        other = Limits(call_seconds=6.0)
        old_spare = worker.spare[1]
        third = worker.for_student("carol", other)
        assert third is not old_spare and not old_spare.usable
    finally:
        worker.close()
    assert worker.current is None and worker.spare is None


def test_a_class_is_handed_to_the_workers_one_student_at_a_time():
    from types import SimpleNamespace

    from autograder.grading.workers import by_student
    jobs = [SimpleNamespace(student_id=s) for s in ["a", "a", "b", "a", "c", "b"]]
    assert by_student(range(6), jobs) == [[0, 1, 3], [2, 5], [4]]
    assert by_student([5, 2], jobs) == [[5, 2]]


def test_matplotlib_font_list_is_built_once_and_copied_into_a_sandbox(tmp_path, monkeypatch):
    from autograder.child import mplcache
    from autograder.sandbox import matplotlib_cache
    from autograder.sandbox import policy as confinement
    built = matplotlib_cache.prefill(tmp_path / "cache")
    assert [p.name for p in built] and all(p.name.startswith("fontlist-v") for p in built)
    project = tmp_path / "project"
    (project / ".cache").mkdir(parents=True)
    (tmp_path / "cache").rename(project / ".cache" / "matplotlib")
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "config"))
    mplcache.seed(str(project))
    assert sorted(p.name for p in (tmp_path / "config").iterdir()) == [p.name for p in built]
    mplcache.seed(str(tmp_path / "nowhere"))  # nothing to copy: no error
    # the project's own list is shown read-only in the sandbox, as a file
    shown = dict(confinement.visible_paths())
    for path in matplotlib_cache.prefill():
        assert shown.get(str(path.resolve())) == "file"
