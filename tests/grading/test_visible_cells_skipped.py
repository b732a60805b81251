"""Grading leaves out the release's visible-check cells, and nothing else changes.

``check_visible("<function>")`` cells and the summary cell only print a student's results on the
worked examples (and the summary raises when one fails); the hidden checks grade the same
functions. The grader's child skips them, as it skips instructor demos; they are read-only, so a
student cannot make a cell of their own skipped, and the seeds' digest still covers them (the
kernel path, which runs them, digests the same cells).
"""
import json

import nbformat

from autograder.core.registry import EXERCISES
from autograder.submission.digest import course_cell_texts, digest, digests_for_notebook
from autograder.submission.notebook import read_notebook


def _copy(tmp_path, exercise, edit=None):
    nb = nbformat.read(exercise.source_notebook, as_version=4)
    if edit:
        edit(nb)
    path = tmp_path / f"{exercise.name}.ipynb"
    nbformat.write(nb, path)
    return path


def test_visible_check_cells_are_not_run_and_the_checker_is():
    exercise = EXERCISES["attention"]
    cells = read_notebook(exercise.source_notebook, exercise.release_notebook).cells
    by_id = {c.grade_id: c for c in cells if c.grade_id}
    visible = [g for g in by_id if g.startswith("visible_") and g != "visible_checker"]
    assert "visible_summary" in visible and len(visible) >= 2, visible
    for gid in visible:
        assert by_id[gid].to_wire()["source"] == "", gid
        assert "check_visible" in by_id[gid].raw or "summary" in by_id[gid].raw
    assert "def check_visible" in by_id["visible_checker"].to_wire()["source"]


def test_a_students_own_call_of_check_visible_runs(tmp_path):
    exercise = EXERCISES["attention"]

    def add(nb):
        at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "visible_checker")
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell("check_visible('attention_row')  # my own"))
    cells = read_notebook(_copy(tmp_path, exercise, add), exercise.release_notebook).cells
    own = [c for c in cells if "my own" in c.raw]
    assert len(own) == 1 and "check_visible" in own[0].to_wire()["source"]


def test_an_edited_visible_cell_is_restored_and_skipped(tmp_path):
    exercise = EXERCISES["attention"]

    def edit(nb):
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "visible_summary")
        cell.source = "print('graded?')"
    notebook = read_notebook(_copy(tmp_path, exercise, edit), exercise.release_notebook)
    cell = next(c for c in notebook.cells if c.grade_id == "visible_summary")
    assert cell.to_wire()["source"] == "" and "graded?" not in cell.raw
    assert any("read-only" in n for n in notebook.notes)


def test_the_digest_still_covers_the_visible_cells(tmp_path):
    """The digest of all code is computed here from the notebook's JSON directly: every code
    cell's text, the course's own cells (hidden tests, demos) left out."""
    exercise = EXERCISES["attention"]
    data = json.loads(exercise.source_notebook.read_text(encoding="utf-8"))
    texts = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
             for c in data["cells"] if c["cell_type"] == "code"
             and not (c["metadata"].get("nbgrader", {}).get("grade") and not c["metadata"]["nbgrader"].get("solution"))
             and "instructor-demo" not in c["metadata"].get("tags", [])]
    assert any("check_visible(" in t for t in texts)
    expected = digest(texts, course_cell_texts(exercise))
    notebook = read_notebook(exercise.source_notebook, exercise.release_notebook)
    assert digests_for_notebook(notebook, exercise)["*"] == expected
