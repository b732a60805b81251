"""Are the generated copies (source notebook, reference module, release) what their one source makes?"""
import json
import time

import nbformat
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT, Exercise
from autograder.course import build
from autograder.course.visible import Visible

# Generating runs nbgrader for each exercise: one exercise in the quick tier, all in the slow one.
QUICK = "embeddings"


@pytest.fixture(scope="module", params=[n if n == QUICK else pytest.param(n, marks=pytest.mark.slow) for n in EXERCISES])
def generated(request):
    exercise = EXERCISES[request.param]
    return exercise, build.generated_files(exercise)


def _committed(exercise, path):
    """The repository's own copy of a generated file (the suite grades against a release built
    for the session: see conftest.py; this module alone reads the committed one)."""
    return exercise.committed_release if path == exercise.release_notebook else path


def _read_committed(path, attempts=5):
    """The committed file's text; read again a moment later while it is missing or changing
    (nbgrader generate_assignment in this checkout rewrites assignments/ with the same bytes)."""
    for attempt in range(attempts):
        try:
            first = path.read_text(encoding="utf-8")
            if first == path.read_text(encoding="utf-8"):
                return first
        except FileNotFoundError:
            if attempt == attempts - 1:
                raise
        time.sleep(1.0)
    return path.read_text(encoding="utf-8")


def test_committed_copies_equal_what_the_source_generates(generated):
    exercise, files = generated
    for path, text in files.items():
        path = _committed(exercise, path)
        try:
            committed = _read_committed(path)
        except FileNotFoundError:
            pytest.fail(f"{path.relative_to(PROJECT_ROOT)} is missing: run python -m autograder build")
        assert committed == text, (
            f"{path.relative_to(PROJECT_ROOT)} differs from what exercises/{exercise.name}/notebook.py generates: "
            "edit the source and run `python -m autograder build`, never the generated copy")


@pytest.mark.slow
def test_a_hand_edit_of_a_generated_copy_is_detected(tmp_path):
    """``python -m autograder build --check``, run in a copy of the repository whose release of
    one exercise was edited by hand, exits 1 and names that file (and only it)."""
    import os
    import shutil
    import subprocess
    import sys
    exercise = EXERCISES[QUICK]
    root = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=PROJECT_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        if (PROJECT_ROOT / rel).is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT_ROOT / rel, root / rel)
    release = root / exercise.committed_release.relative_to(PROJECT_ROOT)
    text = release.read_text(encoding="utf-8")
    assert "raise NotImplementedError()" in text
    release.write_text(text.replace("raise NotImplementedError()", "return None", 1), encoding="utf-8")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("AUTOGRADER_RELEASE_DIR", None)
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--check", QUICK], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    drifted = [line.strip() for line in proc.stdout.splitlines()[1:]]
    assert proc.stdout.startswith("out of date") and drifted == [f"assignments/{QUICK}/{QUICK}.ipynb"], proc.stdout


def test_release_ships_no_solutions_no_hidden_tests_and_no_stray_files(generated):
    exercise, files = generated
    folder = _committed(exercise, exercise.release_notebook).parent
    assert set(p.name for p in folder.iterdir()) <= {exercise.notebook}
    release = nbformat.reads(files[exercise.committed_release], as_version=4)
    text = json.dumps([c.source for c in release.cells])
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "autograder"):
        assert marker not in text
    reference = build.solution_module(exercise)
    for cell in release.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            assert "raise NotImplementedError()" in cell.source
            # no line of a reference body survives in the stub, beyond signature and docstring
            body = cell.source.split('"""')[-1]
            for line in body.splitlines():
                stripped = line.strip()
                if stripped and not stripped.startswith(("#", "raise NotImplementedError")):
                    assert stripped not in reference.split("### BEGIN SOLUTION")[-1] or len(stripped) < 12, stripped


def test_hidden_test_cells_carry_the_points_of_their_checks(generated):
    exercise, files = generated
    source = nbformat.reads(files[exercise.source_notebook], as_version=4)
    cells = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"] for c in source.cells
             if c.metadata.get("nbgrader", {}).get("grade")}
    assert {k.removeprefix("test_"): v["points"] for k, v in cells.items()} == points_by_function(exercise)
    assert set(points_by_function(exercise)) == set(exercise.functions)


@pytest.mark.slow
def test_demo_cells_are_tagged_locked_and_numbered(tmp_path, monkeypatch):
    """``# %% demo=true`` gives an instructor-demo cell: tagged, locked, grade_id demo_<n>, and
    still locked (read-only) in nbgrader's release."""
    text_form = tmp_path / "toy.py"
    text_form.write_text(
        '# %% [markdown]\n# A toy.\n\n'
        '# %% checker=true\n\n'
        '# %% solution="softmax"\ndef softmax(z, axis=-1):\n    ### BEGIN SOLUTION\n    return z\n    ### END SOLUTION\n\n'
        '# %% demo=true\nprint("a long run")\n\n'
        '# %%\nprint("a self-check")\n\n'
        '# %% visible="softmax"\n\n'
        '# %% tests="softmax"\n\n'
        '# %% demo=true\nprint("another")\n\n'
        '# %% summary=true\n', encoding="utf-8")
    class Toy(Exercise):
        text_form = property(lambda self: text_form)
    exercise = Toy("toy", "A toy", ("softmax",))
    monkeypatch.setattr(build, "points_by_function", lambda e: {"softmax": 1.0})
    # the toy has no check file: its one visible case and its hidden checks' list are given here
    monkeypatch.setattr(build.visible, "visible_cases",
                        lambda e, text=None: [Visible("softmax", "identity", "softmax(1.0)", expected=1.0)])
    monkeypatch.setattr(build, "check_metas", lambda e: [])
    nb = build.source_notebook(exercise)
    demos = [c for c in nb.cells if c.metadata.get("tags") == [build.DEMO_TAG]]
    assert [c.source for c in demos] == ['print("a long run")', 'print("another")']
    assert [c.metadata["nbgrader"] for c in demos] == [
        {"grade": False, "grade_id": f"demo_{n}", "locked": True, "schema_version": 3, "solution": False}
        for n in (1, 2)]
    plain = [c for c in nb.cells if c.source == 'print("a self-check")']
    assert plain and "tags" not in plain[0].metadata and "nbgrader" not in plain[0].metadata
    path = tmp_path / "toy.ipynb"
    build.write_notebook(nb, path)
    released = build.release_notebook(exercise, path)
    demos = [c for c in released.cells if build.DEMO_TAG in c.metadata.get("tags", [])]
    assert len(demos) == 2
    assert all(c.metadata["nbgrader"]["locked"] and c.metadata.get("editable") is False for c in demos)
