"""The grader started through a path with ``..`` still confines at the bubblewrap level.

Started as ``../.venv/bin/python`` from ``scripts/``, Python's ``sys.executable`` is
``<repo>/scripts/../.venv/bin/python``; passed to bubblewrap as it was, the sandbox could not
exec it (``scripts/`` is not mounted) and grading fell back to the setuid level with a note."""
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.sandbox import process
from autograder.submission.remote import child_command


def _roundabout() -> str:
    """This venv's python by way of ``scripts/..`` (scripts/setup.sh makes the venv in the project)."""
    python = Path(sys.executable)
    assert python.is_relative_to(PROJECT_ROOT), "the tests run from the project's own .venv"
    return str(PROJECT_ROOT / "scripts" / ".." / python.relative_to(PROJECT_ROOT))


def test_the_child_is_started_by_a_path_without_dot_dot(monkeypatch):
    roundabout = _roundabout()
    monkeypatch.setattr(sys, "executable", roundabout)
    assert ".." not in Path(process.interpreter()).parts
    assert process.interpreter() == os.path.normpath(roundabout)
    assert child_command()[0] == process.interpreter()


@pytest.mark.slow  # slow tier (docs/development.md): grades a notebook through the command line
def test_grading_started_through_dot_dot_is_confined_by_bubblewrap(tmp_path):
    nb = tmp_path / "attention.ipynb"
    nbformat.write(filled_notebook(EXERCISES["attention"]), nb)
    roundabout = _roundabout()
    env = {**os.environ, "COURSE_SECRET": "test-secret"}
    proc = subprocess.run([roundabout, "-m", "autograder", "grade", str(nb), "--out", str(tmp_path / "out"),
                           "--jobs", "1", "--quiet"], cwd=PROJECT_ROOT / "scripts", env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["score"] == 19
    assert data["extra_data"]["confinement"].startswith("bubblewrap"), data["extra_data"]["confinement"]


def _linked_venv(tmp_path) -> Path:
    """A folder in ``tmp_path`` that is a symbolic link to this venv (``.venv -> /elsewhere/venv``)."""
    link = tmp_path / "linked-venv"
    link.symlink_to(os.path.realpath(sys.prefix), target_is_directory=True)
    return link


def test_a_venv_reached_through_a_link_is_started_at_its_real_folder(tmp_path, monkeypatch):
    from autograder.sandbox.policy import shown_in_sandbox
    link = _linked_venv(tmp_path)
    monkeypatch.setattr(sys, "executable", str(link / "bin" / "python"))
    started = process.interpreter()
    assert started == os.path.join(os.path.realpath(sys.prefix), "bin", "python")
    assert os.path.islink(started) or os.path.isfile(started)
    # the sandbox shows the venv at its real path only: the way through the link is not there
    assert not shown_in_sandbox(str(link / "bin" / "python"))
    assert shown_in_sandbox(started)


def test_an_interpreter_that_is_a_link_outside_every_shown_folder_is_resolved(tmp_path, monkeypatch):
    from autograder.sandbox.policy import shown_in_sandbox
    base = os.path.realpath(os.path.join(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}"))
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(base)  # ~/bin/python -> the installation's python
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    assert not shown_in_sandbox(str(tmp_path / "bin" / "python"))
    assert process.interpreter() == base and shown_in_sandbox(base)


@pytest.mark.slow  # slow tier (docs/development.md): grades a notebook through the command line
def test_grading_started_through_a_linked_venv_is_confined_by_bubblewrap(tmp_path):
    nb = tmp_path / "attention.ipynb"
    nbformat.write(filled_notebook(EXERCISES["attention"]), nb)
    python = _linked_venv(tmp_path) / "bin" / "python"
    env = {**os.environ, "COURSE_SECRET": "test-secret"}
    proc = subprocess.run([str(python), "-m", "autograder", "grade", str(nb), "--out", str(tmp_path / "out"),
                           "--jobs", "1"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "cannot start here" not in proc.stderr, proc.stderr  # no fallback to another level
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["score"] == 19
    assert data["extra_data"]["confinement"].startswith("bubblewrap"), data["extra_data"]["confinement"]
