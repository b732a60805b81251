"""At the setuid level nothing a child writes outside its scratch survives it, whatever its shape.

Without Landlock (a container runtime whose seccomp profile refuses the ``landlock_*`` calls),
a child at the setuid level runs in the container's own file tree. Where the grader may mount
(CAP_SYS_ADMIN), the shared folders (``/tmp``, ``/var/tmp``, ``/dev/shm``, ...) are covered in
the child's mount namespace: it can write none of them. Where it may not (tested through the
tests-only switch ``AUTOGRADER_TEST_WITHOUT_TMPFS=1``), the child may write them, and everything
its uid owns there is removed after it and before the uid is leased again, whatever the shape:
a chain of 5,000 folders (which once made the clean-up raise ``RecursionError``, so the chain
survived for a later student and the whole class was refused), a folder of 20,000 files,
folders of mode 000, sticky and setgid folders, names with newlines, undecodable bytes or 255
bytes. What cannot be removed leaves its uid out of the run, named in the grader's log, and the
class goes on with the other uids. The tests run without Landlock through the tests-only switch
``AUTOGRADER_TEST_WITHOUT_LANDLOCK=1`` (``sandbox/setuid.py``), as such a runtime would.
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
import shaped_trees
from conftest import SECRET

from autograder.checks.declared import points_by_function
from autograder.child.removal import shown
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook, reference_code
from autograder.sandbox import leftovers, one_submission
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.sandbox.policy import sandbox_uids
from autograder.sandbox.setuid import WITHOUT_LANDLOCK, SetuidSandbox
from autograder.submission.remote import ChildSubmission

LIMITS = Limits(call_seconds=10.0, retry_seconds=5.0, cell_seconds=10.0, level="setuid")
# building thousands of folders costs the child CPU time: these calls may take it
SHAPING = Limits(call_seconds=300.0, call_cpu_seconds=240.0, retry_seconds=5.0, cell_seconds=10.0,
                 notebook_seconds=600.0, level="setuid")
SHAPES = Path(shaped_trees.__file__).read_text(encoding="utf-8")

WRITER = '''
import os
def write_outside(tag):
    written = []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            path = os.path.join(folder, "left-by-" + tag)
            with open(path, "w") as f:
                f.write("for the next student")
            os.makedirs(path + "-dir/inner", exist_ok=True)
            os.chmod(path + "-dir/inner", 0)
            os.chmod(path + "-dir", 0)
            written.append(path)
        except OSError as exc:
            written.append("refused " + type(exc).__name__)
    return written, os.getuid()

def fill_shared(mib):
    try:
        with open("/dev/shm/filled", "wb") as f:
            for _ in range(mib):
                f.write(b"x" * 1024 ** 2)
    except OSError as exc:
        return "refused " + type(exc).__name__
    return "written"

def fill(mib):
    for name in ("a", "b"):
        with open(name, "wb") as f:
            for _ in range(mib):
                f.write(b"x" * 1024 ** 2)
    return "written"
'''


@pytest.fixture
def without_landlock(monkeypatch):
    monkeypatch.setenv(WITHOUT_LANDLOCK, "1")


@pytest.fixture
def without_tmpfs(monkeypatch):
    """As where the grader may not mount: no tmpfs scratch, no covers (one submission per
    container, which children started outside a submission's grading never claim)."""
    monkeypatch.setenv(one_submission.WITHOUT_TMPFS, "1")


def test_where_the_grader_may_mount_a_child_writes_no_shared_folder(without_landlock):
    """The partial finding: 1 GiB of /dev/shm filled in 0.3 s while a child ran. Covered in the
    child's mount namespace, the shared folders take nothing; the machine's are untouched."""
    tag = f"covered-{os.getpid()}"
    with ChildSubmission([(1, WRITER)], LIMITS) as sub:
        assert sub.ensure_started()["errors"] == []
        assert "landlock" not in sub.confinement
        written, uid = sub.function("write_outside")(tag)
        assert written == ["refused PermissionError"] * 3, written
        assert sub.function("fill_shared")(64) == "refused PermissionError"
        assert leftovers.files_of(uid) == []
    assert not os.path.exists("/dev/shm/filled")


def test_a_shared_folder_since_removed_or_turned_into_a_link_stops_no_child(without_landlock, shm_tmp,
                                                                             monkeypatch):
    """The shared folders are found once per grading process. One removed since, and one its
    owner replaced by a link to /usr, are not covered (and /usr is not covered through the link:
    the child would not start); the others still are."""
    gone, linked = shm_tmp / "gone", shm_tmp / "linked"
    gone.mkdir()
    linked.mkdir()
    monkeypatch.setattr(leftovers, "writable_places", lambda: (str(gone), str(linked), "/var/tmp"))
    gone.rmdir()
    linked.rmdir()
    linked.symlink_to("/usr")
    with ChildSubmission([(1, WRITER)], LIMITS) as sub:
        assert sub.ensure_started()["errors"] == []
        written, uid = sub.function("write_outside")("linked")
        assert written[1] == "refused PermissionError", written  # /var/tmp: still covered
    for path in written:
        if not path.startswith("refused"):
            leftovers.remove(path)
            leftovers.remove(path + "-dir")


def test_files_written_outside_scratch_are_removed_after_the_child(without_landlock, without_tmpfs):
    tag = f"t29-{os.getpid()}"
    with ChildSubmission([(1, WRITER)], LIMITS) as sub:
        assert sub.ensure_started()["errors"] == []
        assert "landlock" not in sub.confinement
        written, uid = sub.function("write_outside")(tag)
        # without Landlock and without covers the writes succeed (the attack)
        assert [os.path.dirname(p) for p in written] == ["/tmp", "/var/tmp", "/dev/shm"], written
        assert all(os.path.exists(p) for p in written)
    for path in written:
        assert not os.path.exists(path) and not os.path.exists(path + "-dir"), path
    assert leftovers.files_of(uid) == []


def _shapes_left_and_removed(places, depth, width, monkeypatch):
    tag = f"shapes-{os.getpid()}"
    with ChildSubmission([(1, SHAPES)], SHAPING) as sub:
        assert sub.ensure_started()["errors"] == []
        made, uid = sub.function("leave_shapes")(list(places), tag, depth, width)
        assert len(made) == 3 * len(places) and all(os.path.lexists(p) for p in made), made  # the attack happened
    assert [p for p in made if os.path.lexists(p)] == []
    assert leftovers.files_of(uid) == [] and uid not in leftovers.unusable()
    # the uid is leased again (before, every later lease that tried it first refused the class)
    monkeypatch.setenv("AUTOGRADER_SANDBOX_UIDS", f"{uid}-{uid}")
    again = SetuidSandbox(LIMITS)
    try:
        assert again.uid == uid
    finally:
        again.close()


def test_a_chain_of_5000_folders_and_a_wide_folder_in_dev_shm_are_removed(without_landlock, without_tmpfs,
                                                                           monkeypatch):
    _shapes_left_and_removed(["/dev/shm"], 5_000, 20_000, monkeypatch)


@pytest.mark.slow
def test_leftovers_of_every_shape_in_every_shared_folder_are_removed(without_landlock, without_tmpfs, monkeypatch):
    """On a disk, not a tmpfs (/tmp and /var/tmp here): slower to make and to remove."""
    _shapes_left_and_removed(["/tmp", "/var/tmp", "/dev/shm"], 5_000, 20_000, monkeypatch)


def test_a_uid_whose_files_remain_is_cleaned_before_it_is_leased_again(without_landlock):
    """Files of a sandbox uid left by a grader that died mid-run: the next lease of that uid
    removes them first (or skips the uid)."""
    first = SetuidSandbox(LIMITS)
    uid = first.uid
    first.close()
    planted = f"/dev/shm/t29-planted-{os.getpid()}"
    with open(planted, "w") as f:
        f.write("left by a dead grader")
    os.chown(planted, uid, uid)
    try:
        again = SetuidSandbox(LIMITS)
        try:
            assert leftovers.files_of(again.uid) == []
            assert not os.path.exists(planted) or again.uid != uid
        finally:
            again.close()
    finally:
        if os.path.exists(planted):
            os.unlink(planted)


def _unremovable(uid, tag):
    """As root: ``/dev/shm/<tag>/new\\nline/stuck`` of ``uid``, the file immutable (a child cannot
    make one: no CAP_LINUX_IMMUTABLE, and seccomp refuses the ioctl). Returns the file's path."""
    top = f"/dev/shm/{tag}"
    os.makedirs(f"{top}/new\nline")
    stuck = f"{top}/new\nline/stuck"
    with open(stuck, "w") as f:
        f.write("cannot be removed")
    for path in (top, f"{top}/new\nline", stuck):
        os.chown(path, uid, uid)
    subprocess.run(["chattr", "+i", stuck], check=True)
    return stuck


def _release_unremovable(stuck, uid):
    subprocess.run(["chattr", "-i", stuck], check=True)
    assert leftovers.remove(os.path.dirname(os.path.dirname(stuck))) == []
    leftovers._unusable.pop(uid, None)


def test_a_uid_whose_leftovers_cannot_be_removed_is_left_out_and_named(without_landlock, monkeypatch, capfd):
    first, _ = sandbox_uids()
    stuck = _unremovable(first, f"t41-stuck-{os.getpid()}")
    try:
        assert leftovers.clean(first) is False  # what the lease asks of each uid
        err = capfd.readouterr().err
        assert f"sandbox uid {first} is not used again in this run" in err, err
        assert f"{shown(stuck)}: Operation not permitted" in err, err
        monkeypatch.setenv("AUTOGRADER_SANDBOX_UIDS", f"{first}-{first + 1}")
        box = SetuidSandbox(LIMITS)  # the lease goes on with the other uid
        try:
            assert box.uid == first + 1
        finally:
            box.close()
        assert leftovers.clean(first) is False and capfd.readouterr().err == ""  # said once
    finally:
        _release_unremovable(stuck, first)


def test_the_scratch_as_a_whole_is_bounded(without_landlock):
    """Two files of 6 MiB each, with files capped at 8 MiB and the scratch at 8 MiB: the
    second fails (before, only each file was capped and any number of them fitted)."""
    limits = Limits(call_seconds=20.0, retry_seconds=5.0, cell_seconds=10.0, level="setuid",
                    file_bytes=8 * 1024 ** 2, scratch_bytes=8 * 1024 ** 2)
    with ChildSubmission([(1, WRITER)], limits) as sub:
        assert sub.ensure_started()["errors"] == []
        with pytest.raises(StudentCodeError) as err:
            sub.function("fill")(6)
        assert "ENOSPC" in err.value.detail or "No space left" in err.value.detail, err.value.detail


# -- a class graded on the user's path ---------------------------------------------------------
ATTENTION = EXERCISES["attention"]
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
ATTACK = SHAPES + '''
import os as _os
try:
    leave_shapes(["/dev/shm", "/var/tmp", "/tmp"], "left-by-mal", 1_500, 100)
    with open("/dev/shm/mal-fills", "wb") as _f:
        _f.write(b"x" * (256 * 1024 ** 2))
except Exception:
    pass

'''


def _hold_lease(uid):
    """Hold the lease of sandbox uid ``uid`` as a running grader would (its lock, ``UidLease``):
    a run must look at the other uids meanwhile. Returns the descriptor: closing it releases."""
    folder = Path(tempfile.gettempdir()) / f"autograder-sandbox-uids-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@pytest.mark.slow
def test_a_class_is_graded_at_full_marks_past_leftovers_of_every_shape(tmp_path, as_other_user):
    """``python -m autograder grade --confinement setuid`` over a class of two honest students and
    one who tries to leave deep trees in every shared folder, with two sandbox uids: on one a
    dead run left a chain of 5,000 folders and more (removable), on the other an immutable file
    (not). The run's first lease finds the first uid busy (this test holds it until the run has
    looked at the other), so it must try the second: that uid is left out and named in the log,
    the class is graded on the first, whose leftovers go with its first lease, and every student
    gets full marks. With Landlock: without it the level refuses to grade a checkout whose course
    files other users may read (``check_available``)."""
    first, _ = sandbox_uids()
    usable, stuck_uid = first, first + 1
    tag = f"t41-class-{os.getpid()}"
    (made, _), _ = as_other_user(usable, shaped_trees.leave_shapes, ["/dev/shm", "/var/tmp"], tag, 5_000, 1_000)
    assert all(not p.startswith("refused") for p in made), made
    stuck = _unremovable(stuck_uid, tag + "-stuck")
    held = _hold_lease(usable)
    try:
        submitted = tmp_path / "submitted"
        attack = {ATTENTION.functions[0]: ATTACK + reference_code(ATTENTION)[ATTENTION.functions[0]]}
        for student, nb in [("ann", filled_notebook(ATTENTION)), ("bob", filled_notebook(ATTENTION)),
                            ("mal", filled_notebook(ATTENTION, attack))]:
            (submitted / student / "attention").mkdir(parents=True)
            nbformat.write(nb, submitted / student / "attention" / "attention.ipynb")
        env = dict(os.environ, COURSE_SECRET=SECRET.decode(), AUTOGRADER_SANDBOX_UIDS=f"{usable}-{stuck_uid}")
        proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(submitted), "--out",
                                 str(tmp_path / "graded"), "--jobs", "1", "--confinement", "setuid"],
                                cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = []
        for line in proc.stderr:  # until the run names what it could not remove (or ends)
            log.append(line)
            if shown(stuck) in line:
                break
        os.close(held)
        held = None
        out, err = proc.communicate(timeout=1800)
        log = "".join(log) + err
        assert proc.returncode == 0, log[-3000:]
        assert f"sandbox uid {stuck_uid} is not used again in this run" in log, log[-3000:]
        assert f"{shown(stuck)}: Operation not permitted" in log
        scores = {s: json.loads((tmp_path / "graded" / "attention" / s / "results.json").read_text())
                  for s in ("ann", "bob", "mal")}
        assert {s: r["score"] for s, r in scores.items()} == dict.fromkeys(scores, ATTENTION_POINTS), log[-3000:]
        assert all(r["extra_data"]["confinement"].startswith("setuid+seccomp") for r in scores.values())
        assert [p for p in made if os.path.lexists(p)] == []  # gone with the first lease of its uid
        assert leftovers.files_of(usable) == []
        assert leftovers.files_of(stuck_uid) == [os.path.dirname(os.path.dirname(stuck))]
        assert not any(os.path.lexists(f"{place}/left-by-mal") for place in ("/dev/shm", "/var/tmp", "/tmp"))
        assert not os.path.lexists("/dev/shm/mal-fills")
    finally:
        if held is not None:
            os.close(held)
        _release_unremovable(stuck, stuck_uid)
        for path in made:
            leftovers.remove(path)
