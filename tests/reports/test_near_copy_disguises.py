"""Copies disguised to read differently while doing the same (padded with statements that do
nothing, locals renamed, independent statements swapped, dead code added, all at once) are listed
as near-copies of their original; independently written correct solutions of every exercise are
not. The hand-ins are notebooks: graded by the class run (quick) and by the README's command
``python -m autograder grade`` (slow), the near-copies read from the ``near_copies.json`` it wrote.
"""
import json
import os
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, Job, NotebookResult
from autograder.demo.disguises import KINDS, disguised
from autograder.demo.fill import filled_notebook
from autograder.demo.independent import styles
from autograder.grading.outputs import write_class_outputs
from autograder.reports import near_copies

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _class(exercise, seed):
    """``({student: {function: cell}}, {copy student: original student})``: every independent style
    of ``exercise`` under its own name, and one copy disguised each way, of the styles in turn."""
    by_style = styles(exercise)
    order = sorted(by_style)
    rng = random.Random(seed)
    hand_ins, copied = dict(by_style), {}
    for k, kind in enumerate(KINDS):
        original = order[k % len(order)]
        student = kind.replace(" ", "_") + "-copy"
        hand_ins[student] = disguised(by_style[original], kind, rng)
        copied[student] = original
    return hand_ins, copied


def _expected(copied: dict) -> set:
    """The pairs to list: each copy with its original, and copies of one original with each other."""
    groups: dict = {}
    for copy, original in copied.items():
        groups.setdefault(original, {original}).add(copy)
    return {frozenset(p) for group in groups.values() for p in combinations(sorted(group), 2)}


def _pairs(items) -> set:
    """The pairs of students the near-copy items of one assignment stand for."""
    found = set()
    for item in items:
        students = item["students"]
        if len(students) == 1:
            found |= {frozenset(p) for p in combinations(students[0], 2)}
        else:
            found |= {frozenset((a, b)) for a in students[0] for b in students[1]}
    return found


def test_disguised_copies_are_found_and_independent_styles_are_not(tmp_path):
    exercise = EXERCISES["attention"]
    hand_ins, copied = _class(exercise, "class run")
    jobs, results = [], []
    for student, cells in hand_ins.items():
        path = tmp_path / "submitted" / student / exercise.notebook
        path.parent.mkdir(parents=True)
        nbformat.write(filled_notebook(exercise, cells), path)
        jobs.append(Job(path, student, exercise))
        results.append(NotebookResult(student, exercise.assignment, exercise.notebook,
                                      [CheckResult("softmax", "softmax: rows", 1.0, 1.0, "", frozenset())]))
    out = tmp_path / "graded"
    write_class_outputs(jobs, results, out, say=lambda *a: None)
    items = near_copies.read(out)[exercise.assignment]
    assert _pairs(items) == _expected(copied)
    for item in items:  # the report shows each code as its student handed it in, not its canonical form
        for sources in item["evidence"].values():
            assert all(src in {c for cells in hand_ins.values() for c in cells.values()} for src in sources)


@pytest.mark.slow
def test_every_exercise_graded_by_the_command_copies_found_honest_styles_apart(tmp_path):
    submitted, expected, graded_students = tmp_path / "submitted", {}, {}
    for name, exercise in EXERCISES.items():
        hand_ins, copied = _class(exercise, name)
        expected[exercise.assignment] = _expected(copied)
        graded_students[exercise.assignment] = set(hand_ins)
        for student, cells in hand_ins.items():
            folder = submitted / student / exercise.assignment
            folder.mkdir(parents=True)
            nbformat.write(filled_notebook(exercise, cells), folder / exercise.notebook)
    out = tmp_path / "graded"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out),
                           "--jobs", "2", "--quiet"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          env=dict(os.environ, COURSE_SECRET="disguises"), timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name, exercise in EXERCISES.items():
        for student in graded_students[exercise.assignment]:  # disguises keep what the code does
            result = json.loads((out / exercise.assignment / student / "results.json").read_text(encoding="utf-8"))
            assert result["score"] == result["max_score"] > 0, (name, student)
    found = near_copies.read(out)
    assert {a: _pairs(items) for a, items in found.items()} == expected
