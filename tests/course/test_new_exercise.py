"""Does a seventh exercise take one command and one folder?

In a temporary copy of the repository (its tracked and new files, as a clone plus the work
in progress holds them): ``python -m autograder new`` writes the folder and builds its
notebooks, the grader gives the reference full marks and the untouched stubs 0, and the
exercise tests pass for it: with no edit anywhere else.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from autograder.core.registry import PROJECT_ROOT, load
from autograder.course.scaffold import create

NAME = "toy_mean"
# What the template promises (exercise.toml's points, typed independently of its checks.py).
TEMPLATE_POINTS = 2


def _run(args, cwd, timeout=900):
    env = dict(os.environ, COURSE_SECRET="new-exercise-secret", PYTHONDONTWRITEBYTECODE="1")
    env.pop("AUTOGRADER_RELEASE_DIR", None)  # the copy's own assignments/, not the suite's snapshot
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A copy of the repository's files (tracked and untracked-but-not-ignored), no venv."""
    root = tmp_path_factory.mktemp("course") / "repo"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=PROJECT_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = PROJECT_ROOT / rel
        if source.is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / rel)
    return root


def _files(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def seventh(copy):
    """The copy after ``python -m autograder new toy_mean`` (which also builds it); and
    ``(new files, changed files)``."""
    before = _files(copy)
    _run(["-m", "autograder", "new", NAME, "--title", "The mean of the token vectors"], copy)
    after = _files(copy)
    return copy, (set(after) - set(before), {f for f in before if f in after and after[f] != before[f]})


@pytest.mark.slow
def test_one_command_writes_one_folder_and_the_build_its_generated_copies(seventh):
    copy, (new_files, changed) = seventh
    generated = {f"source/{NAME}/{NAME}.ipynb", f"solutions/{NAME}.py", f"assignments/{NAME}/{NAME}.ipynb"}

    folder = {p for p in new_files if p.startswith("exercises/")}
    assert folder == {f"exercises/{NAME}/{f}" for f in
                      ("exercise.toml", "__init__.py", "notebook.py", "cases.py", "checks.py", "wrong.py",
                       "hand_ins.py", "worked.py")}
    assert new_files - folder == generated
    # of the files already there, only the pages generated from every folder changed
    assert changed == {"README.md", "docs/worked-examples.md"}
    exercise = load(copy / "exercises" / NAME)
    from autograder.core.registry import EXERCISES
    assert exercise.order == max(e.order for e in EXERCISES.values()) + 1 and exercise.points == TEMPLATE_POINTS
    # README's row shows the new exercise's title until its summary is written (not the template's)
    assert f"| `{NAME}` | The mean of the token vectors |" in (copy / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_reference_gets_full_marks_and_stubs_zero(seventh, tmp_path):
    copy, _ = seventh
    script = (
        "import nbformat, sys\n"
        "from pathlib import Path\n"
        "from autograder.demo.fill import filled_notebook\n"
        "from autograder.core.registry import find\n"
        f"e = find({NAME!r})\n"
        "root = Path(sys.argv[1])\n"
        "for student, stubs in (('ref', ()), ('stub', e.functions)):\n"
        "    folder = root / student / e.assignment\n"
        "    folder.mkdir(parents=True)\n"
        "    nbformat.write(filled_notebook(e, stubs=stubs), folder / e.notebook)\n")
    _run(["-c", script, str(tmp_path / "submitted")], copy)
    _run(["-m", "autograder", "grade", str(tmp_path / "submitted"), "--out", str(tmp_path / "graded"),
          "--jobs", "2", "--gradebook", "none"], copy)
    results = {s: json.loads((tmp_path / "graded" / NAME / s / "results.json").read_text(encoding="utf-8"))
               for s in ("ref", "stub")}
    assert results["ref"]["score"] == results["ref"]["max_score"] == TEMPLATE_POINTS
    assert results["stub"]["score"] == 0 and results["stub"]["max_score"] == TEMPLATE_POINTS


@pytest.mark.slow
def test_the_exercise_tests_pass_for_it(seventh):
    copy, _ = seventh
    out = _run(["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", NAME, "tests/course/test_exercises.py",
                "tests/checks/test_mistakes.py", "tests/course/test_build.py", "tests/course/test_worked.py", "tests/course/test_visible.py"], copy)
    assert " passed" in out and " failed" not in out, out[-2000:]
    # the pages generated from every folder are current (the build rewrote them)
    out = _run(["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/course/test_pages.py",
                "tests/course/test_worked.py::test_the_page_is_generated_from_the_worked_values"], copy)
    assert " passed" in out and " failed" not in out, out[-2000:]


def test_bad_names_are_refused(tmp_path):
    for bad in ("Toy", "2toy", "class", "toy-mean", "_toy"):
        with pytest.raises(ValueError, match="lowercase Python identifier"):
            create(bad, root=tmp_path)
    create("toy", root=tmp_path)
    with pytest.raises(ValueError, match="exists already"):
        create("toy", root=tmp_path)
