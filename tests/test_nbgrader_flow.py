"""A whole term on a temporary course, with nbgrader's own command line.

generate_assignment -> release_assignment -> (students) fetch_assignment, submit ->
collect -> python -m autograder grade -> nbgrader autograde -> generate_feedback -> export.
Checks that nbgrader's release equals the committed one, that ``nbgrader autograde`` (the
hidden test cells) and ``python -m autograder grade`` give the same points per function,
and that feedback and the exported grades exist.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.exercises import EXERCISES, PROJECT_ROOT

ATTENTION = EXERCISES["attention"]
BIN = Path(sys.executable).parent


def _run(args, cwd, env):
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(map(str, args))}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """Run the term once; return its folders and the two gradebooks' scores."""
    tmp = tmp_path_factory.mktemp("term")
    course, exchange = tmp / "course", tmp / "exchange"
    shutil.copytree(PROJECT_ROOT / "source" / "attention", course / "source" / "attention")
    exchange.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'term-test'\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        "c.ExchangeCollect.check_owner = False\n"
        "c.Execute.timeout = 60\n"
        "c.OverwriteCells.add_missing_cells = True\n")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", COURSE_SECRET="term-secret",
               HOME=str(tmp), JUPYTER_DATA_DIR=str(tmp / "jupyter-data"))
    nbgrader = [str(BIN / "nbgrader")]
    _run(nbgrader + ["generate_assignment", "attention"], course, env)
    _run(nbgrader + ["release_assignment", "attention"], course, env)

    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    hand_ins = {"alice": filled_notebook(ATTENTION),
                "bob": filled_notebook(ATTENTION, {mistake.function: mistake.code}),
                "carol": filled_notebook(ATTENTION, stubs=ATTENTION.functions)}
    for student, nb in hand_ins.items():
        home = tmp / "students" / student
        home.mkdir(parents=True)
        (home / "nbgrader_config.py").write_text(
            "c = get_config()\nc.CourseDirectory.course_id = 'term-test'\n"
            f"c.Exchange.root = {str(exchange)!r}\n")
        _run(nbgrader + ["fetch_assignment", "attention"], home, env)
        nbformat.write(nb, home / "attention" / "attention.ipynb")
        _run(nbgrader + ["submit", "attention", f"--student={student}"], home, env)

    _run(nbgrader + ["collect", "attention"], course, env)
    graded = tmp / "graded"
    _run([sys.executable, "-m", "autograder", "grade", str(course / "submitted"), "--out", str(graded),
          "--quiet"], PROJECT_ROOT, env)
    _run(nbgrader + ["autograde", "attention"], course, env)
    _run(nbgrader + ["generate_feedback", "attention"], course, env)
    _run(nbgrader + ["export"], course, env)
    return {"course": course, "graded": graded, "students": list(hand_ins)}


def test_release_made_by_nbgrader_equals_the_committed_release(term):
    made = nbformat.read(term["course"] / "release" / "attention" / "attention.ipynb", as_version=4)
    committed = nbformat.read(ATTENTION.release_notebook, as_version=4)
    assert [c.source for c in made.cells] == [c.source for c in committed.cells]
    assert [c.metadata.get("nbgrader") for c in made.cells] == [c.metadata.get("nbgrader") for c in committed.cells]


def _nbgrader_points(course, student):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course}/gradebook.db", "term-test") as gb:
        nb = gb.find_submission_notebook("attention", "attention", student)
        return {g.name.removeprefix("test_"): g.score for g in nb.grades if g.name.startswith("test_")}


def _our_points(graded, student):
    data = json.loads((graded / "attention" / student / "results.json").read_text())
    points = {}
    for t in data["tests"]:
        fn = t["name"].split(":")[0]
        points[fn] = points.get(fn, 0.0) + t["score"]
    return points, data


def test_nbgrader_autograde_agrees_with_the_autograder(term):
    expected_totals = {"alice": 19.0, "carol": 0.0}
    for student in term["students"]:
        ours, data = _our_points(term["graded"], student)
        theirs = _nbgrader_points(term["course"], student)
        assert ours == pytest.approx(theirs), student
        if student in expected_totals:
            assert data["score"] == expected_totals[student]
    # bob forgot the sqrt(d_k) scaling: attention_row loses 4 of its 5 points in both.
    assert _our_points(term["graded"], "bob")[0]["attention_row"] == 1.0


def test_feedback_and_export_exist(term):
    feedback = term["course"] / "feedback" / "alice" / "attention" / "attention.html"
    assert feedback.is_file()
    with open(term["course"] / "grades.csv", newline="") as f:
        rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert rows == {"alice": 19.0, "bob": 15.0, "carol": 0.0}


def test_results_and_class_table_are_written(term):
    with open(term["graded"] / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert {s: float(r["total"]) for s, r in rows.items()} == {"alice": 19.0, "bob": 15.0, "carol": 0.0}
    assert all(r["max_score"] == "19" for r in rows.values())
