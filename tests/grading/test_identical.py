"""Notebooks identical across students (the same code after intake, or a hard link to another
file) are flagged in grades.csv's problems column and in identical.csv, never graded down."""
import csv
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import Problem
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes

ATTENTION = EXERCISES["attention"]


@pytest.mark.slow
def test_identical_code_and_hard_links_are_flagged_not_graded_down(tmp_path):
    root = tmp_path / "submitted"
    for s in ("ann", "dan", "eve", "fay", "gus", "hal"):
        (root / s / "attention").mkdir(parents=True)
    name = "attention.ipynb"
    nbformat.write(filled_notebook(ATTENTION), root / "ann" / "attention" / name)
    # dan: ann's code with saved outputs, other metadata and blank lines around cells
    copy = filled_notebook(ATTENTION)
    for cell in copy.cells:
        if cell.cell_type == "code":
            cell.source = "\n" + cell.source + "\n\n"
            cell.outputs = [nbformat.v4.new_output("stream", text="printed by dan\n")]
    copy.metadata["author"] = "dan"
    nbformat.write(copy, root / "dan" / "attention" / name)
    os.link(root / "ann" / "attention" / name, root / "eve" / "attention" / name)  # eve: a hard link
    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    nbformat.write(filled_notebook(ATTENTION, {mistake.function: mistake.code}), root / "fay" / "attention" / name)
    # gus and hal both hand in the release untouched: the same code, but every student's start
    stub = filled_notebook(ATTENTION, stubs=ATTENTION.functions)
    nbformat.write(stub, root / "gus" / "attention" / name)
    nbformat.write(stub, root / "hal" / "attention" / name)
    out = tmp_path / "graded"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(root), "--out", str(out), "--jobs", "2",
                           "--quiet"], cwd=PROJECT_ROOT, env=dict(os.environ, COURSE_SECRET="identical"),
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    with open(out / "grades.csv", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    flagged = {s for s, r in rows.items() if Problem.IDENTICAL.value in r["problems"]}
    assert flagged == {"ann", "dan", "eve"}
    assert {s: rows[s]["total"] for s in ("ann", "dan", "eve")} == {"ann": "19", "dan": "19", "eve": "19"}
    assert float(rows["fay"]["total"]) < 19 and rows["fay"]["problems"] == ""
    with open(out / "identical.csv", newline="") as f:
        notes = list(csv.DictReader(f))
    same = {(n["student_id"], n["same_code_as"]) for n in notes if n["why"].startswith("the same code")}
    assert same == {("ann", "dan; eve"), ("dan", "ann; eve"), ("eve", "ann; dan")}
    linked = {n["student_id"] for n in notes if n["why"].startswith("hard link")}
    assert linked == {"ann", "eve"}  # both names of the one file
    assert len({n["code_digest"] for n in notes}) == 1
    assert "identical.csv" in proc.stdout
