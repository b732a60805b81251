"""Shared helpers: hand in a notebook and grade it as the autograder would; a hermetic course."""
import os

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


_EXECUTED = {}


@pytest.fixture
def executed_notebook(tmp_path_factory):
    """``executed_notebook(exercise)``: its solution notebook run top to bottom by nbclient.

    Runs in a temporary folder with the venv's bin first on PATH (nbgrader's hidden-test
    cells import ``autograder``), a course secret in the environment (so no secret file is
    written) and matplotlib's inline backend. Each notebook runs once per test session.
    """
    import os
    import sys
    import time
    from pathlib import Path

    from nbclient import NotebookClient

    def run(exercise):
        if exercise.name not in _EXECUTED:
            tmp = tmp_path_factory.mktemp(f"run-{exercise.name}")
            env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
                   "COURSE_SECRET": "notebook-test-secret", "MPLCONFIGDIR": str(tmp / "mpl")}
            saved = {k: os.environ.get(k) for k in [*env, "MPLBACKEND"]}
            os.environ.update(env)
            os.environ.pop("MPLBACKEND", None)
            try:
                nb = nbformat.read(exercise.source_notebook, as_version=4)
                t0 = time.perf_counter()
                NotebookClient(nb, timeout=120, kernel_name="python3",
                               resources={"metadata": {"path": str(tmp)}}).execute()
                _EXECUTED[exercise.name] = (nb, time.perf_counter() - t0)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        return _EXECUTED[exercise.name][0]
    return run


# -- a hermetic suite --------------------------------------------------------------------------
# No test reads or writes the live assignments/, submitted/, gradebook.db or .course_secret:
# nbgrader generate_assignment may rewrite assignments/ while the suite runs, and a term in
# the same checkout owns the rest. Every test grades against a snapshot of the release taken
# once here, into a temporary folder named by $AUTOGRADER_RELEASE_DIR (read by
# exercises.Exercise.release_notebook, inherited by every command a test starts); the course
# secret comes from $COURSE_SECRET unless a test sets its own. tests/test_build.py alone
# reads the committed files (it compares them with the build).

def _snapshot_release(dest, attempts=60):
    """Copy every exercise's committed release notebook under ``dest``, each only once it is
    complete: ``generate_assignment`` (with the course's ``force``) deletes and rewrites the
    folder with the same bytes, so a file that is missing, does not parse as a notebook, or
    changes between two reads is read again half a second later.

    Raises:
        RuntimeError: a release stayed missing or broken for ``attempts`` tries.
    """
    import time
    from autograder.exercises import PROJECT_ROOT, EXERCISES
    for exercise in EXERCISES.values():
        live = PROJECT_ROOT / "assignments" / exercise.name / exercise.notebook
        for _ in range(attempts):
            try:
                data = live.read_bytes()
                nbformat.validate(nbformat.reads(data.decode("utf-8"), as_version=4))
                if live.read_bytes() == data:
                    break
            except Exception:  # missing, half written or being replaced
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError(f"{live} stayed missing or broken: run python -m autograder.build")
        target = dest / exercise.name / exercise.notebook
        target.parent.mkdir(parents=True)
        target.write_bytes(data)


@pytest.fixture(scope="session", autouse=True)
def hermetic_course(tmp_path_factory):
    """Point the grader at a snapshot of the release and at a test course secret."""
    from autograder.exercises import RELEASE_DIR_VARIABLE
    saved = {k: os.environ.get(k) for k in (RELEASE_DIR_VARIABLE, "COURSE_SECRET")}
    release = tmp_path_factory.mktemp("release")
    _snapshot_release(release)
    os.environ[RELEASE_DIR_VARIABLE] = str(release)
    os.environ.setdefault("COURSE_SECRET", SECRET.decode())
    yield release
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
