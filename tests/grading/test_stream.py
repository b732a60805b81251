"""The pass after grading, from results read back one at a time (``grading/stream.py``).

A small class is handed in and its results recorded as a run records them (``resume.Store.save``);
``grade_all`` then finds every notebook recorded (nothing runs) and gives the results either as a
list in memory or as a ``stream.Results`` read back from those records. The class's files written
from both must be the same bytes, and say what the class is known to hold: two students with the
same code flagged identical, a late penalty from the gradebook in the student's report and in
grades.csv, a named mistake in the class report.
"""
import csv
import json

import nbformat
import numpy as np

from autograder.checks.declared import check_metas
from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, NotebookResult, Problem
from autograder.demo.fill import filled_notebook
from autograder.grading import outputs, resume
from autograder.grading.discover import discover
from autograder.grading.outputs import write_class_outputs
from autograder.grading.stream import Results
from autograder.grading.workers import grade_all
from autograder.nbgrader_glue import gradebook
from autograder.nbgrader_glue.totals import Totals
from autograder.reports import boilerplate, console, near_copies
from autograder.sandbox.limits import Limits

EX = EXERCISES["attention"]
SECRET = b"stream test"
MISTAKE = "forget to divide the scores by sqrt(d_k)"
COPIED = "def softmax(z, axis=-1):\n    e = np.exp(z - np.max(z, axis=axis, keepdims=True))\n" \
         "    return e / e.sum(axis=axis, keepdims=True)\n"

OWN = "def softmax(z, axis=-1):\n    top = np.max(z, axis=axis, keepdims=True)\n    w = np.exp(z - top)\n" \
      "    return w / np.sum(w, axis=axis, keepdims=True)\n"


def _result(student, wrong=()):
    """A result of ``EX`` whose checks of the functions in ``wrong`` failed with ``MISTAKE`` named."""
    grid = np.arange(6.0).reshape(2, 3) / 7
    checks = []
    for m in check_metas(EX):
        if m.function in wrong:
            checks.append(CheckResult(m.function, m.name, 0.0, m.points,
                                      f"wrong weights. That is the value you get when you {MISTAKE}.",
                                      details={"what": "weights", "expected": grid, "got": grid * 2,
                                               "mistakes": [MISTAKE]}))
        else:
            checks.append(CheckResult(m.function, m.name, m.points, m.points, ""))
    return NotebookResult(student, EX.assignment, EX.notebook, checks, [], 0.1, set(), [], "unconfined")


def _class(tmp_path):
    """ann and bob hand in the same code, cat code of her own (scored as a mistake), dan the
    reference; returns the jobs."""
    root = tmp_path / "submitted"
    code = {"ann": {"softmax": COPIED}, "bob": {"softmax": COPIED}, "cat": {"softmax": OWN}, "dan": {}}
    for student, replaced in code.items():
        folder = root / student / EX.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(EX, replaced), folder / EX.notebook)
    jobs = discover(root)
    store = resume.Store(tmp_path / "records", SECRET, Limits(confine=False))
    for job in jobs:
        assert store.save(job, _result(job.student_id, ("attention_row",) if job.student_id == "cat" else ()))
    return jobs


def _late_gradebook(results, totals):
    """A gradebook that takes 1 point from dan for lateness (as ``gradebook.record`` fills ``totals``)."""
    for r in results:
        if r.student_id == "dan":
            totals[(r.student_id, r.assignment_id)] = Totals(r.score, 1.0, r.max_score)
            r.notes.extend(n for n in totals[(r.student_id, r.assignment_id)].notes() if n not in r.notes)
    return True


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".resume" not in p.parts}


def _write(tmp_path, jobs, on_disk, name, monkeypatch):
    out = tmp_path / name
    (out / ".resume").mkdir(parents=True)
    for record in (tmp_path / "records" / ".resume").iterdir():  # as an earlier run left them
        (out / ".resume" / record.name).write_bytes(record.read_bytes())
    reused = []
    results, failures, _ = grade_all(jobs, SECRET, Limits(confine=False), 1, out=out, on_disk=on_disk,
                                  progress=lambda i, r, was: reused.append(was))
    assert failures == 0 and reused == [True] * len(jobs)  # nothing ran
    assert isinstance(results, Results) == on_disk
    monkeypatch.setattr(gradebook, "record_for_cli", lambda option, path, jobs, results, totals:
                        _late_gradebook(results, totals))  # a gradebook that charges dan for lateness
    recorded, totals = outputs.record(jobs, results, gradebook="the test's gradebook")
    write_class_outputs(jobs, results, out, totals=totals, say=lambda *a: None)
    return out, results


def test_the_files_from_results_read_back_one_at_a_time_are_those_from_memory(tmp_path, monkeypatch):
    jobs = _class(tmp_path)
    memory, _ = _write(tmp_path, jobs, False, "memory", monkeypatch)
    disk, results = _write(tmp_path, jobs, True, "disk", monkeypatch)
    a, b = _files(memory), _files(disk)
    assert sorted(a) == sorted(b) and "class.html" in a and "near_copies.json" in a
    assert [name for name in a if a[name] != b[name]] == []
    # what the class holds, said in the files written from disk
    with open(disk / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    top = sum(m.points for m in check_metas(EX))
    assert {s for s, r in rows.items() if "identical" in r["problems"]} == {"ann", "bob"}
    assert float(rows["dan"]["score"]) == top - 1 and float(rows["dan"]["total"]) == top
    assert float(rows["cat"]["total"]) == top - sum(m.points for m in check_metas(EX) if m.function == "attention_row")
    assert "late-work policy takes 1 points" in (disk / EX.assignment / "dan" / "report.html").read_text("utf-8")
    assert MISTAKE in (disk / "class.html").read_text("utf-8")
    # the edits hold on every read of a stream: dan's gradebook note, ann's identical flag
    by = {results.row(i).student_id: i for i in range(len(results))}
    assert any("late:" in n for n in results[by["dan"]].notes)
    assert "identical" in console.problems(results[by["ann"]]) and console.problems(results[by["cat"]]) == ""


def test_a_result_no_record_holds_is_spilled_and_read_back_whole(tmp_path):
    kept = Results(2)
    results = [_result("eve", ("attention_row",)), _result("fay")]
    results[0].problems.add(Problem.GRADER_ERROR)  # never recorded by the resume store: spilled
    for i, r in enumerate(results):
        kept.put(i, r)
    for i, r in enumerate(results):
        again = kept[i]
        assert console.results_json(again) == console.results_json(r) and console.table(again) == console.table(r)
        assert again.problems == r.problems and again is not r
    kept.close()


def test_near_copies_json_is_written_as_json_dumps_writes_it_and_read_back_in_part(tmp_path):
    jobs = _class(tmp_path)
    results = [_result(j.student_id) for j in jobs]
    path = near_copies.find(jobs, results, tmp_path)
    solutions = {j.student_id: boilerplate.regions(nbformat.read(j.path, as_version=4), EX.functions) for j in jobs}
    released = boilerplate.regions(nbformat.read(EX.release_notebook, as_version=4), EX.functions)
    # three codes (ann's and bob's, cat's, dan's: the same reference code in their other functions,
    # so each pair shares fingerprints): the group compared with itself once, each pair of codes once
    stats = {"students": 4, "codes": 3, "compared": 1 + 3, "candidates": 3, "not compared": 0}
    expected = {"assignments": {EX.assignment: near_copies.code_pairs(solutions, EX.functions, released)},
                "compared": {EX.assignment: stats}}
    assert path.read_text(encoding="utf-8") == json.dumps(expected, indent=1, ensure_ascii=False)
    pairs = expected["assignments"][EX.assignment]
    assert [["ann", "bob"]] in [p["students"] for p in pairs]  # the same code is a near-copy too: a group
    top = near_copies.read(tmp_path, keep=1)[EX.assignment]
    assert list(top) == pairs[:1] and top.total == len(pairs) and top.compared == stats
    assert near_copies.read(tmp_path) == expected["assignments"]


def test_a_result_handed_in_is_no_longer_held_by_the_grading(tmp_path):
    """With the results on disk, the grading keeps no student's results once it has handed them in
    (the pool's done tasks held every one of them until the pool ended: the command then grew with
    the class). Each result handed in is watched by a weak reference; by the last, only the result
    being handed in may still be alive."""
    import gc
    import weakref
    root = tmp_path / "submitted"
    for student in ("ann", "bob", "cat", "dan"):
        folder = root / student / EX.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(EX), folder / EX.notebook)
    jobs = discover(root)
    watched, alive_at_last = [], []

    def progress(i, result, reused):
        watched.append(weakref.ref(result))
        if len(watched) == len(jobs):
            gc.collect()
            alive_at_last.extend(r() is not None for r in watched[:-1])

    results, failures, reused = grade_all(jobs, SECRET, Limits(confine=False), 1, progress=progress,
                                          out=tmp_path / "out", on_disk=True)
    assert failures == 0 and reused == 0 and len(watched) == len(jobs) == 4
    assert [results.row(i).score for i in range(4)] == [results.row(i).max_score for i in range(4)]
    assert alive_at_last == [False, False, False]
