"""A manual score from the command line (what formgrader writes), and
the stale-manual-score line that no longer reads "(now 3, was 3)" on later runs."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_gradebook import _course, _result

from autograder.checks.declared import check_metas
from autograder.core.registry import EXERCISES
from autograder.nbgrader_glue import gradebook, totals

ATTENTION = EXERCISES["attention"]


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """A course where alice's attention is recorded with every point but softmax's (3 of them)."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    course = _course(tmp_path)
    submission = tmp_path / "submitted" / "alice" / ATTENTION.assignment
    submission.mkdir(parents=True)
    shutil.copy(ATTENTION.release_notebook, submission / ATTENTION.notebook)
    gradebook.record_scores(course, _result("softmax"), submission)
    return course, tmp_path


def _score(course_dir, *args):
    return subprocess.run([sys.executable, "-m", "autograder", "score", *args, "--course", str(course_dir)],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # an nbgrader gradebook: several nbgrader commands, each a few seconds
def test_a_manual_score_from_the_command_line_counts_and_can_be_cleared(graded):
    course, root = graded
    full = sum(m.points for m in check_metas(ATTENTION))
    proc = _score(root, "alice", "attention", "softmax", "2")
    assert proc.returncode == 0, proc.stderr
    assert f"the gradebook's total is now {full - 3 + 2:g}" in proc.stdout
    from nbgrader import api
    with api.Gradebook(course.db_url, course.course_id) as gb:
        grade = gb.find_grade("test_softmax", "attention", "attention", "alice")
        assert (grade.manual_score, grade.auto_score, grade.needs_manual_grade) == (2.0, 0.0, False)
    # the next recording keeps it and names it, as for a score given in formgrader
    _, totals = gradebook.record_scores(course, _result("softmax"), root / "submitted" / "alice" / "attention")
    assert [o.describe() for o in totals.overrides] == ["test_softmax: manual 2 replaces automatic 0"]
    too_many = _score(root, "alice", "attention", "test_softmax", "4")
    assert too_many.returncode == 2 and "test_softmax is worth 0 to 3" in too_many.stderr
    nobody = _score(root, "zed", "attention", "softmax", "1")
    assert nobody.returncode == 2 and "no grade cell test_softmax of zed's attention" in nobody.stderr
    cleared = _score(root, "alice", "attention", "softmax", "--clear")
    assert cleared.returncode == 0 and f"total is now {full - 3:g}" in cleared.stdout


def test_a_stale_line_names_the_change_only_when_there_was_one():
    changed = totals.Override("attention.ipynb", "test_attention_row", 3.0, 5.0, previous=1.0, stale=True)
    later = totals.Override("attention.ipynb", "test_attention_row", 3.0, 5.0, previous=5.0, stale=True)
    lines = gradebook.stale_override_lines({("bob", "attention"): totals.Totals(17.0, 0.0, 19.0, [changed]),
                                            ("cid", "attention"): totals.Totals(17.0, 0.0, 19.0, [later])})
    assert "(now 5, was 1)" in lines[0]
    assert "was 5" not in lines[1] and "(now 5: it changed in an earlier run, and nobody has reviewed" in lines[1]
