"""Late work said, quickly: a submission collected after the due date that
replaced an on-time one in nbgrader's exchange is found, with both times and the on-time
copy's earlier score from the resume records. The whole story through nbgrader's command line
is test_nbgrader_flow.py::test_a_late_resubmission_is_named_and_the_on_time_one_can_be_graded_instead."""
import os
import shutil
import sys
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from test_gradebook import _course, _result

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import Job
from autograder.demo.fill import filled_notebook
from autograder.grading import late
from autograder.grading.resume import Store
from autograder.reports import console
from autograder.sandbox.limits import Limits

ATTENTION = EXERCISES["attention"]
DUE = datetime(2027, 1, 15, 17, 0, 0)
ON_TIME, LATE = "2027-01-15 16:40:03.000000 UTC", "2027-01-15 18:02:11.000000 UTC"


def _hand_in(folder, nb, stamp):
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / ATTENTION.notebook)
    (folder / "timestamp.txt").write_text(stamp)


@pytest.mark.slow  # slow tier (docs/development.md): an nbgrader gradebook
def test_a_late_copy_that_replaced_an_on_time_one_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("NBGRADER_EXCHANGE", str(tmp_path / "exchange"))
    course = _course(tmp_path)
    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:
        gb.update_or_create_assignment("attention", duedate=DUE)
    inbound = tmp_path / "exchange" / "lm-reads-text" / "inbound"
    on_time_nb, late_nb = filled_notebook(ATTENTION), filled_notebook(ATTENTION)
    late_nb.cells.append(nbformat.v4.new_markdown_cell("tidied after the deadline"))
    _hand_in(inbound / f"alice+attention+{ON_TIME}+abc", on_time_nb, ON_TIME)
    _hand_in(inbound / f"alice+attention+{LATE}+def", late_nb, LATE)
    _hand_in(inbound / f"bob+attention+{LATE}+ghi", late_nb, LATE)  # late, but never on time
    submitted = tmp_path / "submitted"
    store = Store(tmp_path / "graded", b"late-secret", Limits())
    # the on-time notebook was collected and graded first: 16 of 19 (softmax's 3 points lost)
    _hand_in(submitted / "alice" / "attention", on_time_nb, ON_TIME)
    alice = Job(submitted / "alice" / "attention" / ATTENTION.notebook, "alice", ATTENTION)
    store.save(alice, _result("softmax"))
    # then `nbgrader collect --update` brought the late one
    shutil.rmtree(submitted / "alice")
    shutil.copytree(inbound / f"alice+attention+{LATE}+def", submitted / "alice" / "attention")
    shutil.copytree(inbound / f"bob+attention+{LATE}+ghi", submitted / "bob" / "attention")
    bob = Job(submitted / "bob" / "attention" / ATTENTION.notebook, "bob", ATTENTION)

    found = late.find(course, [bob, alice], store)
    assert list(found) == [1]
    got = found[1]
    assert (got.submitted, got.due, got.on_time) == (datetime(2027, 1, 15, 18, 2, 11), DUE,
                                                     datetime(2027, 1, 15, 16, 40, 3))
    assert got.on_time_score == (16.0, 19.0)
    assert got.summary() == ("this notebook was submitted 2027-01-15 18:02:11 UTC, after the due date "
                             "2027-01-15 17:00:00 UTC; it replaced the submission of 2027-01-15 16:40:03 UTC, "
                             "which was on time (it scored 16 of 19 when graded then)")
    result = _result("alice")
    late.mark([result], {0: got})
    assert result.notes[0] == got.note() and console.late_csv_text(result) == got.summary()
    # the late one's record replaces the on-time one's: the earlier score is still known
    store.save(alice, _result("alice"))
    assert late.find(course, [alice], store)[0].on_time_score == (16.0, 19.0)
    # without a due date nothing is late
    with api.Gradebook(course.db_url, course.course_id) as gb:
        gb.update_or_create_assignment("attention", duedate=None)
    assert late.find(course, [alice], store) == {}
