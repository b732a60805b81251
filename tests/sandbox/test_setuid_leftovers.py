"""Issue 29, item 5: at the setuid level nothing a child writes outside its scratch survives it.

Without Landlock (a container runtime whose seccomp profile refuses the ``landlock_*`` calls),
a child at the setuid level may write every world-writable folder: ``/tmp``, ``/var/tmp``,
``/dev/shm``. Those files used to stay, for the next student given the same uid. The tests
run the setuid level without Landlock through the tests-only switch
``AUTOGRADER_TEST_WITHOUT_LANDLOCK=1`` (``sandbox/setuid.py``), as such a runtime would.
"""
import os

import pytest

from autograder.sandbox import leftovers
from autograder.sandbox.setuid import WITHOUT_LANDLOCK, SetuidSandbox
from autograder.submission import ChildSubmission, Limits, StudentCodeError

LIMITS = Limits(call_seconds=10.0, retry_seconds=5.0, cell_seconds=10.0, level="setuid")

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


def test_files_written_outside_scratch_are_removed_after_the_child(without_landlock):
    tag = f"t29-{os.getpid()}"
    with ChildSubmission([(1, WRITER)], LIMITS) as sub:
        assert sub.ensure_started()["errors"] == []
        assert "landlock" not in sub.confinement
        written, uid = sub.function("write_outside")(tag)
        # without Landlock the writes succeed (the attack of the issue)
        assert [os.path.dirname(p) for p in written] == ["/tmp", "/var/tmp", "/dev/shm"], written
        assert all(os.path.exists(p) for p in written)
    for path in written:
        assert not os.path.exists(path) and not os.path.exists(path + "-dir"), path
    assert leftovers.files_of(uid) == []


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
