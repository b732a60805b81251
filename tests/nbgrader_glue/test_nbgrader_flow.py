"""A whole term with nbgrader's own command line, exactly as docs/instructor.md and docs/students.md say.

The course is a fresh copy of this repository's files (what a clone holds); the exchange is
a temporary folder (``$NBGRADER_EXCHANGE``); two students, alice (reference solutions) and
bob (forgets the sqrt(d_k) scaling), work on the same machine, each with a HOME of their
own and the shipped student config. Every command below is a line of those pages (checked by
``test_the_docs_list_the_commands_this_test_runs``); the one-machine flags they mention
(``--student``, ``--ExchangeCollect.check_owner=False``) are added where it says.

Checks: nbgrader's release equals the committed one; validate fails on the untouched release
and passes on a correct notebook; collect keeps timestamps; the in-kernel ``nbgrader
autograde`` agrees with the autograder and prints no checksum warning; the grade of record
lands in the gradebook, so ``nbgrader export`` equals ``graded/grades.csv``; each student
fetches only their own feedback, which carries the grader's per-check messages.
"""
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.checks.declared import check_metas, points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.nbgrader_glue import feedback, gradebook

NAME = "attention"
ATTENTION = EXERCISES[NAME]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
BIN = Path(sys.executable).parent
DUEDATE = "2026-01-15 17:00:00 UTC"  # in the past: both submissions are late

# The documented commands, in the order the term runs them (<name>, <course>, <duedate> filled in).
INSTRUCTOR_START = [
    'nbgrader db assignment add <name> --duedate="<duedate>"',
    "nbgrader generate_assignment <name>",
    "nbgrader release_assignment <name>",
]
STUDENT_SETUP = "mkdir -p ~/.jupyter && cp <course>/student/nbgrader_config.py ~/.jupyter/"
FETCH = "nbgrader fetch_assignment <name>"
VALIDATE = "nbgrader validate <name>/<name>.ipynb"
SUBMIT = "nbgrader submit <name>"
COLLECT = "nbgrader collect <name>"
AUTOGRADE = "nbgrader autograde <name>"
GRADE = "python -m autograder grade submitted/"
INSTRUCTOR_FEEDBACK = ["nbgrader generate_feedback <name>", "nbgrader release_feedback <name>"]
FETCH_FEEDBACK = "nbgrader fetch_feedback <name>"
EXPORT = "nbgrader export"
ONE_MACHINE_FLAGS = {SUBMIT: "--student=<student>", COLLECT: "--ExchangeCollect.check_owner=False"}
ALL_COMMANDS = [*INSTRUCTOR_START, STUDENT_SETUP, FETCH, VALIDATE, SUBMIT, COLLECT, AUTOGRADE, GRADE,
                *INSTRUCTOR_FEEDBACK, FETCH_FEEDBACK, EXPORT]


def _fresh_copy(dest):
    """Copy the files a clone of this repository holds (tracked or new, not ignored); the
    release in assignments/ is the one built for this session (conftest.py), never the live
    folder, which nbgrader generate_assignment in this checkout may be rewriting."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=PROJECT_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = PROJECT_ROOT / rel
        if rel.startswith("assignments/"):
            continue
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for exercise in EXERCISES.values():
        (dest / "assignments" / exercise.name).mkdir(parents=True)
        shutil.copy2(exercise.release_notebook, dest / "assignments" / exercise.name / exercise.notebook)


class Term:
    def __init__(self, tmp):
        self.tmp = tmp
        self.course = tmp / "course"
        self.exchange = tmp / "exchange"
        self.base_env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "NBGRADER"))}
        self.base_env.update(PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", COURSE_SECRET="term-secret",
                             NBGRADER_EXCHANGE=str(self.exchange))
        self.logs = {}

    def run(self, template, cwd, home, student=None, key=None):
        """Run one documented command with bash in ``cwd`` with ``HOME=home``; returns stdout+stderr."""
        line = template
        if template in ONE_MACHINE_FLAGS:
            line += " " + ONE_MACHINE_FLAGS[template]
        line = (line.replace("<name>", NAME).replace("<duedate>", DUEDATE)
                .replace("<course>", shlex.quote(str(self.course))).replace("<student>", student or ""))
        proc = subprocess.run(["bash", "-c", line], cwd=cwd, env=dict(self.base_env, HOME=str(home)),
                              capture_output=True, text=True, timeout=600)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{line} (in {cwd})\n{output}"
        self.logs[key or (template, student)] = output
        return output

    def instructor(self, template):
        return self.run(template, self.course, self.tmp / "instructor")

    def student(self, template, who):
        return self.run(template, self.tmp / "students" / who, self.tmp / "students" / who, student=who)


def _gradebook_points(course, student):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course}/gradebook.db", "lm-reads-text") as gb:
        nb = gb.find_submission_notebook(NAME, NAME, student)
        return {g.name.removeprefix("test_"): g.score for g in nb.grades}


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """Run the whole term once; returns the ``Term`` with its logs and the scores in between."""
    t = Term(tmp_path_factory.mktemp("term"))
    _fresh_copy(t.course)
    t.exchange.mkdir()
    (t.tmp / "instructor").mkdir()
    for command in INSTRUCTOR_START:
        t.instructor(command)

    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    work = {"alice": filled_notebook(ATTENTION), "bob": filled_notebook(ATTENTION, {mistake.function: mistake.code})}
    for who, nb in work.items():
        (t.tmp / "students" / who).mkdir(parents=True)
        t.student(STUDENT_SETUP, who)
        t.student(FETCH, who)
        if who == "bob":  # validates the untouched release first
            t.run(VALIDATE, t.tmp / "students" / who, t.tmp / "students" / who, who, key="validate untouched")
        nbformat.write(nb, t.tmp / "students" / who / NAME / ATTENTION.notebook)
        t.student(VALIDATE, who)
        t.student(SUBMIT, who)

    t.instructor(COLLECT)
    t.instructor(AUTOGRADE)
    t.in_kernel = {who: _gradebook_points(t.course, who) for who in work}
    t.instructor(GRADE)
    for command in INSTRUCTOR_FEEDBACK:
        t.instructor(command)
    for who in work:
        t.student(FETCH_FEEDBACK, who)
    t.instructor(EXPORT)
    t.students = list(work)
    return t


def _csv(path, key):
    with open(path, newline="") as f:
        return {r[key]: r for r in csv.DictReader(f)}


def _term_pages():
    """The instructor's and the students' pages, where the term's commands are written."""
    return "\n".join((PROJECT_ROOT / "docs" / page).read_text(encoding="utf-8")
                     for page in ("instructor.md", "students.md"))


def test_the_docs_list_the_commands_this_test_runs():
    pages = _term_pages()
    for command in ALL_COMMANDS + list(ONE_MACHINE_FLAGS.values()):
        assert command in pages, command


@pytest.mark.slow
def test_release_made_by_nbgrader_equals_the_committed_release(term):
    made = nbformat.read(term.course / "assignments" / NAME / ATTENTION.notebook, as_version=4)
    committed = nbformat.read(ATTENTION.release_notebook, as_version=4)
    assert [c.source for c in made.cells] == [c.source for c in committed.cells]
    assert [c.metadata.get("nbgrader") for c in made.cells] == [c.metadata.get("nbgrader") for c in committed.cells]
    assert "Skipping existing assignment" not in term.logs[(INSTRUCTOR_START[1], None)]


@pytest.mark.slow
def test_validate_fails_on_the_untouched_release_and_passes_a_correct_notebook(term):
    untouched = term.logs["validate untouched"]
    assert "VALIDATION FAILED" in untouched and "NotImplementedError" in untouched
    assert "Success! Your notebook passes all the tests." in term.logs[(VALIDATE, "alice")]


@pytest.mark.slow
def test_in_kernel_autograde_agrees_and_is_quiet_on_honest_work(term):
    assert "has changed" not in term.logs[(AUTOGRADE, None)]
    for who in term.students:
        ours = json.loads((term.course / "graded" / NAME / who / "results.json").read_text())
        per_function = {}
        for t in ours["tests"]:
            fn = t["name"].split(":")[0]
            per_function[fn] = per_function.get(fn, 0.0) + t["score"]
        assert term.in_kernel[who] == pytest.approx(per_function), who
        assert _gradebook_points(term.course, who) == pytest.approx(per_function), who
    # bob forgot the sqrt(d_k) scaling: attention_row keeps 1 of its 5 points (its raw scores).
    assert _gradebook_points(term.course, "bob")["attention_row"] == 1.0


@pytest.mark.slow
def test_export_equals_the_autograders_class_table(term):
    ours = _csv(term.course / "graded" / "grades.csv", "student_id")
    exported = _csv(term.course / "gradebook.csv", "student_id")  # where nbgrader_config.py sends it
    assert {s: float(r["total"]) for s, r in ours.items()} == {"alice": ATTENTION_POINTS, "bob": ATTENTION_POINTS - 4.0}
    assert {s: float(r["score"]) for s, r in exported.items()} == {s: float(r["total"]) for s, r in ours.items()}
    assert {float(r["max_score"]) for r in exported.values()} == {ATTENTION_POINTS}
    assert not (term.course / "grades.csv").exists()
    for who, row in exported.items():  # collect kept timestamp.txt: the submission time is known
        submitted = (term.course / "submitted" / who / NAME / "timestamp.txt").read_text().strip()
        assert row["timestamp"] and submitted.startswith(row["timestamp"])
        assert row["duedate"].startswith("2026-01-15 17:00:00")


@pytest.mark.slow
def test_term_outputs_are_ignored_by_git(term):
    ignored = subprocess.run(["git", "check-ignore", "gradebook.csv", "gradebook.db", "graded/grades.csv",
                              "submitted/x", "autograded/x", "feedback/x"],
                             cwd=PROJECT_ROOT, capture_output=True, text=True).stdout.split()
    assert len(ignored) == 6, ignored


@pytest.mark.slow
def test_each_student_fetches_only_their_own_feedback(term):
    fetched = {}
    for who in term.students:
        files = sorted((term.tmp / "students" / who / NAME / "feedback").rglob("*.html"))
        assert [f.name for f in files] == [ATTENTION.notebook.replace(".ipynb", ".html")], who
        fetched[who] = files[0].read_text(encoding="utf-8")
        released = (term.course / "feedback" / who / NAME / "attention.html").read_text(encoding="utf-8")
        assert fetched[who] == released
    assert fetched["alice"] != fetched["bob"]
    assert f"Score: {ATTENTION_POINTS:.1f} / {ATTENTION_POINTS:.1f}" in fetched["alice"]
    assert f"Score: {ATTENTION_POINTS - 4:.1f} / {ATTENTION_POINTS:.1f}" in fetched["bob"]
    # The grader's report and per-check messages, not the hidden code.
    assert "autograder-report" in fetched["bob"]
    assert "forget to divide the scores by sqrt(d_k)" in fetched["bob"]
    assert "FAIL  0/1  attention_row: weights for" in fetched["bob"]
    assert "BEGIN HIDDEN TESTS" not in fetched["bob"] and "autograder.nbgrader_glue.in_kernel" not in fetched["bob"]


# In-process checks on a copy of the finished course (no nbgrader command line).

def _copy_course(term, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(term.course, course, ignore=shutil.ignore_patterns("tests", "docs", "benchmarks"))
    return gradebook.load_course(course)


def _result(student, points):
    """A NotebookResult giving each check of ``points``' functions that fraction of its points."""
    checks = [CheckResult(m.function, m.name, m.points * points.get(m.function, 1.0), m.points,
                          "" if points.get(m.function, 1.0) == 1.0 else "wrong")
              for m in check_metas(ATTENTION)]
    return NotebookResult(student, NAME, ATTENTION.notebook, checks)


def _job(course, student):
    from autograder.core.vocabulary import Job
    return Job(Path(course.root) / "submitted" / student / NAME / ATTENTION.notebook, student, ATTENTION)


@pytest.mark.slow
def test_a_manual_override_survives_regrading(term, tmp_path):
    from nbgrader.api import Gradebook
    course = _copy_course(term, tmp_path)
    with Gradebook(course.db_url, course.course_id) as gb:
        grade = gb.find_grade("test_attention_row", NAME, NAME, "bob")
        grade.manual_score = 4.0  # what formgrader writes
        gb.db.commit()
    result, totals = _result("bob", {"softmax": 0.0}), {}
    recorded, problems = gradebook.record(course, [(_job(course, "bob"), result)], totals)
    assert (recorded, problems) == (1, [])
    # softmax lost its 3 points; attention_row's manual 4 replaces the checks' 5: 19 - 3 - 1 = 15.
    assert (totals[("bob", NAME)].raw, totals[("bob", NAME)].score) == (15.0, 15.0)
    assert [o.describe() for o in totals[("bob", NAME)].overrides] == [
        "test_attention_row: manual 4 replaces automatic 5 (given before the automatic score changed from 1)"]
    assert result.notes[0].startswith("manual overrides: test_attention_row: manual 4 replaces automatic 5")
    feedback = nbformat.read(Path(course.root) / "autograded" / "bob" / NAME / ATTENTION.notebook, as_version=4)
    assert "manual overrides: test_attention_row" in feedback.cells[0].outputs[0].data["text/html"]
    with Gradebook(course.db_url, course.course_id) as gb:
        nb = gb.find_submission_notebook(NAME, NAME, "bob")
        grades = {g.name: g for g in nb.grades}
        assert grades["test_attention_row"].auto_score == 5.0 and grades["test_attention_row"].score == 4.0
        assert grades["test_attention_row"].needs_manual_grade
        assert grades["test_softmax"].score == 0.0 and not grades["test_softmax"].needs_manual_grade
        assert nb.score == ATTENTION_POINTS - 3.0 - 1.0


@pytest.mark.slow
def test_late_penalties_come_from_the_course_config(term, tmp_path):
    from nbgrader.api import Gradebook
    course = _copy_course(term, tmp_path)
    course.config.LateSubmissionPlugin.penalty_method = "zero"  # "no credit after the deadline"
    assert gradebook.record(course, [(_job(course, "alice"), _result("alice", {}))]) == (1, [])
    with Gradebook(course.db_url, course.course_id) as gb:
        nb = gb.find_submission_notebook(NAME, NAME, "alice")
        assert nb.score == nb.late_submission_penalty == ATTENTION_POINTS
        assert gb.find_submission(NAME, "alice").total_seconds_late > 0


@pytest.mark.slow
def test_an_unreadable_submission_is_recorded_with_a_report_only_feedback(term, tmp_path):
    course = _copy_course(term, tmp_path)
    job = _job(course, "bob")
    job.path.write_text("{ not a notebook", encoding="utf-8")
    result = _result("bob", {f: 0.0 for f in ATTENTION.functions})
    result.notes.append("attention.ipynb is not a valid notebook")
    assert gradebook.record(course, [(job, result)]) == (1, [])
    assert _gradebook_points(course.root, "bob") == {f: 0.0 for f in ATTENTION.functions}
    nb = nbformat.read(Path(course.root) / "autograded" / "bob" / NAME / ATTENTION.notebook, as_version=4)
    assert [c.source for c in nb.cells] == [feedback.REPORT_CELL_SOURCE]
    assert "not a valid notebook" in nb.cells[0].outputs[0].data["text/html"]


@pytest.mark.slow
def test_an_edited_test_cell_is_still_reported_and_restored(term, tmp_path, caplog, monkeypatch):
    # record_for_cli gives the gradebook's logger a stderr handler of its own and stops it
    # propagating, once per process; an earlier test that recorded (the demo does) leaves it so
    monkeypatch.setattr(gradebook.log, "propagate", True)
    course = _copy_course(term, tmp_path)
    job = _job(course, "alice")
    nb = nbformat.read(job.path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_softmax")
    cell.source = "pass  # the student edited a locked cell"
    nbformat.write(nb, job.path)
    with caplog.at_level("WARNING", logger="autograder.nbgrader_glue.gradebook"):
        out = feedback.feedback_notebook(course, _result("alice", {}), job.path)
    changed = [r.getMessage() for r in caplog.records if "has changed" in r.getMessage()]
    assert len(changed) == 1 and "test_softmax" in changed[0]
    shown = next(c for c in out.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_softmax")
    assert re.fullmatch(r"# The hidden checks of softmax run here.*", shown.source, flags=re.S)


@pytest.mark.slow
def test_validate_tells_the_truth_on_every_exercise(tmp_path):
    """With the shipped student config, nbgrader's Validator fails every untouched release
    and passes every reference notebook (attention is covered by the term above)."""
    from nbgrader.validator import Validator
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", str(PROJECT_ROOT / "student")).load_config()
    for exercise in EXERCISES.values():
        if exercise.name == NAME:
            continue
        for kind, nb in [("reference", filled_notebook(exercise)),
                         ("release", nbformat.read(exercise.release_notebook, as_version=4))]:
            path = tmp_path / kind / exercise.notebook
            path.parent.mkdir(exist_ok=True)
            nbformat.write(nb, path)
            failed = Validator(config=config).validate(str(path)).get("failed", [])
            if kind == "reference":
                assert failed == [], (exercise.name, [f["raw_error"][-300:] for f in failed])
            else:
                assert any("NotImplementedError" in f["raw_error"] for f in failed), exercise.name


@pytest.mark.slow
def test_cli_records_only_what_nbgrader_lays_out(term, tmp_path, capsys):
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.core.vocabulary import Job
    course = _copy_course(term, tmp_path)
    lone = Job(Path(course.root) / "submitted" / "alice" / NAME / ATTENTION.notebook, NAME, ATTENTION)
    result = _result(NAME, {})  # a lone notebook without --student: its file name as student id
    assert gradebook.record_for_cli("auto", str(lone.path), [lone], [result]) is False
    assert "pass --student" in capsys.readouterr().err
    with Gradebook(course.db_url, course.course_id) as gb, pytest.raises(MissingEntry):
        gb.find_student(NAME)
    # Outside a course directory nothing is recorded, and that is no error.
    outside = tmp_path / "elsewhere" / "submitted" / "alice" / NAME
    outside.mkdir(parents=True)
    job = Job(outside / ATTENTION.notebook, "alice", ATTENTION)
    assert gradebook.record_for_cli("auto", str(outside.parent.parent), [job], [_result("alice", {})]) is True
    assert gradebook.record_for_cli("none", str(lone.path), [lone], [result]) is True


# Resubmissions, manual scores, late work and `export --to`, on copies of the finished term
# (commands as docs/resubmissions.md gives them).

COLLECT_UPDATE = "nbgrader collect --update <name>"
EXPORT_TO = "nbgrader export --to <file>"


def _copy_term(term, tmp_path):
    """A copy of the whole finished term (course, exchange, homes) to run more commands in."""
    shutil.copytree(term.tmp, tmp_path / "term", symlinks=True)
    copy = Term(tmp_path / "term")
    copy.students = term.students
    return copy


def _set_manual_score(course_root, student, cell, points):
    """What a grader saving a score in formgrader writes (nbgrader's formgrader API handler)."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course_root}/gradebook.db", "lm-reads-text") as gb:
        grade = gb.find_grade(cell, NAME, NAME, student)
        grade.manual_score = points
        grade.needs_manual_grade = False
        gb.db.commit()


def _export_to(t, dest):
    line = EXPORT_TO.replace("<file>", shlex.quote(str(dest)))
    proc = subprocess.run(["bash", "-c", line], cwd=t.course, env=dict(t.base_env, HOME=str(t.tmp / "instructor")),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _csv(dest, "student_id")


def test_docs_give_the_resubmission_commands():
    text = (PROJECT_ROOT / "docs" / "resubmissions.md").read_text(encoding="utf-8")
    for command in (COLLECT_UPDATE, EXPORT_TO, GRADE):
        assert command in text, command


@pytest.mark.slow
def test_a_stale_manual_score_is_named_kept_and_shown_everywhere(term, tmp_path):
    t = _copy_term(term, tmp_path)
    before = (t.course / "gradebook.csv").read_text()
    # A grader gave bob 3 of attention_row's 5 points on his first notebook (checks gave 1) ...
    _set_manual_score(t.course, "bob", "test_attention_row", 3.0)
    # ... then bob hands in a correct notebook.
    nbformat.write(filled_notebook(ATTENTION), t.tmp / "students" / "bob" / NAME / ATTENTION.notebook)
    t.student(SUBMIT, "bob")
    stamp = t.course / "submitted" / "bob" / NAME / "timestamp.txt"
    first = stamp.read_text()
    skipped = t.instructor(COLLECT)
    assert "use --update" in skipped and stamp.read_text() == first  # nbgrader keeps the first notebook
    t.run(COLLECT_UPDATE + " --ExchangeCollect.check_owner=False", t.course, t.tmp / "instructor")
    assert stamp.read_text() != first
    graded = t.instructor(GRADE)
    named = [line for line in graded.splitlines() if "cell test_attention_row" in line]
    assert len(named) == 1 and named[0].startswith("gradebook: bob/attention: attention.ipynb, cell test_attention_row")
    assert "manual score 3 " in named[0] and "now 5, was 1" in named[0]
    assert not [line for line in graded.splitlines() if line.startswith("gradebook: alice/") and ", cell " in line]
    # nbgrader keeps the manual score: 19 - 5 + 3 = 17 (attention_row is worth 5 of 19 points).
    assert _gradebook_points(t.course, "bob")["attention_row"] == 3.0
    ours = _csv(t.course / "graded" / "grades.csv", "student_id")
    assert (ours["bob"]["total"], ours["bob"]["score"], ours["bob"]["late"]) == ("19", "17", "0")
    assert ours["bob"]["manual overrides"] == ("test_attention_row: manual 3 replaces automatic 5 "
                                               "(given before the automatic score changed from 1)")
    assert (ours["alice"]["score"], ours["alice"]["manual overrides"]) == ("19", "")
    exported = _export_to(t, tmp_path / "elsewhere.csv")
    assert {s: float(r["score"]) for s, r in exported.items()} == {s: float(r["score"]) for s, r in ours.items()}
    assert (t.course / "gradebook.csv").read_text() == before  # --to wins over the course's default file
    for command in INSTRUCTOR_FEEDBACK:
        t.instructor(command)
    t.student(FETCH_FEEDBACK, "bob")
    newest = sorted((t.tmp / "students" / "bob" / NAME / "feedback").iterdir())[-1]
    page = (newest / "attention.html").read_text(encoding="utf-8")
    assert "Score: 17.0 / 19.0" in page
    assert "manual overrides: test_attention_row: manual 3 replaces automatic 5" in page
    # Regrading again still names it: it stays flagged until a grader saves the score again.
    again = t.instructor(GRADE)
    assert "bob/attention: attention.ipynb, cell test_attention_row" in again
    _set_manual_score(t.course, "bob", "test_attention_row", 3.0)
    reviewed = t.instructor(GRADE)
    assert "cell test_attention_row" not in reviewed
    row = _csv(t.course / "graded" / "grades.csv", "student_id")["bob"]
    assert (row["score"], row["manual overrides"]) == ("17", "test_attention_row: manual 3 replaces automatic 5")


@pytest.mark.slow
def test_late_work_counts_the_same_in_grades_csv_export_and_feedback(term, tmp_path):
    t = _copy_term(term, tmp_path)
    with (t.course / "nbgrader_config.py").open("a") as f:
        f.write('\nc.LateSubmissionPlugin.penalty_method = "zero"  # no credit after the due date\n')
    t.instructor(GRADE)
    ours = _csv(t.course / "graded" / "grades.csv", "student_id")
    exported = _export_to(t, tmp_path / "late.csv")
    # Both submissions came after the 2026-01-15 due date: "zero" takes every point.
    assert {s: (r["total"], r["late"], r["score"]) for s, r in ours.items()} == {
        "alice": ("19", "19", "0"), "bob": ("15", "15", "0")}
    assert {s: (float(r["late_submission_penalty"]), float(r["score"])) for s, r in exported.items()} == {
        s: (float(r["late"]), float(r["score"])) for s, r in ours.items()}
    report = json.loads((t.course / "graded" / NAME / "bob" / "results.json").read_text())
    assert "late: the course's late-work policy takes 15 points: final score 0 of 19" in report["output"]



# A late resubmission that replaced an on-time one: named in the grade output,
# grades.csv and the student's report; nbgrader's own collect brings the on-time one back.

COLLECT_ON_TIME = "nbgrader collect --before-duedate --student=<student> <name>"


def test_docs_give_the_on_time_collect_command():
    assert COLLECT_ON_TIME in (PROJECT_ROOT / "docs" / "resubmissions.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_late_resubmission_is_named_and_the_on_time_one_can_be_graded_instead(term, tmp_path):
    from datetime import timedelta

    from nbgrader.api import Gradebook
    from nbgrader.utils import parse_utc
    t = _copy_term(term, tmp_path)
    with (t.course / "nbgrader_config.py").open("a") as f:
        f.write('\nc.LateSubmissionPlugin.penalty_method = "zero"  # no credit after the due date\n')
    stamp = t.course / "submitted" / "alice" / NAME / "timestamp.txt"
    first = parse_utc(stamp.read_text().strip())
    due = first + timedelta(seconds=1)  # alice's first submission was on time, bob's was not
    with Gradebook(f"sqlite:///{t.course}/gradebook.db", "lm-reads-text") as gb:
        gb.update_or_create_assignment(NAME, duedate=due)
    # alice tidies her notebook after the deadline and hands it in again
    nb = filled_notebook(ATTENTION)
    nb.cells.append(nbformat.v4.new_markdown_cell("Tidied after the deadline."))
    nbformat.write(nb, t.tmp / "students" / "alice" / NAME / ATTENTION.notebook)
    t.student(SUBMIT, "alice")
    t.run(COLLECT_UPDATE + " --ExchangeCollect.check_owner=False", t.course, t.tmp / "instructor")
    late = parse_utc(stamp.read_text().strip())
    assert late > due
    graded = t.instructor(GRADE)
    when = lambda x: x.strftime("%Y-%m-%d %H:%M:%S UTC")  # noqa: E731
    said = [line for line in graded.splitlines() if line.startswith("late resubmission: ")]
    # "zero": the late notebook's 19 points become 0; the on-time one had 19 of 19 (graded in the term)
    assert said == [f"late resubmission: alice/attention: submitted {when(late)}, after the due date {when(due)}, "
                    f"replacing the on-time submission of {when(first)} (it scored {ATTENTION_POINTS:g} of "
                    f"{ATTENTION_POINTS:g} when graded then); the late one scores {ATTENTION_POINTS:g} of "
                    f"{ATTENTION_POINTS:g}, 0 after the late penalty of {ATTENTION_POINTS:g}. To grade the on-time "
                    "one instead: nbgrader collect --before-duedate --student=alice attention, then python -m "
                    "autograder grade submitted/alice/attention/ (docs/resubmissions.md)"]
    row = _csv(t.course / "graded" / "grades.csv", "student_id")
    assert (row["alice"]["score"], row["alice"]["late"]) == ("0", f"{ATTENTION_POINTS:g}")
    assert row["alice"]["late resubmission"] == (
        f"this notebook was submitted {when(late)}, after the due date {when(due)}; it replaced the submission "
        f"of {when(first)}, which was on time (it scored {ATTENTION_POINTS:g} of {ATTENTION_POINTS:g} when "
        "graded then)")
    assert row["bob"]["late resubmission"] == ""  # late, but with no on-time copy to replace
    report = json.loads((t.course / "graded" / NAME / "alice" / "results.json").read_text())
    assert report["output"].startswith("late resubmission: this notebook was submitted")
    feedback = nbformat.read(t.course / "autograded" / "alice" / NAME / ATTENTION.notebook, as_version=4)
    assert "late resubmission: this notebook was submitted" in feedback.cells[0].outputs[0].data["text/html"]
    # the headline of both reports is the grade of record, the checks' own points below it
    page = (t.course / "graded" / NAME / "alice" / "report.html").read_text(encoding="utf-8")
    for html_text in (page, feedback.cells[0].outputs[0].data["text/html"]):
        assert f"<p class='score'>Grade of record: 0 of {ATTENTION_POINTS:g} points</p>" in html_text
        assert f"The checks gave {ATTENTION_POINTS:g} of {ATTENTION_POINTS:g} points" in html_text

    # The instructor's choice: the on-time submission counts. nbgrader collects it back ...
    t.run(COLLECT_ON_TIME + " --ExchangeCollect.check_owner=False", t.course, t.tmp / "instructor",
          student="alice")
    assert parse_utc(stamp.read_text().strip()) == first
    again = t.instructor(GRADE + "alice/attention/")
    assert "late resubmission" not in again
    assert f"changed: alice/attention: score 0 -> {ATTENTION_POINTS:g}" in again
    row = _csv(t.course / "graded" / "grades.csv", "student_id")
    assert (row["alice"]["score"], row["alice"]["late"], row["alice"]["late resubmission"]) == (
        f"{ATTENTION_POINTS:g}", "0", "")
    assert (row["bob"]["score"], row["bob"]["late"]) == ("0", f"{ATTENTION_POINTS - 4:g}")
