"""Every CSV the grader writes opens in a spreadsheet as text, never as a formula (OWASP's
CSV-injection advice: prefix cells starting with = + - @ tab or CR with a quote)."""
import csv

import pytest

from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.reports import csvsafe
from autograder.reports.console import write_grades_csv

HOSTILE_ID = '=HYPERLINK("http://x","y")'


def test_cells_that_start_a_formula_are_quoted_as_text():
    for text in ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", HOSTILE_ID, "-", "+"]:
        assert csvsafe.cell(text) == "'" + text, text
    for text in ["alice", "s1", "1=1", " =1", "", "a,b", "'quoted"]:
        assert csvsafe.cell(text) == text, text


def test_numbers_stay_numbers():
    assert [csvsafe.cell(v) for v in (-3, -2.5, 0.1, 1e-05, 3.0, 7)] == ["-3", "-2.5", "0.1", "1e-05", "3", "7"]
    assert [csvsafe.cell(v) for v in ("-3", "-2.5", "+4", "1e-05", "-.5")] == ["-3", "-2.5", "+4", "1e-05", "-.5"]
    assert csvsafe.cell(None) == "" and csvsafe.cell(True) == "True"
    assert csvsafe.cell(float("nan")) == "nan" and csvsafe.cell(float("-inf")) == "'-inf"


def test_writers_escape_every_cell_and_the_header(tmp_path):
    path = tmp_path / "t.csv"
    with path.open("w", newline="") as f:
        csvsafe.writer(f).writerow(["=a", -1, "b,c"])
        w = csvsafe.DictWriter(f, ["@h", "n"])
        w.writeheader()
        w.writerow({"@h": "+x", "n": -2.0})
    with path.open(newline="") as f:
        assert list(csv.reader(f)) == [["'=a", "-1", "b,c"], ["'@h", "n"], ["'+x", "-2"]]


def test_grades_csv_writes_a_hostile_student_id_as_text(tmp_path):
    checks = [CheckResult("f", "f: a check", 1.0, 2.0, "")]
    result = NotebookResult(HOSTILE_ID, "-assignment", "@notebook.ipynb", checks, problems=set())
    path = write_grades_csv([result], tmp_path / "grades.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, row = rows
    assert header[2] == "'@notebook.ipynb"
    cells = dict(zip(header, row, strict=False))
    assert cells["student_id"] == "'" + HOSTILE_ID and cells["assignment_id"] == "'-assignment"
    assert cells["total"] == "1" and cells["max_score"] == "2"
    assert not any(c.startswith(csvsafe.FORMULA_START) for c in row)


@pytest.mark.slow
def test_nbgrader_export_is_escaped(tmp_path, monkeypatch):
    """The course's ``nbgrader export`` (nbgrader_config.py selects the plugin) escapes too."""
    import os
    import sys
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    from nbgrader.api import Gradebook

    from autograder.nbgrader_glue.export import SafeCsvExportPlugin
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db) as gb:
        gb.add_assignment("ps1")
        gb.add_student(HOSTILE_ID, first_name="-Ann", last_name="Lee, Jr", email="@x")
        plugin = SafeCsvExportPlugin(to=str(tmp_path / "out.csv"))
        plugin.export(gb)
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1
    assert rows[0]["student_id"] == "'" + HOSTILE_ID and rows[0]["first_name"] == "'-Ann"
    assert rows[0]["last_name"] == "Lee, Jr" and rows[0]["email"] == "'@x" and rows[0]["score"] == "0.0"
