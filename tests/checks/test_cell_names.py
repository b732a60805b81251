"""What student code can read of a cell's place is covered by the seeds.

On the grade path a cell's code was compiled under its label, ``<cell 19 (bpe_encode)>``,
whose number counts markdown cells too. Code can read that name (``co_filename``), but the
digest that seeds the randomized cases leaves markdown cells out, so a table of answers kept
as markdown cells between code cells changed what the code saw without changing its cases.
Now a cell's file name is a hash of its own text (``child/cells.cell_file_name``), which the
digest covers; feedback still names the cell by its label.
"""
from pathlib import Path

import nbformat

from autograder.child.cells import Runner
from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.submission import digest as code_digest
from autograder.submission.notebook import read_notebook

TOKENS = EXERCISES["tokens"]
PROBE = "import sys\nSEEN = (sys._getframe().f_code.co_filename, sys._getframe().f_lineno)"
RAISES = "x = 1\nraise ValueError('stop')"


def _graded(tmp_path, markdown_cells):
    """``(digests, what the probe cell saw, the raising cell's error)`` for the reference
    hand-in with ``markdown_cells`` markdown cells put in before the probe, run by the
    child's own cell runner on the cells the grader reads."""
    nb = filled_notebook(TOKENS)
    for _ in range(markdown_cells):
        nb.cells.insert(1, nbformat.v4.new_markdown_cell("a note"))
    nb.cells.insert(1 + markdown_cells, nbformat.v4.new_code_cell(PROBE))
    nb.cells.insert(2 + markdown_cells, nbformat.v4.new_code_cell(RAISES))
    path = Path(tmp_path) / f"m{markdown_cells}.ipynb"
    nbformat.write(nb, path)
    notebook = read_notebook(path, TOKENS.release_notebook)
    probe = next(c for c in notebook.cells if c.source.startswith("import sys\nSEEN"))
    raising = next(c for c in notebook.cells if c.source.startswith("x = 1"))
    ns = {"__name__": "__main__"}
    errors = Runner([probe.to_wire(), raising.to_wire()], ns).run_to(None)
    return code_digest.digests_for_notebook(notebook, TOKENS), ns["SEEN"], errors, raising.label


def test_markdown_cells_change_nothing_code_can_read(tmp_path):
    digests, seen, _, _ = _graded(tmp_path, 0)
    digests3, seen3, _, _ = _graded(tmp_path, 3)
    assert digests == digests3          # markdown is not digested ...
    assert seen == seen3                # ... and the code sees the same file name and line
    assert seen[1] == 2
    assert "cell 2" not in seen[0] and "cell 5" not in seen[0]


def test_feedback_still_names_the_cell_by_its_place(tmp_path):
    _, _, errors, label = _graded(tmp_path, 3)
    assert label.startswith("cell ")
    assert [e["where"] for e in errors] == [f"{label}, line 2"]
    assert errors[0]["type"] == "ValueError"
