"""A class recorded in nbgrader's gradebook through one ``Gradebook`` session, on SQLite and on a
real PostgreSQL server: the scores of each function's hidden-test cell, the late penalty of the
course's ``LateSubmissionPlugin``, a grader's manual score kept (and flagged once the automatic
score changed under it) and a feedback notebook for each student, all as nbgrader counts them.

The PostgreSQL server is Debian's ``postgresql`` (installed by scripts/postgresql_install.sh when
missing), started here as a private cluster (``initdb``, ``pg_ctl``) listening on a unix socket in a
scratch folder only, and stopped at the end, also when the test fails."""
import datetime
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.checks.declared import check_metas
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import CheckResult, Job, NotebookResult
from autograder.nbgrader_glue import feedback, gradebook

ATTENTION = EXERCISES["attention"]
DUE = datetime.datetime(2026, 1, 10, 12, 0)
POINTS = {}
for _m in check_metas(ATTENTION):
    POINTS[_m.function] = POINTS.get(_m.function, 0.0) + _m.points
TOTAL = sum(POINTS.values())


def _course(root, db_url):
    """A course holding the attention assignment (due ``DUE``; a late notebook scores zero, nbgrader's
    ``penalty_method = 'zero'``), its cells recorded by the steps of ``nbgrader generate_assignment``."""
    from nbgrader import api, preprocessors
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(root)!r}\nc.CourseDirectory.course_id = 'one-pass'\n"
        f"c.CourseDirectory.db_url = {db_url!r}\n"
        "c.OverwriteCells.add_missing_cells = True\nc.LateSubmissionPlugin.penalty_method = 'zero'\n")
    course = gradebook.load_course(root)
    with api.Gradebook(course.db_url, course.course_id) as gb:
        gb.update_or_create_assignment(ATTENTION.assignment, duedate=DUE)
    nb = nbformat.read(ATTENTION.source_notebook, as_version=4)
    resources = {"nbgrader": {"notebook": ATTENTION.source_notebook.stem, "assignment": ATTENTION.assignment,
                              "db_url": course.db_url}}
    for step in (preprocessors.LockCells, preprocessors.ClearSolutions, preprocessors.ClearOutput,
                 preprocessors.ComputeChecksums, preprocessors.SaveCells):
        nb, resources = step(parent=course).preprocess(nb, resources)
    return course


def _submit(root, student, when):
    folder = root / "submitted" / student / ATTENTION.assignment
    folder.mkdir(parents=True)
    shutil.copy(ATTENTION.release_notebook, folder / ATTENTION.notebook)
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.000000 UTC"))
    return Job(folder / ATTENTION.notebook, student, ATTENTION)


def _result(student, lost):
    """Full points on every check except those of the functions in ``lost``."""
    checks = [CheckResult(m.function, m.name, 0.0 if m.function in lost else m.points, m.points, "")
              for m in check_metas(ATTENTION)]
    return NotebookResult(student, ATTENTION.assignment, ATTENTION.notebook, checks)


class _Counted:
    """nbgrader's ``Gradebook``, counting how many are opened (it is still the real one)."""

    def __init__(self, monkeypatch):
        from nbgrader import api
        from nbgrader.preprocessors import latesubmissions, overwritecells
        real, self.opened = api.Gradebook, 0
        counter = self

        class Gradebook(real):
            def __init__(self, *args, **kwargs):
                counter.opened += 1
                super().__init__(*args, **kwargs)
        for module in (api, latesubmissions, overwritecells):
            monkeypatch.setattr(module, "Gradebook", Gradebook)


def _record_a_class(root, db_url, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    course = _course(root, db_url)
    on_time, late = DUE - datetime.timedelta(hours=1), DUE + datetime.timedelta(days=1)
    jobs = {s: _submit(root, s, when) for s, when in (("alice", on_time), ("bob", late), ("carol", on_time))}
    counted = _Counted(monkeypatch)
    first = [(jobs["alice"], _result("alice", {"softmax"})), (jobs["bob"], _result("bob", set())),
             (jobs["carol"], _result("carol", set()))]
    totals = {}
    assert gradebook.record(course, first, totals) == (3, [])
    assert counted.opened == 1  # the whole class through one session
    assert totals[("alice", "attention")].raw == TOTAL - POINTS["softmax"]
    assert totals[("alice", "attention")].late_penalty == 0
    # bob is a day late: 'zero' takes his whole score (nbgrader's LateSubmissionPlugin)
    assert totals[("bob", "attention")].raw == TOTAL and totals[("bob", "attention")].late_penalty == TOTAL
    assert totals[("bob", "attention")].score == 0

    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:  # a grader's score in formgrader
        gb.find_grade("test_softmax", "attention", "attention", "carol").manual_score = 1.0
        gb.db.commit()
    regraded = [(jobs["carol"], _result("carol", {"attention_row"}))]
    totals = {}
    counted.opened = 0
    assert gradebook.record(course, regraded, totals) == (1, [])
    assert counted.opened == 1
    carol = totals[("carol", "attention")]
    assert carol.raw == TOTAL - POINTS["softmax"] + 1.0 - POINTS["attention_row"]
    [override] = carol.overrides
    assert (override.cell, override.manual, override.automatic) == ("test_softmax", 1.0, POINTS["softmax"])
    assert not override.stale  # its automatic score did not change

    with api.Gradebook(course.db_url, course.course_id) as gb:
        recorded = {}
        for student in ("alice", "bob", "carol"):
            nb = gb.find_submission_notebook("attention", "attention", student)
            recorded[student] = ({g.name: g.auto_score for g in nb.grades if g.name.startswith("test_")},
                                 nb.late_submission_penalty, float(gb.find_submission("attention", student).score))
    assert recorded["alice"][0] == {f"test_{f}": (0.0 if f == "softmax" else p) for f, p in POINTS.items()}
    assert recorded["bob"][1] == TOTAL and recorded["alice"][1] is None
    assert recorded["carol"][0]["test_attention_row"] == 0.0 and recorded["carol"][2] == carol.raw
    for student in ("alice", "bob", "carol"):
        folder = root / "autograded" / student / "attention"
        nb = nbformat.read(folder / ATTENTION.notebook, as_version=4)
        assert nb.cells[0].source == feedback.REPORT_CELL_SOURCE
        assert (folder / "timestamp.txt").read_text() == (jobs[student].path.parent / "timestamp.txt").read_text()
        assert not any("BEGIN HIDDEN TESTS" in c.source for c in nb.cells)


@pytest.mark.slow  # slow tier (docs/development.md): an nbgrader gradebook
def test_a_class_is_recorded_through_one_session_on_sqlite(tmp_path, monkeypatch):
    _record_a_class(tmp_path, f"sqlite:///{tmp_path / 'gradebook.db'}", monkeypatch)


class _PostgreSQL:
    """A private PostgreSQL cluster in ``folder`` (owned by the ``postgres`` user the Debian package
    makes: the server refuses to run as root), reached through a unix socket there only."""

    def __init__(self, folder):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "postgresql_install.sh")], check=True)
            found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        assert found, "no PostgreSQL server: run `bash scripts/postgresql_install.sh` (as root)"
        self.bin = Path(found[-1]).parent
        self.folder, self.data = folder, folder / "data"
        self.started = False

    def _as_server_user(self, *argv):
        user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(user + [str(a) for a in argv], check=True, capture_output=True, text=True,
                              timeout=120)

    def start(self):
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._as_server_user(self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.started = True
        self._as_server_user(self.bin / "pg_ctl", "-D", self.data, "-w", "-t", "60", "-l", self.folder / "log",
                             "-o", f"-c listen_addresses='' -c unix_socket_directories='{self.folder}' -p 5432",
                             "start")
        self._as_server_user(self.bin / "createdb", "-h", self.folder, "-U", "postgres", "gradebook")
        return f"postgresql+psycopg2://postgres@/gradebook?host={self.folder}"

    def stop(self):
        if self.started:
            self._as_server_user(self.bin / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")


@pytest.mark.slow  # slow tier: starts a PostgreSQL server
def test_a_class_is_recorded_through_one_session_on_postgresql(tmp_path, monkeypatch):
    folder = Path(tempfile.mkdtemp(prefix="gradebook-pg-"))  # beside /tmp: the server's user must reach it
    server = _PostgreSQL(folder)
    try:
        db_url = server.start()
        _record_a_class(tmp_path, db_url, monkeypatch)
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # slow tier: an nbgrader gradebook
def test_a_database_failure_mid_batch_loses_that_notebook_alone(tmp_path, monkeypatch):
    """The class is committed a batch at a time; when the database fails on one notebook (after it
    wrote some rows), the batch is rolled back and recorded again one notebook at a time: the others
    are recorded with their feedback, the failing one leaves no row and no feedback notebook."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    course = _course(tmp_path, f"sqlite:///{tmp_path / 'gradebook.db'}")
    on_time = DUE - datetime.timedelta(hours=1)
    jobs = {s: _submit(tmp_path, s, on_time) for s in ("alice", "bob", "carol")}
    real = gradebook.write_scores

    def failing(gb, course, result, submission_dir, releases):
        written = real(gb, course, result, submission_dir, releases)
        if result.student_id == "bob":
            raise OSError("disk I/O error")  # as the database would, after bob's rows were flushed
        return written
    monkeypatch.setattr(gradebook, "write_scores", failing)
    graded = [(jobs[s], _result(s, {"softmax"} if s == "carol" else set())) for s in ("alice", "bob", "carol")]
    totals = {}
    assert gradebook.record(course, graded, totals) == (2, ["bob/attention: not recorded: OSError: disk I/O error"])
    assert set(totals) == {("alice", "attention"), ("carol", "attention")}

    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:
        assert sorted(s.id for s in gb.students) == ["alice", "carol"]  # bob's student row rolled back too
        assert float(gb.find_submission("attention", "alice").score) == TOTAL
        assert float(gb.find_submission("attention", "carol").score) == TOTAL - POINTS["softmax"]
        with pytest.raises(api.MissingEntry):
            gb.find_submission("attention", "bob")
    for student, written in (("alice", True), ("bob", False), ("carol", True)):
        assert (tmp_path / "autograded" / student / "attention" / ATTENTION.notebook).is_file() == written
