"""Generate every copy of an exercise from its one source, ``exercises/<name>/notebook.py``.

    python -m autograder build            # rebuild every generated copy and page
    python -m autograder build --check    # exit 1 if any committed copy or page has drifted

The text form is jupytext's percent format. Cell headers say what a cell is:

* ``# %% [markdown]``: explanation for the student.
* ``# %% module=true``: code that is both in the notebook and at the top of the reference
  module (imports, constants the solutions use).
* ``# %% solution="attention_row"``: the stub and its reference solution, between
  nbgrader's ``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers.
* ``# %% tests="attention_row"``: where the hidden checks of that function run in
  ``nbgrader autograde``; the build writes the cell's body and its points (the sum of the
  points of that function's checks, ``checks/declared.py``).
* ``# %% demo=true``: an instructor demo (a long training run, heavy plots): tagged
  ``instructor-demo`` so grading skips it, and an nbgrader locked (read-only) cell with
  ``grade_id`` ``demo_<n>`` (n = 1, 2, ... in notebook order). See ``demo_cell``.
* ``# %% checker=true``: where the visible-check helper goes (a locked, collapsed cell; the
  build writes its body: the text of ``autograder/course/visible_cell.py`` and the visible
  cases of ``CASES`` in the exercise's ``cases.py``: values only, see ``course/visible.py``).
* ``# %% visible="attention_row"``: that function's visible checks (a locked one-line cell
  that runs them and prints PASS or FAIL).
* ``# %% summary=true``: the last code cell: which visible checks pass, and how many hidden
  checks and points grade the notebook after submission (a locked cell written by the build).
* ``# %%``: any other code: demonstrations, plots.

Generated from it (and committed, each with a drift test):

* ``source/<name>/<name>.ipynb``: nbgrader's source notebook, with nbgrader cell metadata.
* ``solutions/<name>.py``: the reference implementation (``module`` and ``solution`` cells,
  markers removed), which the hidden checks compare against.
* ``assignments/<name>/<name>.ipynb``: the student release, made by nbgrader's own
  ``generate_assignment`` in a temporary course directory.

Then the pages generated from all exercise folders (``autograder.course.pages``: README's exercise
table, ``docs/worked-examples.md``).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.checks.declared import check_metas, points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT, find
from autograder.course import numerics, visible

SOLUTION_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")
# Set (to "1") by student/nbgrader_config.py when nbgrader loads it: the kernels it starts inherit it.
COURSE_SETTINGS_LOADED = "LMRT_COURSE_SETTINGS"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
# Forget any grader module the notebook imported (and may have patched) before checking.
# Its first lines stop `nbgrader validate` from saying "Success!" over failing visible checks when
# it runs without the course's settings (student/nbgrader_config.py: validate_all), which would
# check these cells alone; with the settings, the summary cell reports (visible_cell.py).
TEST_CELL = """# The hidden checks of {function} run here when your notebook is graded.
import os as _os
if _os.environ.get("NBGRADER_VALIDATING") == "1" and _os.environ.get("{settings}") != "1":
    visible_checks_gate("{function}")   # nbgrader validate without the course's settings
### BEGIN HIDDEN TESTS
import sys as _sys
for _name in [_m for _m in list(_sys.modules) if _m.split(".")[0] in ("autograder", "solutions", "exercises")]:
    del _sys.modules[_name]
from autograder.nbgrader_glue.in_kernel import grade
grade("{exercise}", "{function}")
### END HIDDEN TESTS"""


def _nbgrader(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = points
    return meta


# -- instructor demos -------------------------------------------------------------------------
DEMO_TAG = "instructor-demo"


def demo_cell(source: str, n: int):
    """The code cell of the ``n``-th instructor demo (``# %% demo=true``), n = 1, 2, ...

    Tagged ``instructor-demo`` (grading skips such cells) and locked by nbgrader
    (grade_id ``demo_<n>``, neither graded nor a solution), so students run it but cannot edit it.
    """
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = [DEMO_TAG]
    cell.metadata["nbgrader"] = _nbgrader(f"demo_{n}", locked=True)
    return cell
# -- end instructor demos ---------------------------------------------------------------------


def source_notebook(exercise):
    """Build the nbgrader source notebook of ``exercise`` from its text form.

    Returns:
        an ``nbformat.NotebookNode`` (v4), with deterministic cell ids.
    Raises:
        ValueError: a ``tests`` cell names a function without checks, or a function of
            the contract has no ``solution``, ``tests`` or ``visible`` cell (or no visible
            case), or the ``checker``/``summary`` cell is missing.
    """
    import jupytext  # here, not at the top: it costs about 2 s, and `python -m autograder` imports this module
    text = jupytext.read(exercise.text_form, fmt="py:percent")
    points = points_by_function(exercise)
    cases = visible.visible_cases(exercise, solution_module(exercise))
    cells = []
    seen_solutions, seen_tests, seen_visible, seen_special = set(), set(), set(), set()
    demos = 0
    for i, cell in enumerate(text.cells):
        meta = dict(cell.metadata)
        meta.pop("lines_to_next_cell", None)
        if cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        elif "solution" in meta:
            name = meta.pop("solution")
            seen_solutions.add(name)
            new = nbformat.v4.new_code_cell(cell.source)
            new.metadata["nbgrader"] = _nbgrader(name, solution=True)
        elif "tests" in meta:
            name = meta.pop("tests")
            if name not in points:
                raise ValueError(f"{exercise.text_form.name}: tests cell for {name!r}, which has no checks")
            seen_tests.add(name)
            new = nbformat.v4.new_code_cell(TEST_CELL.format(function=name, exercise=exercise.name,
                                                              settings=COURSE_SETTINGS_LOADED))
            new.metadata["nbgrader"] = _nbgrader(f"test_{name}", grade=True, locked=True,
                                                 points=points[name])
        elif meta.get("demo"):
            demos += 1
            new = demo_cell(cell.source, demos)
        elif "visible" in meta:
            name = meta.pop("visible")
            mine = [c for c in cases if c.function == name]
            if not mine:
                raise ValueError(f"{exercise.text_form.name}: visible cell for {name!r}, which has no "
                                 f"visible cases in {exercise.checks_file.name}")
            seen_visible.add(name)
            new = nbformat.v4.new_code_cell(visible.check_cell(name))
            new.metadata["nbgrader"] = _nbgrader(f"visible_{name}", locked=True)
        elif meta.get("checker") or meta.get("summary"):
            kind = "checker" if meta.get("checker") else "summary"
            seen_special.add(kind)
            source = visible.helper_cell(cases) if kind == "checker" else \
                visible.summary_cell(cases, check_metas(exercise))
            new = nbformat.v4.new_code_cell(source)
            if kind == "checker":  # collapsed in JupyterLab and Notebook 7: out of the student's way
                new.metadata["jupyter"] = {"source_hidden": True}
            new.metadata["nbgrader"] = _nbgrader(f"visible_{kind}", locked=True)
        else:
            meta.pop("module", None)
            new = nbformat.v4.new_code_cell(cell.source)
        new.id = f"{exercise.name}-{i:02d}"
        cells.append(new)
    missing = [f for f in exercise.functions
               if f not in seen_solutions or f not in seen_tests or f not in seen_visible]
    if seen_special != {"checker", "summary"}:
        raise ValueError(f"{exercise.text_form.name}: needs one 'checker=true' and one 'summary=true' cell")
    if missing or set(points) - seen_tests:
        raise ValueError(f"{exercise.text_form.name}: missing solution/tests/visible cells for "
                         f"{sorted(set(missing) | (set(points) - seen_tests))}")
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": dict(KERNELSPEC),
                   "language_info": {"name": "python"}}
    return nb


def solution_module(exercise) -> str:
    """Source text of ``solutions/<name>.py``: the ``module`` and ``solution`` cells, markers removed."""
    import jupytext  # here, not at the top: it costs about 2 s, and `python -m autograder` imports this module
    text = jupytext.read(exercise.text_form, fmt="py:percent")
    parts = [f'"""Reference solutions for the "{exercise.name}" exercise.\n\n'
             f"GENERATED from exercises/{exercise.name}/notebook.py by `python -m autograder build`: edit that\n"
             'file, not this one (tests/course/test_build.py fails when they differ).\n"""']
    for cell in text.cells:
        if cell.cell_type == "code" and ("solution" in cell.metadata or cell.metadata.get("module")):
            lines = [ln for ln in cell.source.splitlines() if not SOLUTION_MARKERS.match(ln)]
            parts.append("\n".join(lines).strip("\n"))
    return "\n\n\n".join(parts) + "\n"


def write_notebook(nb, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def venv_on_path() -> None:
    """Put this interpreter's bin directory first on $PATH.

    nbgrader runs helper executables (``alembic``) by name; when the course's venv is not
    activated they would not be found.
    """
    bindir = str(Path(sys.executable).parent)
    if os.environ.get("PATH", "").split(os.pathsep)[0] != bindir:
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def release_notebook(exercise, source_path):
    """Run nbgrader's ``generate_assignment`` on ``source_path`` in a temporary course.

    Returns:
        the student release as an ``nbformat.NotebookNode``.
    Raises:
        RuntimeError: nbgrader reported a failure (its log is in the message).
    """
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    venv_on_path()
    with tempfile.TemporaryDirectory(prefix="build-") as tmp:
        src = Path(tmp) / "source" / exercise.assignment
        src.mkdir(parents=True)
        shutil.copy(source_path, src / exercise.notebook)
        config = Config()
        config.CourseDirectory.root = tmp
        config.CourseDirectory.db_url = f"sqlite:///{tmp}/gradebook.db"
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = api.generate_assignment(exercise.assignment)
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment failed: {result.get('log', '')}"
                               f"{result.get('error', '')}")
        released = Path(tmp) / "release" / exercise.assignment / exercise.notebook
        return nbformat.read(released, as_version=4)


def generated_files(exercise) -> dict:
    """``{Path: text}`` of every file generated from ``exercise``'s text form, computed in the
    pinned numeric environment (``autograder.course.numerics``: the same bytes on any x86-64 machine)."""
    return exercise_files([exercise.name])


def exercise_files(names=None) -> dict:
    """``{Path: text}``: the generated copies of each named exercise (default: all), computed in the
    pinned numeric environment (one child process for all of them)."""
    return _paths(numerics.call_pinned(_exercise_texts, list(names or EXERCISES), cwd=PROJECT_ROOT))


def page_files() -> dict:
    """``{Path: text}``: the pages generated from every exercise folder and the documentation's
    tables (they read the reference modules, so a new exercise's are written first), computed in the
    pinned numeric environment."""
    return _paths(numerics.call_pinned(_page_texts, cwd=PROJECT_ROOT))


def _paths(texts: dict) -> dict:
    return {Path(path): text for path, text in texts.items()}


def _exercise_texts(names: list) -> dict:
    """In the pinned child: ``{path: text}`` of each named exercise's generated copies."""
    texts = {}
    for name in names:
        exercise = find(name)
        source = source_notebook(exercise)
        source_text = nbformat.writes(source) + "\n"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / exercise.notebook
            path.write_text(source_text, encoding="utf-8")
            release_text = nbformat.writes(release_notebook(exercise, path)) + "\n"
        texts[str(exercise.source_notebook)] = source_text
        texts[str(exercise.solution_module)] = solution_module(exercise)
        texts[str(exercise.committed_release)] = release_text  # never a snapshot $AUTOGRADER_RELEASE_DIR names
    return texts


def _page_texts() -> dict:
    """In the pinned child: ``{path: text}`` of the generated pages and tables."""
    from autograder.course import docs_tables, pages
    return {str(path): text for path, text in {**pages.pages(), **docs_tables.generated_pages()}.items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``build`` subcommand's arguments (``python -m autograder build``)."""
    parser.add_argument("names", nargs="*", help="exercises to build (default: all)")
    parser.add_argument("--check", action="store_true", help="report drift instead of writing (exit 1 on drift)")


def command(args: argparse.Namespace) -> int:
    """Write every generated file that differs from what the build makes now, or with ``args.check``
    list them and return 1 (0 when everything is current)."""
    drift = []
    for phase in (lambda: exercise_files(args.names), page_files):  # the pages import what the first writes
        for path, text in phase().items():
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current == text:
                continue
            rel = path.relative_to(PROJECT_ROOT)
            if args.check:
                drift.append(str(rel))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                print(f"wrote {rel}")
    if drift:
        print("out of date (run `python -m autograder build`):\n  " + "\n  ".join(drift))
        return 1
    return 0
