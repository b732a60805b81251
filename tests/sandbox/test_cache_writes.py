"""The caches the instructor's and root's commands fill cannot be turned against them.

``python -m autograder caches`` runs as the instructor (``scripts/hub.sh course``) and as root
(``scripts/setup.sh``). It used to write ``/tmp/data-gym-cache/<key>.tmp`` by path: a student
who made that folder first and put a link at that name had any file of the instructor's or
root's overwritten with the tokenizer. Here a student (another unix user) plants what a student
can plant in a folder every user may write, the instructor and root run the command, and their
files must stay as they were, the message naming the refused folder (``sandbox/cache_folder.py``).
"""
import hashlib
import os
import subprocess
import sys
import tempfile

import pytest
from conftest import other_uids

from autograder.sandbox import cache_folder, matplotlib_cache, tiktoken_cache
from autograder.sandbox.leftovers import remove

KEY = hashlib.sha1(tiktoken_cache.CL100K_URL.encode()).hexdigest()
# sha256 of cl100k_base.tiktoken as tiktoken checks it (typed again here, not imported)
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
INSTRUCTOR, STUDENT = other_uids()


@pytest.fixture
def shared_tmp():
    """A folder like ``/tmp``: root's, every user may write it, sticky (mode 1777)."""
    folder = tempfile.mkdtemp(prefix="shared-", dir="/tmp")
    os.chmod(folder, 0o1777)
    yield folder
    assert remove(folder) == []


@pytest.fixture
def instructor_file(shared_tmp):
    """A file only the instructor may read or write, in a home of theirs."""
    home = os.path.join(shared_tmp, "instructor-home")
    os.mkdir(home, 0o700)
    path = os.path.join(home, "gradebook.db")
    with open(path, "w") as f:
        f.write("the instructor's grades")
    for p in (home, path):
        os.chown(p, INSTRUCTOR, INSTRUCTOR)
    return path


def _plant(student_fn, *args):
    """Run ``student_fn(*args)`` as the student (a fork; see ``as_other_user``)."""
    import pickle  # noqa: F401 -- the forked process needs nothing it has not imported
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setresgid(STUDENT, STUDENT, STUDENT)
            os.setresuid(STUDENT, STUDENT, STUDENT)
            student_fn(*args)
            code = 0
        finally:
            os._exit(code)
    assert os.waitpid(pid, 0)[1] == 0, "the student's planting failed"


def _link_at_the_temp_name(shared, victim):
    """What the student did: tiktoken's default folder made first, open to all, with links at
    the old temporary name and at the cache file's own name."""
    folder = os.path.join(shared, "data-gym-cache")
    os.mkdir(folder)
    os.chmod(folder, 0o777)
    os.symlink(victim, os.path.join(folder, KEY + ".tmp"))
    os.symlink(victim, os.path.join(folder, KEY))


def _link_as_the_folder(shared, victim):
    os.symlink(os.path.dirname(victim), os.path.join(shared, "data-gym-cache"))


def _prefill_with_tmpdir(tmpdir):
    """``prefill()`` as the command runs it, with ``$TMPDIR`` = ``tmpdir``; ``(files, notes)``."""
    os.environ["TMPDIR"] = tmpdir
    tempfile.tempdir = None  # gettempdir() reads $TMPDIR again
    notes = []
    return [str(p) for p in tiktoken_cache.prefill(say=notes.append)], notes


@pytest.mark.parametrize("plant", [_link_at_the_temp_name, _link_as_the_folder])
def test_the_instructors_files_are_untouched(shared_tmp, instructor_file, as_other_user, plant):
    _plant(plant, shared_tmp, instructor_file)
    (written, notes), _ = as_other_user(INSTRUCTOR, _prefill_with_tmpdir, shared_tmp)
    with open(instructor_file) as f:
        assert f.read() == "the instructor's grades"
    assert os.listdir(os.path.dirname(instructor_file)) == ["gradebook.db"]
    folder = os.path.join(shared_tmp, "data-gym-cache")
    assert folder not in {os.path.dirname(p) for p in written}
    assert len(notes) == 1 and f"{folder}: " in notes[0], notes
    assert ("owned by uid" in notes[0]) if plant is _link_at_the_temp_name else ("symbolic link" in notes[0])
    assert str(tiktoken_cache.cache_dir() / KEY) in written  # the project's cache: root's, read only


def _caches(tmpdir, **env):
    """``python -m autograder caches`` as root (what scripts/setup.sh runs), ``$TMPDIR`` = ``tmpdir``."""
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")} | env
    return subprocess.run([sys.executable, "-m", "autograder", "caches"], env=dict(env, TMPDIR=tmpdir),
                          cwd=tiktoken_cache.PROJECT_ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("plant", [_link_at_the_temp_name, _link_as_the_folder])
def test_roots_files_are_untouched(shared_tmp, tmp_path, plant):
    os.chmod(tmp_path, 0o755)  # the student may reach it (pytest's own parent folder still says no)
    victim = tmp_path / "shadow"
    victim.write_text("root's own")
    _plant(plant, shared_tmp, str(victim))
    run = _caches(shared_tmp)
    assert run.returncode == 0, run.stderr
    assert victim.read_text() == "root's own" and os.listdir(tmp_path) == ["shadow"]
    folder = os.path.join(shared_tmp, "data-gym-cache")
    assert f"{folder}: " in run.stderr and "left alone" in run.stderr, run.stderr
    assert f"tiktoken cache: {tiktoken_cache.cache_dir() / KEY}" in run.stdout


def _folder_of_the_student(shared, tmp_path):
    path = os.path.join(shared, "course-cache")
    _plant(os.mkdir, path)
    return path, "owned by uid"


def _open_to_all(shared, tmp_path):
    path = tmp_path / "open-to-all"
    path.mkdir(mode=0o777)
    path.chmod(0o777)
    return str(path), "no sticky bit"


def _inside_a_folder_open_to_all(shared, tmp_path):
    (tmp_path / "open").mkdir()
    (tmp_path / "open").chmod(0o777)
    return str(tmp_path / "open" / "cache"), f"the folder that holds it, {tmp_path}/open"


@pytest.mark.parametrize("make", [_folder_of_the_student, _open_to_all, _inside_a_folder_open_to_all])
def test_a_chosen_cache_folder_others_could_redirect_is_refused_by_name(shared_tmp, tmp_path, make):
    folder, why = make(shared_tmp, tmp_path)
    run = _caches(shared_tmp, TIKTOKEN_CACHE_DIR=folder)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"tiktoken cache: {folder}: " in run.stderr and why in run.stderr, run.stderr
    assert not os.path.lexists(os.path.join(folder, KEY))


def test_an_honest_run_fills_every_cache_and_owns_the_default_folder(shared_tmp, as_other_user):
    """Nobody planted anything: the instructor's run makes tiktoken's default folder theirs
    (mode 0755), the file is the right one, no temporary file is left, and afterwards the student
    can put nothing there."""
    (written, notes), _ = as_other_user(INSTRUCTOR, _prefill_with_tmpdir, shared_tmp)
    folder = os.path.join(shared_tmp, "data-gym-cache")
    assert notes == [] and os.path.join(folder, KEY) in written
    st = os.lstat(folder)
    assert (st.st_uid, st.st_mode & 0o7777) == (INSTRUCTOR, 0o755)
    assert os.listdir(folder) == [KEY]
    with open(os.path.join(folder, KEY), "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == CL100K_SHA256
    assert os.stat(os.path.join(folder, KEY)).st_mode & 0o777 == 0o644  # every user's kernel reads it

    def try_to_plant():
        try:
            os.symlink("/etc/passwd", os.path.join(folder, KEY + ".tmp"))
        except PermissionError:
            return "refused"
        return "planted"
    assert as_other_user(STUDENT, try_to_plant)[0] == "refused"


@pytest.mark.parametrize("what", ["fifo", "link to /dev/zero"])
def test_a_fifo_or_endless_file_at_the_cache_name_is_replaced_never_read(tmp_path, what):
    folder = tmp_path / "cache"
    folder.mkdir()
    if what == "fifo":
        os.mkfifo(folder / KEY)
    else:
        os.symlink("/dev/zero", folder / KEY)
    path = tiktoken_cache.fill(folder)  # would block on the FIFO, or read /dev/zero without end
    assert not path.is_symlink() and path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256


def test_matplotlibs_cache_folder_is_refused_when_a_link_or_anothers(shared_tmp, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    os.symlink(target, tmp_path / "mpl")
    with pytest.raises(cache_folder.UnsafeFolder, match=f"{tmp_path}/mpl: it is a symbolic link"):
        matplotlib_cache.prefill(tmp_path / "mpl")
    theirs = os.path.join(shared_tmp, "mpl")
    _plant(os.mkdir, theirs)
    with pytest.raises(cache_folder.UnsafeFolder, match=f"{theirs}: it is owned by uid {STUDENT}"):
        matplotlib_cache.prefill(theirs)
    assert os.listdir(target) == [] and os.listdir(theirs) == []
