"""The near-copies' reading of solution regions and course code (reports/boilerplate.py): the short cuts
give what the long way gives."""
import ast

import nbformat

from autograder.core.registry import EXERCISES
from autograder.reports import boilerplate

EX = EXERCISES["attention"]


def _by_parsing_every_cell(nb, functions):
    """regions() as it was: every code cell without a grade id parsed with ast."""
    found = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in functions:
            found[grade_id] = cell.source
            continue
        try:
            tree = ast.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in functions and node.name not in found:
                found[node.name] = ast.get_source_segment(cell.source, node) or ""
    return found


def test_regions_skip_only_cells_that_cannot_define_a_function():
    nb = nbformat.v4.new_notebook()
    sources = ["x = softmax([1.0, 2.0])\nprint(x)",                      # names it, defines nothing
               "def \\\n    softmax(z):\n    return z",                   # a def across a line continuation
               "def ｃａｕｓａｌ＿ｍａｓｋ(T):\n    return T",              # fullwidth: NFKC makes it causal_mask
               "class  attention_row:\n    pass",
               "def helper():\n    return 1",
               "def softmax(z):  # later: not counted, the first def is\n    return -z"]
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    found = boilerplate.regions(nb, EX.functions)
    assert found == _by_parsing_every_cell(nb, EX.functions)
    assert set(found) == {"softmax", "causal_mask", "attention_row"} and found["softmax"].endswith("return z")


def test_the_release_and_a_filled_notebook_give_the_same_regions_either_way():
    from autograder.demo.fill import filled_notebook
    for nb in (nbformat.read(EX.release_notebook, as_version=4), filled_notebook(EX)):
        assert boilerplate.regions(nb, EX.functions) == _by_parsing_every_cell(nb, EX.functions)


def test_the_course_code_fingerprint_is_the_same_from_the_kept_normalised_text(tmp_path, monkeypatch):
    monkeypatch.setattr(boilerplate, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(boilerplate, "_boilerplate_hashes", {})
    text = boilerplate.released_code(EX)[1]
    lexed = boilerplate.boilerplate_hashes(text)  # lexed now, its normalised text kept in tmp_path
    assert len(list(tmp_path.glob("*.txt"))) == 1
    monkeypatch.setattr(boilerplate, "_boilerplate_hashes", {})
    kept = boilerplate.boilerplate_hashes(text)  # from the kept text
    assert lexed == kept == boilerplate.fingerprint(text).hashes and len(kept) > 100
