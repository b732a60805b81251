"""Grades recorded in nbgrader's gradebook while the class is graded (grading/record_ahead.py): the
gradebook and the feedback notebooks are those of recording after the grading, for graded notebooks,
a late one among them, and for notebooks reused from an earlier run (handed over by the record
stage)."""
import datetime
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from test_gradebook_one_pass import ATTENTION, DUE, _course, _submit

from autograder.demo.fill import filled_notebook
from autograder.grading import class_run, record_ahead
from autograder.sandbox.limits import Limits

SECRET = b"record-ahead-secret"


def _class(root):
    course = _course(root, f"sqlite:///{root / 'gradebook.db'}")
    on_time, late = DUE - datetime.timedelta(hours=1), DUE + datetime.timedelta(days=1)
    jobs = {s: _submit(root, s, when) for s, when in (("alice", on_time), ("bob", late), ("carol", on_time))}
    nbformat.write(filled_notebook(ATTENTION), jobs["alice"].path)  # carol and bob hand in the stubs
    nbformat.write(filled_notebook(ATTENTION), jobs["bob"].path)
    return course


def _grade(root):
    options = class_run.RunOptions(out=root / "graded", workers=1, path=root / "submitted", gradebook="auto")
    run = class_run.grade_class(class_run.ClassRun(options, Limits(), secret=SECRET))
    assert run.recorded and not run.failures
    return run


def _recorded(course, root):
    """What the gradebook holds of each student, and their feedback notebook's cells."""
    from nbgrader import api
    held = {}
    with api.Gradebook(course.db_url, course.course_id) as gb:
        for student in ("alice", "bob", "carol"):
            nb = gb.find_submission_notebook("attention", "attention", student)
            feedback = json.loads((root / "autograded" / student / "attention" / ATTENTION.notebook).read_text())
            for cell in feedback["cells"]:
                cell.pop("id", None)  # nbformat gives the added report cell a new random id each time
            held[student] = (sorted((g.name, g.auto_score, g.manual_score) for g in nb.grades),
                             nb.late_submission_penalty, float(gb.find_submission("attention", student).score),
                             feedback["cells"])
    return held


@pytest.mark.slow  # slow tier (docs/development.md): an nbgrader gradebook, a class graded twice
def test_recording_during_the_grading_gives_the_gradebook_of_recording_after_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    taken = []
    real_take = record_ahead.RecordAhead.take

    def counting(self, job, result):
        real_take(self, job, result)
        taken.append(job.student_id)
    monkeypatch.setattr(record_ahead.RecordAhead, "take", counting)
    finished = []
    real_finish = record_ahead.RecordAhead.finish
    monkeypatch.setattr(record_ahead.RecordAhead, "finish",
                        lambda self, jobs, results: finished.append(real_finish(self, jobs, results)) or finished[-1])
    ahead_root, after_root = tmp_path / "ahead", tmp_path / "after"
    ahead_root.mkdir()
    after_root.mkdir()
    ahead = _class(ahead_root)
    _grade(ahead_root)
    assert sorted(taken) == ["alice", "bob", "carol"]  # each recorded as it came
    assert finished[0] is not None and finished[0][0] is True  # by the thread, not again by the record stage
    first = _recorded(ahead, ahead_root)
    assert first["bob"][1] == first["bob"][2] > 0  # late: nbgrader's 'zero' penalty takes the whole score
    assert first["alice"][2] > first["carol"][2]  # the reference scores more than the stubs

    monkeypatch.setattr(record_ahead.RecordAhead, "take", lambda self, job, result: None)  # nothing ahead
    after = _class(after_root)
    _grade(after_root)
    assert _recorded(after, after_root) == first

    monkeypatch.setattr(record_ahead.RecordAhead, "take", counting)
    taken.clear()
    _grade(ahead_root)  # every notebook reused: none taken, all recorded by the record stage
    assert taken == []
    assert _recorded(ahead, ahead_root) == first
