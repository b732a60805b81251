"""Points changed mid-term: when the gradebook's maximum of a grade cell and
the checks' points differ, the grade command stops before grading or recording anything and
says what to do; recording one notebook refuses it too (never more points than the maximum)."""
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_gradebook import _course, _result

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES
from autograder.nbgrader_glue import gradebook, points_guard

ATTENTION = EXERCISES["attention"]


@pytest.fixture
def lowered(tmp_path, monkeypatch):
    """A course whose gradebook gives test_attention_row 1 point (the checks give it 5)."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    course = _course(tmp_path)
    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:
        cell = gb.find_grade_cell("test_attention_row", ATTENTION.source_notebook.stem, ATTENTION.assignment)
        cell.max_score = 1.0
        gb.db.commit()
    submission = tmp_path / "submitted" / "alice" / ATTENTION.assignment
    submission.mkdir(parents=True)
    shutil.copy(ATTENTION.release_notebook, submission / ATTENTION.notebook)
    (submission / "timestamp.txt").write_text("2026-01-10 12:00:00.000000 UTC")
    return course, submission


def _digest(course):
    return hashlib.sha256(Path(course.db_url.removeprefix("sqlite:///")).read_bytes()).hexdigest()


def test_the_checks_points_are_what_the_gradebook_was_given():
    assert points_by_function(ATTENTION)["attention_row"] == 5  # the course's 5 points (WORKED_EXAMPLES)


@pytest.mark.slow  # an nbgrader gradebook: several nbgrader commands, each a few seconds
def test_grade_refuses_before_anything_is_graded_or_recorded(lowered, tmp_path):
    course, submission = lowered
    before = _digest(course)
    env = dict(os.environ, COURSE_SECRET="points-secret")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(submission), "--out",
                           str(tmp_path / "graded")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert ("attention: grade cell test_attention_row is worth 1 point(s) in the gradebook but 5 in the checks"
            in proc.stderr)
    assert "Nothing was graded or recorded" in proc.stderr and "nbgrader generate_assignment attention" in proc.stderr
    assert _digest(course) == before
    assert not (tmp_path / "graded").exists() and not (tmp_path / "autograded").exists()


@pytest.mark.slow  # an nbgrader gradebook: several nbgrader commands, each a few seconds
def test_recording_one_notebook_never_gives_more_than_the_maximum(lowered):
    course, submission = lowered
    from nbgrader import api
    with pytest.raises(gradebook.RecordError, match="test_attention_row is worth 1 in the gradebook but 5"):
        gradebook.record_scores(course, _result("nobody"), submission)
    with api.Gradebook(course.db_url, course.course_id) as gb:
        assert [s.id for s in gb.students] == []  # not even the student was added
    assert points_guard.mismatches(course, [ATTENTION]) == [("attention", "test_attention_row", 1.0, 5.0)]
