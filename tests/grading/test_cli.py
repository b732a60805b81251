"""Does `python -m autograder grade` find submissions in every layout and always write results?"""
import csv
import json
import subprocess
import sys

import nbformat
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover

ATTENTION = EXERCISES["attention"]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())


def _grade(args, env_secret="cli-secret"):
    import os
    env = dict(os.environ, COURSE_SECRET=env_secret)
    return subprocess.run([sys.executable, "-m", "autograder", "grade", *map(str, args)], cwd=PROJECT_ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


def _submitted_tree(root):
    """nbgrader's submitted/ tree at ``root``: a good, a stubbed and a broken submission."""
    for student, nb in [("ann", filled_notebook(ATTENTION)),
                        ("ben", filled_notebook(ATTENTION, stubs=ATTENTION.functions))]:
        (root / student / "attention").mkdir(parents=True)
        nbformat.write(nb, root / student / "attention" / "attention.ipynb")
    (root / "cat" / "attention").mkdir(parents=True)
    (root / "cat" / "attention" / "attention.ipynb").write_text("not a notebook at all")
    return root


@pytest.fixture
def submitted(tmp_path):
    return _submitted_tree(tmp_path / "submitted")


@pytest.fixture(scope="module")
def graded_tree(tmp_path_factory):
    """The tree graded once by the command line: ``(completed process, output folder)``."""
    tmp = tmp_path_factory.mktemp("cli")
    out = tmp / "graded"
    return _grade([_submitted_tree(tmp / "submitted"), "--out", out, "--jobs", "2"]), out


@pytest.mark.slow
def test_whole_tree_is_graded_and_every_student_gets_results(graded_tree):
    proc, out = graded_tree
    assert proc.returncode == 0, proc.stderr
    scores = {s: json.loads((out / "attention" / s / "results.json").read_text())["score"]
              for s in ("ann", "ben", "cat")}
    assert scores == {"ann": ATTENTION_POINTS, "ben": 0, "cat": 0}
    cat = json.loads((out / "attention" / "cat" / "results.json").read_text())
    assert "not a valid notebook" in cat["output"] and cat["max_score"] == ATTENTION_POINTS
    with open(out / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert rows["ann"]["attention.ipynb"] == rows["ann"]["max_score"] == f"{ATTENTION_POINTS:g}"
    assert rows["cat"]["problems"] == "invalid notebook"
    assert 'attention_row: weights for "the cat"' in proc.stdout  # the printed table
    # an HTML report and the plain feedback beside every results.json, the broken notebook's included
    assert all((out / "attention" / s / name).is_file() for s in ("ann", "ben", "cat")
               for name in ("report.html", "feedback.txt"))
    assert "not a valid notebook" in (out / "attention" / "cat" / "report.html").read_text()
    # and the class report for staff: ann passes every check, cat (broken) none; ben handed in the
    # untouched stubs: not attempted, so in no pass rate (docs/class-report.md)
    with open(out / "class_checks.csv", newline="") as f:
        checks = list(csv.DictReader(f))
    assert checks
    assert all((c["submitted"], c["passed"]) == ("2", "1") for c in checks)
    assert sum(float(c["points"]) for c in checks) == 19
    page = (out / "class.html").read_text(encoding="utf-8")
    assert "href='attention/cat/report.html'" in page and "invalid notebook" in page
    assert "1 not attempted (every function still the released stub)" in page


@pytest.mark.slow
def test_results_json_has_the_gradescope_fields(graded_tree):
    _, out = graded_tree
    data = json.loads((out / "attention" / "ann" / "results.json").read_text())
    assert {"score", "max_score", "tests", "output", "visibility"} <= set(data)
    for t in data["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= set(t)
        assert t["name"].split(":")[0] in ATTENTION.functions
    assert sum(t["max_score"] for t in data["tests"]) == data["max_score"] == ATTENTION_POINTS


def test_lone_notebook_takes_student_from_flag_or_file_name(submitted, tmp_path):
    lone = tmp_path / "homework.ipynb"
    lone.write_bytes((submitted / "ann" / "attention" / "attention.ipynb").read_bytes())
    jobs = discover(lone)
    assert jobs[0].student_id == "homework" and jobs[0].exercise is ATTENTION  # told by cell ids
    assert discover(lone, student="zoe")[0].student_id == "zoe"
    out = tmp_path / "graded"
    proc = _grade([lone, "--student", "zoe", "--out", out, "--gradebook", "none"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "attention" / "zoe" / "results.json").read_text())["score"] == ATTENTION_POINTS
    # the same feedback files as a class run writes for each notebook
    assert sorted(p.name for p in (out / "attention" / "zoe").iterdir()) == ["feedback.txt", "report.html",
                                                                           "results.json"]
    feedback = (out / "attention" / "zoe" / "feedback.txt").read_text(encoding="utf-8")
    assert 'attention_row: weights for "the cat"' in feedback


@pytest.mark.slow
def test_unknown_notebook_is_reported_not_fatal(tmp_path):
    nb = tmp_path / "scratch.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), nb)
    out = tmp_path / "graded"
    proc = _grade([nb, "--out", out])
    assert proc.returncode == 0
    data = json.loads(next(out.glob("*/scratch/results.json")).read_text())
    assert data["score"] == 0 and "cannot tell which exercise" in data["output"]


def test_missing_path_is_a_usage_error(tmp_path):
    proc = _grade([tmp_path / "nope"])
    assert proc.returncode == 2 and "does not exist" in proc.stderr


@pytest.mark.slow
def test_a_submission_that_kills_its_worker_costs_only_its_own_points(submitted, tmp_path):
    """Without Landlock a child can signal its parent; the rest of the class is still graded."""
    from autograder.grading.workers import grade_all
    from autograder.sandbox.limits import Limits
    killer = filled_notebook(ATTENTION, {"causal_mask": "import os\n_ = os.kill(os.getppid(), 9)\n"})
    (submitted / "kim" / "attention").mkdir(parents=True)
    nbformat.write(killer, submitted / "kim" / "attention" / "attention.ipynb")
    jobs = [j for j in discover(submitted) if j.student_id in ("ann", "ben", "kim")]
    results, failures, _ = grade_all(jobs, b"s", Limits(confine=False), workers=2)
    scores = {r.student_id: r.score for r in results}
    assert scores == {"ann": ATTENTION_POINTS, "ben": 0, "kim": 0}
    kim = next(r for r in results if r.student_id == "kim")
    assert "killed the grader's worker process" in kim.notes[0] and failures == 0
