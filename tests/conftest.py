"""Shared helpers: hand in a notebook and grade it as the autograder would."""
import nbformat
import pytest

from autograder.demo.fill import filled_notebook
from autograder.grade import grade_notebook
from autograder.sandbox import Limits

SECRET = b"test-secret"  # fixed, so the randomized cases are the same on every run


@pytest.fixture
def hand_in(tmp_path):
    """``hand_in(exercise, replacements=None, stubs=(), student="s1")`` -> NotebookResult."""
    def grade(exercise, replacements=None, stubs=(), student="s1", limits=None):
        nb = filled_notebook(exercise, replacements, stubs)
        path = tmp_path / f"{student}-{exercise.notebook}"
        nbformat.write(nb, path)
        return grade_notebook(path, exercise, student, SECRET, limits or Limits())
    return grade
