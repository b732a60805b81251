"""A fork server imports what the student's notebooks need.

``child/forkserver.py`` imports numpy for every student; matplotlib's pyplot and tiktoken with its
encoding only when the grader names them for a notebook (``sandbox/needs.py``). These tests read
the server's ``sys.modules`` (``StudentSandbox.modules``) after grading, and check that grades
do not depend on where a module was imported: a notebook that needs them gets full marks, and
one that imports them in a way the grader's reading does not see imports them in its own child.
They need the sandbox: where it is missing they fail.
"""
import nbformat
import pytest
from conftest import SECRET

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover
from autograder.grading.workers import grade_job
from autograder.sandbox.limits import Limits
from autograder.sandbox.needs import groups
from autograder.sandbox.warm import StudentSandbox
from autograder.submission.notebook import Cell
from autograder.submission.remote import ChildSubmission

LIMITS = Limits()


def _cells(*sources, checkpoint_after=None):
    cells = [Cell(i, s) for i, s in enumerate(sources, start=1)]
    if checkpoint_after is not None:
        cells.insert(checkpoint_after, Cell(0, "", checkpoint="test_f"))
    return cells


def test_the_reading_names_top_level_imports_and_helpers_called_before_the_last_check():
    assert groups(_cells("import numpy as np\nx = np.ones(3)")) == []
    assert groups(_cells("import matplotlib.pyplot as plt")) == ["matplotlib"]
    assert groups(_cells("from matplotlib import pyplot")) == ["matplotlib"]
    assert groups(_cells("if True:\n    import tiktoken as tk")) == ["tiktoken"]
    # a plotting helper only defined costs nothing; called at top level, in a later cell, it does
    helper = "def show(x):\n    import matplotlib.pyplot as plt\n    plt.plot(x)\n"
    assert groups(_cells(helper)) == []
    assert groups(_cells(helper, "show([1, 2])")) == ["matplotlib"]
    # cells after the last hidden-test cell are not run by the grader, nor are demo cells
    assert groups(_cells("def f():\n    return 1", helper + "show([1])", checkpoint_after=1)) == []
    demo = Cell(2, "import tiktoken", demo=True)
    assert groups([Cell(1, "x = 1"), demo]) == []
    # a cell that does not parse is read as text; plain (label, source) pairs are read in full
    assert groups(_cells("import tiktoken\nthis is not python")) == ["tiktoken"]
    assert groups([(1, "import matplotlib")]) == ["matplotlib"]


def test_of_the_reference_notebooks_only_tokens_needs_an_optional_import(tmp_path):
    # tokens imports tiktoken at its top; the others draw only after their last hidden-test
    # cell, or in instructor demos (learned_attention's training plots)
    from autograder.submission.notebook import read_notebook
    needs = {}
    for name, exercise in EXERCISES.items():
        path = tmp_path / exercise.notebook
        nbformat.write(filled_notebook(exercise), path)
        needs[name] = groups(read_notebook(path, exercise.release_notebook).cells)
    assert needs == {name: (["tiktoken"] if name == "tokens" else []) for name in EXERCISES}


def _hand_in(tmp_path, student, exercise, notebook):
    folder = tmp_path / student / exercise.assignment
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / exercise.notebook)


def test_a_student_whose_notebooks_neither_draw_nor_tokenize_never_imports_them(tmp_path):
    for name in ("attention", "embeddings", "learned_attention"):
        _hand_in(tmp_path, "s1", EXERCISES[name], filled_notebook(EXERCISES[name]))
    jobs = discover(tmp_path)
    with StudentSandbox(LIMITS) as box:
        results = [grade_job(job, SECRET, LIMITS, box)[0] for job in jobs]
        modules = box.modules()
        assert box.spawned >= len(jobs) and box.loaded == set()
    assert [r.score for r in results] == [r.max_score for r in results]
    assert all(r.confinement.startswith("bubblewrap") for r in results)
    assert "numpy" in modules and "matplotlib" not in modules and "tiktoken" not in modules


@pytest.mark.slow  # slow tier (docs/development.md): grades a student's notebooks
def test_notebooks_that_draw_and_tokenize_get_full_marks_and_load_them_once(tmp_path):
    tokens, attention = EXERCISES["tokens"], EXERCISES["attention"]
    _hand_in(tmp_path, "s1", tokens, filled_notebook(tokens))
    drawn = filled_notebook(attention)  # the reference, drawing a figure before its checks
    drawn.cells.insert(1, nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"))
    _hand_in(tmp_path, "s1", attention, drawn)
    jobs = discover(tmp_path)
    with StudentSandbox(LIMITS) as box:
        results = {job.exercise.name: grade_job(job, SECRET, LIMITS, box)[0] for job in jobs}
        modules = box.modules()
        assert box.loaded == {"matplotlib", "tiktoken"}
    assert {n: (r.score, r.max_score) for n, r in results.items()} == \
        {"tokens": (tokens.points, tokens.points), "attention": (attention.points, attention.points)}
    assert {"numpy", "matplotlib", "tiktoken"} <= set(modules)


def test_an_import_the_reading_does_not_see_happens_in_the_notebook_s_own_child():
    hidden = ('plt = __import__("matplot" + "lib.pyplot", fromlist=["figure"])\n'
              'def drawn():\n    return type(plt.figure()).__name__\n')
    with StudentSandbox(LIMITS) as box:
        with ChildSubmission([(1, hidden)], LIMITS, host=box) as sub:
            assert sub.ensure_started()["errors"] == []
            assert sub.proc.host is box
            assert sub.function("drawn")() == "Figure"
        assert "matplotlib" not in box.modules() and box.loaded == set()
        shown = 'import matplotlib.pyplot as plt\ndef drawn():\n    return type(plt.figure()).__name__\n'
        with ChildSubmission([(1, shown)], LIMITS, host=box) as sub:
            assert sub.function("drawn")() == "Figure"
        assert "matplotlib" in box.modules() and box.loaded == {"matplotlib"}


def test_the_server_never_imports_while_a_notebook_could_have_written_what_the_import_reads():
    """The scratch folder is the fork server's working folder, where matplotlib looks for a
    ``matplotlibrc`` first: the server imports pyplot only with no notebook's process running,
    after emptying the folder, so one notebook's file cannot reach the server (which has no
    seccomp filter) nor the notebooks forked after it."""
    plant = ('import os\ndef plant():\n    with open(os.path.join(os.getcwd(), "matplotlibrc"), "w") as f:\n'
             '        f.write("lines.linewidth: 7\\n")\n    return sorted(os.listdir(os.getcwd()))\n')
    width = 'import matplotlib.pyplot as plt\ndef width():\n    return float(plt.rcParams["lines.linewidth"])\n'
    with StudentSandbox(LIMITS) as box:
        with ChildSubmission([(1, plant)], LIMITS, host=box) as planter:
            assert "matplotlibrc" in planter.function("plant")()
            with ChildSubmission([(1, width)], LIMITS, host=box) as drawer:
                drawer.ensure_started()
                assert drawer.proc.host is box
                drawer.function("width")()  # imported in its own process: whatever its folder holds
            assert "matplotlib" not in box.modules() and box.loaded == set()
        with ChildSubmission([(1, width)], LIMITS, host=box) as drawer:
            assert drawer.function("width")() == 1.5  # matplotlib's default: the planted file is gone
        assert "matplotlib" in box.modules() and box.loaded == {"matplotlib"}


def test_a_cell_too_deep_to_parse_is_read_as_text():
    deep = "import tiktoken\nx = " + "(" * 200_000 + ")" * 200_000
    assert groups(_cells(deep)) == ["tiktoken"]
