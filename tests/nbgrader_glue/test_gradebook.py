"""Recording into nbgrader's gradebook, quickly: the gradebook is filled by nbgrader's own
preprocessors (those ``generate_assignment`` runs up to ``SaveCells``) from the source
notebook, without a term.
The whole term through nbgrader's command line is ``test_nbgrader_flow.py`` (slow tier)."""
import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.checks.declared import check_metas
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.nbgrader_glue import feedback, gradebook

ATTENTION = EXERCISES["attention"]


def _course(tmp_path):
    shutil.copy(PROJECT_ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    (tmp_path / "student").mkdir()
    shutil.copy(PROJECT_ROOT / "student" / "nbgrader_config.py", tmp_path / "student" / "nbgrader_config.py")
    course = gradebook.load_course(tmp_path)
    from nbgrader import api, preprocessors
    nb = nbformat.read(ATTENTION.source_notebook, as_version=4)
    with api.Gradebook(course.db_url, course.course_id) as gb:
        gb.update_or_create_assignment(ATTENTION.assignment)
    resources = {"nbgrader": {"notebook": ATTENTION.source_notebook.stem, "assignment": ATTENTION.assignment,
                              "db_url": course.db_url}}
    # generate_assignment's steps up to recording the cells, with the course's settings
    for step in (preprocessors.LockCells, preprocessors.ClearSolutions, preprocessors.ClearOutput,
                 preprocessors.ComputeChecksums, preprocessors.SaveCells):
        nb, resources = step(parent=course).preprocess(nb, resources)
    return course


def _result(lost_function):
    """Full points on every check except those of ``lost_function``, which score 0."""
    checks = [CheckResult(m.function, m.name, 0.0 if m.function == lost_function else m.points, m.points,
                          "wrong" if m.function == lost_function else "")
              for m in check_metas(ATTENTION)]
    return NotebookResult("alice", ATTENTION.assignment, ATTENTION.notebook, checks)


@pytest.mark.slow
def test_scores_land_on_each_functions_hidden_test_cell_and_feedback_is_written(tmp_path, monkeypatch):
    # nbgrader creates a new gradebook with alembic's command, from the venv's bin
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    course = _course(tmp_path)
    submission = tmp_path / "submitted" / "alice" / ATTENTION.assignment
    submission.mkdir(parents=True)
    handed_in = nbformat.read(ATTENTION.release_notebook, as_version=4)
    handed_in.metadata["kernelspec"] = {"name": "my-kernel", "display_name": "Mine", "language": "python"}
    nbformat.write(handed_in, submission / ATTENTION.notebook)
    (submission / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")
    result = _result("softmax")
    warnings, totals = gradebook.record_scores(course, result, submission)
    assert warnings == [] and totals.overrides == []

    expected = {}
    for m in check_metas(ATTENTION):
        expected[m.function] = expected.get(m.function, 0.0) + (0.0 if m.function == "softmax" else m.points)
    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:
        grades = gb.find_submission_notebook(ATTENTION.source_notebook.stem, ATTENTION.assignment, "alice").grades
        recorded = {g.name.removeprefix("test_"): g.auto_score for g in grades if g.name.startswith("test_")}
    assert recorded == expected and recorded["softmax"] == 0.0
    # what export will say: the points recorded, no late penalty (no due date), the release's maximum
    assert totals.raw == sum(expected.values()) and totals.late_penalty == 0
    assert totals.max_score == sum(m.points for m in check_metas(ATTENTION))

    nb = feedback.feedback_notebook(course, result, submission / ATTENTION.notebook)
    assert "report" in nb.cells[0].source.lower() or nb.cells[0].outputs  # the grader's report on top
    softmax_cell = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "test_softmax")
    shown = softmax_cell.outputs[0]["text"]
    assert "FAIL" in shown and f"softmax: 0 of {sum(m.points for m in check_metas(ATTENTION) if m.function == 'softmax'):g} points" in shown
    assert "BEGIN HIDDEN TESTS" not in softmax_cell.source  # the hidden code stays hidden
    # the kernelspec is the source's, not the student's, through nbgrader's own preprocessor and
    # through the gradebook the grade command keeps open for the class
    source_spec = nbformat.read(ATTENTION.source_notebook, as_version=4).metadata["kernelspec"]
    with api.Gradebook(course.db_url, course.course_id) as gb:
        through_open = feedback.feedback_notebook(course, result, submission / ATTENTION.notebook, gb=gb)
    assert nb.metadata["kernelspec"] == through_open.metadata["kernelspec"] == source_spec
    assert source_spec["name"] != "my-kernel"
