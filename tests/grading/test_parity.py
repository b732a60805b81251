"""Parity: ``python -m autograder grade`` gives every honest notebook the points ``nbgrader
autograde`` gives it, function by function.

The corpus (``autograder/demo/corpus.py``: each exercise's ``[[parity]]`` entries in its
``exercise.toml``) holds hand-ins of every exercise, each in
a couple of the styles Restart & Run All takes in its stride: definitions in top-level loops
and ``if``/``try``/``__main__`` blocks, magics and shell lines, docstrings with ``?``,
%-formatting continuation lines, scratch redefinitions after a hidden-test cell, a solution
cell retyped as markdown, a deleted hidden-test cell, a failing scratch cell, 55 MB of saved
output, copies in the submission folder; some carry a catalogued mistake, several of them in
a helper another function calls. nbgrader gets the notebook holding the work under its
released name (what it grades); the autograder gets the folder as the student left it.

nbgrader runs two processes at once here to keep the test near two minutes on two cores
(``benchmarks/vs_nbgrader.py`` times it serially).
"""
import csv
import json
import os
import subprocess
import sys

import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.corpus import STYLES, corpus, nbgrader_autograde, write_submissions

SECRET = b"parity-secret"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("parity")
    entries = corpus()
    write_submissions(tmp / "for_nbgrader", entries, nbgrader=True)
    write_submissions(tmp / "submitted", entries)
    theirs, _ = nbgrader_autograde(tmp / "nbgrader", tmp / "for_nbgrader", SECRET, workers=2)
    out = tmp / "graded"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp / "submitted"), "--out", str(out),
                           "--jobs", "2", "--quiet"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          env=dict(os.environ, COURSE_SECRET=SECRET.decode()), timeout=900)
    assert proc.returncode == 0, proc.stderr
    ours = {}
    for entry in entries:
        data = json.loads((out / entry.exercise / entry.student / "results.json").read_text())
        points = {}
        for t in data["tests"]:
            fn = t["name"].split(":")[0]
            points[fn] = points.get(fn, 0.0) + t["score"]
        ours[(entry.student, entry.exercise)] = (points, data)
    with open(out / "grades.csv", newline="") as f:
        rows = {(r["student_id"], r["assignment_id"]): r for r in csv.DictReader(f)}
    return entries, theirs, ours, rows


def test_the_corpus_covers_every_style_several_times():
    entries = corpus()
    # every exercise's declared entries, and nothing else but the one extra tokens hand-in
    assert [(e.exercise, e.styles, e.layout) for e in entries if e.student != "tok_loop"] == [
        (name, entry["styles"], entry["layout"]) for name, ex in EXERCISES.items() for entry in ex.parity]
    missing = [name for name, ex in EXERCISES.items() if not ex.parity]
    assert not missing, f"exercises without [[parity]] entries in exercise.toml: {missing}"
    for style in STYLES:  # 55 MB of output once is enough
        assert sum(style in e.styles for e in entries) >= (1 if style == "big_outputs" else 2), style
    assert {e.layout for e in entries} == {"plain", "copy", "jupyter_copy", "renamed"}


@pytest.mark.slow
def test_same_points_per_function_as_nbgrader_autograde(graded):
    entries, theirs, ours, _ = graded
    differ = {}
    for entry in entries:
        key = (entry.student, entry.exercise)
        if ours[key][0] != pytest.approx(theirs[key]):
            differ[key] = (entry.styles, entry.mistake, ours[key][0], theirs[key])
    assert not differ, differ


@pytest.mark.slow
def test_honest_notebooks_get_full_marks_and_mistakes_cost_only_their_function(graded):
    entries, theirs, ours, _ = graded
    for entry in entries:
        points, data = ours[(entry.student, entry.exercise)]
        if entry.mistake is None:
            assert data["score"] == data["max_score"], (entry.student, entry.styles, data["output"])
        else:
            lost = {t["name"].split(":")[0] for t in data["tests"] if t["score"] < t["max_score"]}
            assert lost and all(fn in EXERCISES[entry.exercise].functions for fn in lost)
    # A helper's bug is charged once: the functions calling the wrong helper keep their points.
    tokens = ours[("tok2", "tokens")][1]
    assert {t["name"].split(":")[0] for t in tokens["tests"] if t["score"] < t["max_score"]} == {"merge_pair"}
    excused = [t["output"] for t in tokens["tests"] if t["name"].startswith("learn_bpe") and "merge_pair" in t["output"]]
    assert excused and all(o.startswith("passed on account of merge_pair") for o in excused)


@pytest.mark.slow
def test_copies_in_the_folder_grade_the_work_and_name_the_others(graded):
    entries, _, ours, rows = graded
    for entry in entries:
        data = ours[(entry.student, entry.exercise)][1]
        problems = rows[(entry.student, entry.exercise)]["problems"]
        release = EXERCISES[entry.exercise].notebook
        if entry.layout in ("copy", "jupyter_copy"):
            assert f"not counted: {release}" in data["output"], data["output"]
            assert release in problems
        else:
            assert "several notebooks" not in data["output"] and "several notebooks" not in problems


@pytest.mark.slow
def test_feedback_names_cells_as_jupyter_shows_them(graded):
    entries, _, ours, _ = graded
    for entry in entries:
        output = ours[(entry.student, entry.exercise)][1]["output"]
        if "retyped_cell" in entry.styles:
            last = EXERCISES[entry.exercise].functions[-1]
            assert f"({last}) was a code cell in the release and is a markdown cell" in output
        if "scratch_redefinition" in entry.styles:
            assert "is defined again after its hidden-test cell" in output
        if "failing_scratch_cell" in entry.styles:
            assert "NameError: name 'undefined_helper' is not defined" in output
