"""The course hub's nbgrader exchange, as real unix users (scripts/hub.sh, scripts/hub_exchange.py).

Runs as root: ``hub.sh install`` into a fresh prefix (conftest's ``hub_prefix``), ``hub.sh
course`` for an instructor (a copy of this repository as the course), ``hub.sh users`` for
two students; every nbgrader command runs as its user through ``runuser`` with the hub's
environment, as a terminal on the hub would. A term in short: release, fetch, submit,
collect, release feedback, fetch feedback; and between the steps, what a student tries
against the exchange and against the other student. The users, their homes, the course folder
and the exchange are removed at the end, also when a step fails.
"""
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import PROJECT_ROOT

pytestmark = pytest.mark.slow

INSTRUCTOR = "lmrx-instructor"
STUDENTS = ("lmrx-ann", "lmrx-bob")
COURSE_ID = "lm-reads-text"  # student/nbgrader_config.py's default
ASSIGNMENT = "ps-exchange"


def _hub_sh(env, *args, check=True):
    proc = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "hub.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=1800)
    if check:
        assert proc.returncode == 0, f"hub.sh {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


class Term:
    """The users, folders and environment of one short term on the hub's exchange."""

    def __init__(self, prefix, tmp):
        self.prefix = prefix
        self.exchange = Path(tempfile.mkdtemp(prefix="lmrx-exchange-", dir="/tmp"))
        self.course = Path(tempfile.mkdtemp(prefix="lmrx-course-", dir="/var/tmp"))
        shutil.rmtree(self.course)  # hub.sh course copies the course into a new folder
        self.everyone = tmp / "everyone.txt"
        self.everyone.write_text("\n".join((INSTRUCTOR, *STUDENTS)) + "\n")
        self.roster = tmp / "roster.txt"
        self.roster.write_text("\n".join(STUDENTS) + "\n")
        self.env = dict(os.environ, HUB_PREFIX=str(prefix), HUB_INSTRUCTOR=INSTRUCTOR,
                        HUB_COURSE_DIR=str(self.course), NBGRADER_EXCHANGE=str(self.exchange))

    def home(self, user):
        return Path(pwd.getpwnam(user).pw_dir)

    def run(self, user, *command, cwd=None):
        """Run ``command`` as ``user`` with the hub's environment (the instructor in the
        course folder with the course importable, a student in their home); returns the
        CompletedProcess (stdout and stderr as text)."""
        env = {"HOME": str(self.home(user)), "USER": user, "PATH": f"{self.prefix / 'venv' / 'bin'}:/usr/bin:/bin",
               "NBGRADER_EXCHANGE": str(self.exchange), "LANG": "C.UTF-8"}
        if user == INSTRUCTOR:
            env["PYTHONPATH"] = str(self.course)
        where = cwd or (self.course if user == INSTRUCTOR else self.home(user))
        return subprocess.run(["runuser", "-u", user, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                               *command], cwd=where, capture_output=True, text=True, timeout=600)

    def ok(self, user, *command):
        proc = self.run(user, *command)
        assert proc.returncode == 0, f"{user}: {' '.join(command)}:\n{proc.stdout}\n{proc.stderr}"
        return proc

    def refused(self, user, *command):
        """``command`` must fail for ``user`` (a permission the exchange withholds)."""
        proc = self.run(user, *command)
        assert proc.returncode != 0, f"{user} could: {' '.join(command)}\n{proc.stdout}"
        return proc


@pytest.fixture(scope="module")
def term(hub_prefix, tmp_path_factory):
    t = Term(hub_prefix, tmp_path_factory.mktemp("exchange-term"))
    _hub_sh(t.env, "remove-users", str(t.everyone), check=False)  # leftovers of an aborted run
    try:
        _hub_sh(t.env, "course")
        _hub_sh(t.env, "users", str(t.roster))
        yield t
    finally:
        _hub_sh(t.env, "remove-users", str(t.everyone), check=False)
        for folder in (t.exchange, t.course):
            shutil.rmtree(folder, ignore_errors=True)


def _mode(path):
    st = os.stat(path)
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def test_a_student_cannot_take_the_exchange_or_read_another_students_work(term):
    ann, bob = STUDENTS
    instructor = pwd.getpwnam(INSTRUCTOR)
    course = term.exchange / COURSE_ID
    inbound, outbound, feedback = course / "inbound", course / "outbound", course / "feedback"

    # The layout hub.sh course made (scripts/hub_exchange.py): who owns what, and the modes.
    assert _mode(term.exchange) == (0o1777, 0, 0)
    assert _mode(course)[:2] == (0o755, instructor.pw_uid)
    assert _mode(outbound)[:2] == (0o755, instructor.pw_uid)
    assert _mode(inbound) == (0o3733, instructor.pw_uid, instructor.pw_gid)
    assert _mode(feedback)[:2] == (0o711, instructor.pw_uid)
    assert _mode(term.home(INSTRUCTOR))[0] == 0o700 and _mode(term.course)[0] == 0o700

    # The instructor releases a one-cell assignment (written as the instructor: their folder).
    release = term.course / "assignments" / ASSIGNMENT
    term.ok(INSTRUCTOR, "mkdir", "-p", str(release))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("answer = None")])
    term.ok(INSTRUCTOR, "python", "-c", f"import sys; open({str(release / 'work.ipynb')!r}, 'w').write(sys.argv[1])",
            nbformat.writes(nb))
    term.ok(INSTRUCTOR, "nbgrader", "release_assignment", ASSIGNMENT, "--force")
    assert (outbound / ASSIGNMENT / "work.ipynb").is_file()

    # A student can neither rename, remove nor replace the course's folders, nor list the private ones.
    term.refused(ann, "mv", str(course), str(term.exchange / "taken"))
    term.refused(ann, "rm", "-rf", str(course))
    for folder in (inbound, outbound, feedback):
        term.refused(ann, "mv", str(folder), str(course / "taken"))
    term.refused(ann, "mkdir", str(outbound / "fake"))
    term.refused(ann, "ls", str(inbound))
    term.refused(ann, "ls", str(feedback))
    assert course.is_dir() and _mode(course)[1] == instructor.pw_uid

    # Both fetch and submit, each their own answer.
    for user in STUDENTS:
        term.ok(user, "nbgrader", "fetch_assignment", ASSIGNMENT)
        work = term.home(user) / ASSIGNMENT / "work.ipynb"
        nb = nbformat.read(work, as_version=4)
        nb.cells[0].source = f"answer = 'written by {user}'"
        term.ok(user, "python", "-c", f"import sys; open({str(work)!r}, 'w').write(sys.argv[1])", nbformat.writes(nb))
        term.ok(user, "nbgrader", "submit", ASSIGNMENT)
    anns = list(inbound.glob(f"{ann}+{ASSIGNMENT}+*"))
    assert len(anns) == 1 and len(list(inbound.glob(f"{bob}+{ASSIGNMENT}+*"))) == 1
    submission = anns[0]
    # ann's submission: hers and the instructor's (an ACL entry: the group bits show its mask),
    # nobody else's, even by its exact name
    assert _mode(submission)[0] == 0o770
    for name in ("work.ipynb", "submission_secret.txt", "timestamp.txt"):
        assert _mode(submission / name)[0] == 0o640, name
        term.refused(bob, "cat", str(submission / name))
    term.refused(bob, "ls", str(submission))
    term.refused(bob, "touch", str(submission / "extra.ipynb"))
    term.refused(bob, "mv", str(submission), str(inbound / f"{bob}+{ASSIGNMENT}+2000-01-01 00:00:00.000000 UTC"))

    # The instructor collects both, and releases a feedback file to each.
    term.ok(INSTRUCTOR, "nbgrader", "collect", ASSIGNMENT)
    for user in STUDENTS:
        submitted = term.course / "submitted" / user / ASSIGNMENT
        assert f"written by {user}" in (submitted / "work.ipynb").read_text()
        back = term.course / "feedback" / user / ASSIGNMENT
        term.ok(INSTRUCTOR, "mkdir", "-p", str(back))
        for name in ("timestamp.txt", "submission_secret.txt"):
            term.ok(INSTRUCTOR, "cp", str(submitted / name), str(back / name))
        term.ok(INSTRUCTOR, "sh", "-c", f"echo '<p>feedback for {user}</p>' > '{back / 'work.html'}'")
    term.ok(INSTRUCTOR, "nbgrader", "release_feedback", ASSIGNMENT)
    released = sorted(feedback.glob("*.html"))
    assert len(released) == 2
    owners = {}
    for path in released:
        owners[[u for u in STUDENTS if f"feedback for {u}" in path.read_text()][0]] = path
    # each file: read by its student (the ACL), by no other, not even by its exact name
    term.ok(ann, "cat", str(owners[ann]))
    term.refused(bob, "cat", str(owners[ann]))
    term.refused(ann, "cat", str(owners[bob]))
    assert _mode(owners[ann])[0] & 0o007 == 0

    # Each fetches their own feedback, through nbgrader.
    for user in STUDENTS:
        term.ok(user, "nbgrader", "fetch_feedback", ASSIGNMENT)
        fetched = list((term.home(user) / ASSIGNMENT / "feedback").rglob("work.html"))
        assert len(fetched) == 1 and f"feedback for {user}" in fetched[0].read_text()


def test_the_hub_refuses_to_start_on_an_exchange_a_student_could_take(term, tmp_path):
    state = Path(tempfile.mkdtemp(prefix="lmrx-state-", dir="/tmp"))
    try:
        os.chmod(term.exchange, 0o777)  # writable by all, no sticky bit: the course folder could be renamed
        proc = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "hub.sh"), "start"],
                              env=dict(term.env, HUB_STATE=str(state)), capture_output=True, text=True, timeout=300)
        assert proc.returncode != 0
        assert "lacks the sticky bit" in proc.stderr and "not safe" in proc.stderr, proc.stderr
    finally:
        os.chmod(term.exchange, 0o1777)
        shutil.rmtree(state, ignore_errors=True)


def test_install_unlocks_formgrader_in_a_prefix_the_old_install_broke(term):
    """The hub.sh before this fix left formgrader locked in the shared environment's page config
    (JupyterLab's migration: see scripts/hub_jupyter.py); installing again must unlock it, and
    the instructor's course step must then find formgrader on for them and off for others."""
    import json
    page = term.prefix / "venv" / "etc" / "jupyter" / "labconfig" / "page_config.json"
    formgrader = "@jupyter/nbgrader:formgrader"
    page.write_text(json.dumps({"disabledExtensions": {formgrader: True, "@jupyter/nbgrader:create-assignment": True},
                                "lockedExtensions": {formgrader: True}}))
    # as it was: the instructor's step stops, saying why (the old one went on without formgrader)
    broken = _hub_sh(term.env, "course", check=False)
    assert broken.returncode != 0
    assert f"{formgrader} is locked above the user level" in broken.stderr, broken.stderr
    assert "formgrader is not on for" in broken.stderr
    _hub_sh(term.env, "install")
    config = json.loads(page.read_text())
    assert config["disabledExtensions"][formgrader] is True
    assert not config["lockedExtensions"].get(formgrader)
    _hub_sh(term.env, "course")  # checks formgrader on for the instructor, or stops
