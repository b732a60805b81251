"""Regrade what you name, keep the rest: grading one notebook after a class
run updates that row of grades.csv and leaves every other row, and the class report's data of
everyone else, as they were; the command says what changed."""
import csv
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.grading import regrade
from autograder.reports import class_report, csvsafe

ATTENTION = EXERCISES["attention"]
POINTS = sum(points_by_function(ATTENTION).values())


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {(r["student_id"], r["assignment_id"]): r for r in csv.DictReader(f)}


def _write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csvsafe.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow(r)


HEADER = ["student_id", "assignment_id", "attention.ipynb", "total", "max_score", "late", "score",
          "manual overrides", "late resubmission", "problems", "confinement"]


def test_merge_keeps_the_rows_not_graded_and_names_the_change(tmp_path):
    path = tmp_path / "grades.csv"
    _write_csv(path, HEADER, [["=evil", "attention", 3, 3, 19, 0, 3, "", "", "", "bubblewrap"],
                              ["ann", "attention", 19, 19, 19, 0, 19, "", "", "", "bubblewrap"],
                              ["ben", "attention", 0, 0, 19, 0, 0, "", "", "", "bubblewrap"]])
    previous = regrade.read_table(path)
    _write_csv(path, HEADER, [["ann", "attention", 15, 15, 19, 0, 15, "", "", "", "bubblewrap"]])
    changes, kept = regrade.merge(previous, path)
    after = _rows(path)
    assert sorted(after) == [("'=evil", "attention"), ("ann", "attention"), ("ben", "attention")]
    assert after[("'=evil", "attention")] == previous.rows[("'=evil", "attention")]  # not escaped twice
    assert after[("ben", "attention")] == previous.rows[("ben", "attention")]
    assert after[("ann", "attention")]["score"] == "15"
    assert kept == [("'=evil", "attention"), ("ben", "attention")]
    assert [c.describe() for c in changes] == [
        "ann/attention: attention.ipynb 19 -> 15; total 19 -> 15; score 19 -> 15"]
    lines = regrade.summary_lines(changes, kept)
    assert lines == ["changed: ann/attention: attention.ipynb 19 -> 15; total 19 -> 15; score 19 -> 15",
                     "2 row(s) of the class table kept as they were (not in this run)"]


def test_merge_adds_a_notebook_column_and_leaves_a_first_table_alone(tmp_path):
    path = tmp_path / "grades.csv"
    _write_csv(path, HEADER, [["ann", "attention", 19, 19, 19, 0, 19, "", "", "", "bubblewrap"]])
    assert regrade.merge(None, path)[1] == []  # the first run: nothing to keep
    previous = regrade.read_table(path)
    header = ["student_id", "assignment_id", "tokens.ipynb", *HEADER[3:]]
    _write_csv(path, header, [["ann", "tokens", 7, 7, 10, 0, 7, "", "", "", "bubblewrap"]])
    changes, kept = regrade.merge(previous, path)
    after = _rows(path)
    assert list(next(iter(after.values()))) == ["student_id", "assignment_id", "attention.ipynb",
                                                 "tokens.ipynb", *HEADER[3:]]
    assert (after[("ann", "attention")]["attention.ipynb"], after[("ann", "attention")]["tokens.ipynb"]) == ("19", "")
    assert after[("ann", "tokens")]["tokens.ipynb"] == "7" and kept == [("ann", "attention")]
    assert regrade.summary_lines(changes, kept)[0].startswith("added: ann/tokens: tokens.ipynb 7")


def _grade(args):
    env = dict(os.environ, COURSE_SECRET="regrade-secret")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", *map(str, args), "--jobs", "2", "--quiet"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _report_data(out):
    entries, _ = class_report.load(out)
    return {e.student: (e.score, e.max_score, [(t.name, t.score) for t in e.tests], sorted(e.problems))
            for e in entries}


@pytest.mark.slow
def test_regrading_one_notebook_changes_only_its_row(tmp_path):
    root, out = tmp_path / "submitted", tmp_path / "graded"
    for student, nb in [("ann", filled_notebook(ATTENTION)), ("ben", filled_notebook(ATTENTION)),
                        ("cid", filled_notebook(ATTENTION, stubs=ATTENTION.functions))]:
        (root / student / "attention").mkdir(parents=True)
        nbformat.write(nb, root / student / "attention" / ATTENTION.notebook)
    _grade([root, "--out", out])
    before, report_before = _rows(out / "grades.csv"), _report_data(out)
    checks_before = (out / "class_checks.csv").read_text()
    assert {k[0]: r["total"] for k, r in before.items()} == {"ann": f"{POINTS:g}", "ben": f"{POINTS:g}", "cid": "0"}

    # ben hands in again with the sqrt(d_k) scaling forgotten: attention_row keeps 1 of its 5 points
    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    nbformat.write(filled_notebook(ATTENTION, {mistake.function: mistake.code}),
                   root / "ben" / "attention" / ATTENTION.notebook)
    said = _grade([root / "ben" / "attention", "--out", out])
    after, report_after = _rows(out / "grades.csv"), _report_data(out)
    assert sorted(after) == sorted(before)
    for key in before:
        if key[0] != "ben":
            assert after[key] == before[key], key
            assert report_after[key[0]] == report_before[key[0]], key
    assert after[("ben", "attention")]["total"] == f"{POINTS - 4:g}"
    assert report_after["ben"][0] == POINTS - 4
    assert (f"changed: ben/attention: attention.ipynb {POINTS:g} -> {POINTS - 4:g}; total {POINTS:g} -> "
            f"{POINTS - 4:g}; score {POINTS:g} -> {POINTS - 4:g}") in said
    assert "2 row(s) of the class table kept as they were" in said
    # the class report still counts three students: the pass rate of the check ben lost changed
    assert (out / "class_checks.csv").read_text() != checks_before
    assert "ann" in (out / "class.html").read_text() and "cid" in (out / "class.html").read_text()
