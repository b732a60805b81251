"""How a notebook is read and run for grading: Run-All semantics, IPython syntax
read by IPython, checks at the hidden-test cell, intake of awkward files, exact names."""
import json

import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.grading.discover import base_name, discover, exercise_of
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.submission.notebook import InvalidNotebook, ipython_transform, read_notebook
from autograder.submission.remote import ChildSubmission

FAST = Limits(call_seconds=5.0, retry_seconds=1.0, cell_seconds=5.0)


def _code(source, **nbgrader):
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = dict({"grade": False, "solution": False, "locked": False,
                                          "schema_version": 3}, **nbgrader)
    return cell


def _write(path, cells):
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def _run(tmp_path, cells, release=None):
    notebook = read_notebook(_write(tmp_path / "nb.ipynb", cells), release)
    return notebook, ChildSubmission(notebook.cells, FAST)


# -- Restart & Run All ---------------------------------------------------------------------------
def test_every_top_level_statement_runs(tmp_path):
    cells = [_code("import math\nTABLE = {}\nfor name in ['pi', 'e']:\n    TABLE[name] = getattr(math, name)\n"),
             _code("FLAG = True\nif FLAG:\n    def scaled(x):\n        return TABLE['pi'] * x\n"),
             _code("if __name__ == '__main__':\n    def main_only():\n        return 'main'\n"),
             _code("print('a', end='')\nassert scaled(1) > 3\ncounter = [0]\nwhile counter[0] < 3:\n    counter[0] += 1\n")]
    _, sub = _run(tmp_path, cells)
    with sub:
        assert sub.ensure_started()["errors"] == []
        assert sub.function("scaled")(2) == pytest.approx(2 * 3.141592653589793)
        assert sub.function("main_only")() == "main"


def test_a_cell_stops_at_its_error_and_the_next_cell_runs(tmp_path):
    cells = [_code("a = 1\nundefined_name\nb = 2\n"), _code("c = 3\ndef get(name):\n    return globals().get(name)\n")]
    _, sub = _run(tmp_path, cells)
    with sub:
        errors = sub.ensure_started()["errors"]
        assert [(e["cell"], e["type"]) for e in errors] == [("cell 1", "NameError")]
        assert [sub.function("get")(n) for n in "abc"] == [1, None, 3]


def test_ipython_syntax_is_read_by_ipython(tmp_path):
    cells = [_code('%matplotlib inline\n!ls -l\nfiles = !ls\n%time warm = sum(range(10))\n%env STYLE=x\n'
                   'import os\nnp_help = None\nos.path?\n%who\n'),
             _code('def softmax_note(x):\n    """Shift by the max.\n\n    Why shift by the max?\n    """\n'
                   '    return "%s and %s" \\\n% (x, warm)\n'),
             _code('%%capture captured\ndef captured_fn():\n    return len(files), os.environ["STYLE"]\n'),
             _code('%%writefile helper_module.py\nVALUE = 41\n'),
             _code('import helper_module\ndef from_file():\n    return helper_module.VALUE + 1\n'),
             _code('%not_a_magic\nafter_unknown = True\n')]
    _, sub = _run(tmp_path, cells)
    with sub:
        errors = sub.ensure_started()["errors"]
        assert [(e["cell"], e["type"]) for e in errors] == [("cell 6", "UsageError")]
        assert sub.function("softmax_note")("a") == "a and 45"
        assert sub.function("captured_fn")() == (0, "x")
        assert sub.function("from_file")() == 42


def test_checks_see_the_state_at_the_hidden_test_cell(tmp_path):
    cells = [_code("def f():\n    return helper() + 1\ndef helper():\n    return 1\n", grade_id="f", solution=True),
             _code("", grade_id="test_f", grade=True, locked=True, points=1),
             _code("def helper():\n    return 100\n"),
             _code("", grade_id="test_g", grade=True, locked=True, points=1),
             _code("def f():\n    return -1\n")]
    notebook, sub = _run(tmp_path, cells)
    assert [c.label for c in notebook.cells if c.checkpoint] == ["cell 2 (test_f)", "cell 4 (test_g)"]
    assert "f is defined again" not in " ".join(notebook.notes)  # f is not a contract function here
    assert notebook.later_definitions(["f"]) == {"f": ["cell 5"]}
    with sub:
        sub.advance_to("test_f")
        assert sub.function("f")() == 2
        sub.advance_to("test_g")
        assert sub.function("f")() == 101
        sub.advance_to("test_f")  # already past: nothing runs again
        assert sub.function("f")() == 101
        sub.advance_to(None)  # to the end
        assert sub.function("f")() == -1


def test_a_restarted_child_runs_again_only_to_the_current_checkpoint(tmp_path):
    cells = [_code("import os\ndef crash():\n    os._exit(3)\ndef f():\n    return 1\n"),
             _code("", grade_id="test_f", grade=True, locked=True, points=1),
             _code("def f():\n    return 2\n")]
    _, sub = _run(tmp_path, cells)
    with sub:
        sub.advance_to("test_f")
        with pytest.raises(StudentCodeError):
            sub.function("crash")()
        assert sub.function("f")() == 1


# -- intake ---------------------------------------------------------------------------------------
def _release(tmp_path):
    demo = _code("DEMO_RAN = True\n", grade_id="demo_1", locked=True)
    demo.metadata["tags"] = ["instructor-demo"]
    cells = [_code("def g():\n    raise NotImplementedError()\n", grade_id="g", solution=True),
             _code("", grade_id="test_g", grade=True, locked=True, points=1), demo,
             _code("", grade_id="test_h", grade=True, locked=True, points=1)]
    return _write(tmp_path / "release.ipynb", cells)


def test_retyped_solution_and_demo_cells_follow_the_release(tmp_path):
    release = _release(tmp_path)
    solution = _code("def g():\n    return globals().get('DEMO_RAN', 'skipped')\n", grade_id="g", solution=True)
    solution.cell_type = "markdown"
    del solution["outputs"], solution["execution_count"]
    mine = _code("MINE_RAN = True\n")
    mine.metadata["tags"] = ["instructor-demo"]  # a student cannot make their own cell a demo
    demo = _code("DEMO_RAN = True\n", grade_id="demo_1", locked=True)
    demo.metadata["tags"] = ["instructor-demo"]
    cells = [nbformat.v4.new_markdown_cell("# mine"), solution, mine, demo,
             _code("def mine_ran():\n    return globals().get('MINE_RAN')\n")]
    notebook, sub = _run(tmp_path, cells, release)
    assert any("cell 2 (g) was a code cell in the release and is a markdown cell" in n for n in notebook.notes)
    # both deleted test cells come back, after the cell before them in the release
    assert [(c.label, c.checkpoint) for c in notebook.cells if c.checkpoint] == [
        ("cell 2 (test_g)", "test_g"), ("cell 4 (test_h)", "test_h")]
    with sub:
        sub.advance_to(None)
        assert sub.function("g")() == "skipped"
        assert sub.function("mine_ran")() is True


@pytest.mark.slow
def test_outputs_never_count_against_the_size_limit(tmp_path):
    cell = _code("def f():\n    return 7\n")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=("y" * 1023 + "\n") * 60 * 1024)]
    path = _write(tmp_path / "big.ipynb", [cell])
    assert path.stat().st_size > 60 * 1024 ** 2
    notebook = read_notebook(path)
    assert [c.source for c in notebook.cells] == ["def f():\n    return 7\n"]
    huge = _write(tmp_path / "code.ipynb", [_code("x = 1\n" * (1024 ** 2))])
    with pytest.raises(InvalidNotebook, match="MB of code"):
        read_notebook(huge)


def test_exercises_are_told_by_exact_name_or_cell_ids_never_by_substring(tmp_path):
    assert base_name("tokens (1)") == base_name("tokens-Copy1") == base_name("tokens-Copy2 (3)") == "tokens"
    plain = [_code("x = 1\n")]
    for name, expected in [("tokens (1).ipynb", "tokens"), ("tokens-Copy1.ipynb", "tokens"),
                           ("next_tokens (1).ipynb", None), ("attention-kv_cache.ipynb", None),
                           ("my_attention.ipynb", None)]:
        found = exercise_of(_write(tmp_path / name, plain))
        assert (found.name if found else None) == expected, name
    ids = [_code("", grade_id="test_decode_step", grade=True, locked=True, points=1)]
    assert exercise_of(_write(tmp_path / "attention-kv_cache.ipynb", ids)) is EXERCISES["kv_cache"]
    ids = [_code("", grade_id="test_forward", grade=True, locked=True, points=1)]
    assert exercise_of(_write(tmp_path / "next_tokens (1).ipynb", ids)) is EXERCISES["next_token"]


def test_copies_in_one_folder_become_one_job(tmp_path):
    folder = tmp_path / "submitted" / "ann" / "tokens"
    folder.mkdir(parents=True)
    for name in ("tokens.ipynb", "tokens (1).ipynb", "scratch.ipynb"):
        _write(folder / name, [_code("x = 1\n")])
    jobs = discover(tmp_path / "submitted")
    assert len(jobs) == 1 and jobs[0].path.name == "tokens.ipynb"
    assert sorted(p.name for p in jobs[0].alternatives) == ["scratch.ipynb", "tokens (1).ipynb"]


def test_not_a_notebook_is_reported(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps({"cells": "nope"}))
    with pytest.raises(InvalidNotebook, match="no list of cells"):
        read_notebook(path)


def test_cells_ipython_leaves_alone_skip_the_transformer_with_the_same_result():
    from IPython.core.inputtransformer2 import TransformerManager

    from autograder.demo.fill import filled_notebook
    manager = TransformerManager()
    sources = [c.source for e in EXERCISES.values() for c in filled_notebook(e).cells]
    sources += ["", "   \n", "  x = 1\n  y = 2\n", ">>> x = 1\n", "In [1]: x = 1\n", "/print 1\n",
                "a = (1,\n,2)\n", "x = %time 1\n", "f = !ls\n", "x ?\n", "\n\n%%time\nx=1\n",
                "s = 'a' \\\n% 1\n", "\n\n  x = 1", 'def f():\n    """Why?\n    """\n']
    for source in sources:
        assert ipython_transform(source) == manager.transform_cell(source), source


def test_a_cell_many_notebooks_share_is_translated_once_a_process(monkeypatch):
    from autograder.submission import notebook
    calls = []
    real = notebook._transform
    monkeypatch.setattr(notebook, "_transform", lambda source: calls.append(source) or real(source))
    notebook._transform_cached.cache_clear()
    shared = "def f():\n    \"\"\"Does it?\n    \"\"\"\n    return 1\n"  # a "?" ends a line: IPython is asked
    first = [ipython_transform(shared) for _ in range(3)]
    assert calls == [shared] and first == [shared] * 3
    huge = "x = %time 1\n" + "y = 1\n" * (notebook.CACHED_CELL_CHARS // 6)  # too large to keep: asked each time
    ipython_transform(huge)
    ipython_transform(huge)
    assert calls[1:] == [huge, huge]
    notebook._transform_cached.cache_clear()


def test_translating_ipython_syntax_has_a_cost_limit(tmp_path):
    path = _write(tmp_path / "magic.ipynb", [_code("%time x = 1\n" * 100_000), _code("def ok():\n    return 1\n")])
    notebook = read_notebook(path)
    assert "cell 1: not run:" in notebook.notes[0] and notebook.cells[0].source == ""
