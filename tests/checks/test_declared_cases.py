"""Is each fixed case declared once, and each mistake sentence typed once?

A declared case (``exercises/<name>/cases.py``, ``autograder/checks/cases.py``) is both what the
notebook shows and what the hidden check runs; the sentence that names a mistake is a constant
of ``wrong.py``. So rewording a mistake is one edit: both take it from that constant.
"""
import ast
import importlib

import numpy as np
import pytest

from autograder.checks.api import Mismatch
from autograder.checks.cases import Case, Check, hidden_checks
from autograder.checks.declared import check_functions
from autograder.core.registry import EXERCISES
from autograder.course import visible


@pytest.fixture
def reworded_attention(monkeypatch):
    """The attention exercise as it is after ONE edit: wrong.py's sentence for the missing
    sqrt(d_k) scaling reworded (the modules that import it are loaded again, as after the edit)."""
    wrong = importlib.import_module("exercises.attention.wrong")
    cases = importlib.import_module("exercises.attention.cases")
    monkeypatch.setattr(wrong, "UNSCALED", "leave the scores unscaled (REWORDED)")
    try:
        yield importlib.reload(cases)
    finally:
        monkeypatch.undo()
        importlib.reload(cases)


def test_rewording_a_mistake_is_one_edit(reworded_attention):
    """The notebook's visible case and the hidden check both name the mistake with the new words."""
    shown = [visible.shown(c, case) for c in reworded_attention.CASES for case in c.cases if not case.hidden]
    cell = visible.helper_cell(shown)
    assert "leave the scores unscaled (REWORDED)" in cell
    assert "forget to divide the scores by sqrt(d_k)" not in cell

    def unscaled_row(q, K, V):  # the student's attention_row without the scaling
        scores = np.asarray(K) @ np.asarray(q)
        weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        return scores, weights, weights @ np.asarray(V)
    check_row_weights = hidden_checks(reworded_attention.CASES)["check_row_weights"]
    with pytest.raises(Mismatch) as failed:
        check_row_weights(attention_row=unscaled_row)
    assert "That is the value you get when you leave the scores unscaled (REWORDED)." in str(failed.value)


def _module_strings(path):
    """``{text: [line, ...]}`` of the string literals of ``path`` that are no docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found.setdefault(node.value, []).append(node.lineno)
    return found


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_each_mistake_sentence_is_typed_once(name):
    """wrong.py's sentences (its module-level string constants of a few words) are typed nowhere
    else in cases.py or checks.py, and no declared case names a mistake with a literal."""
    folder = EXERCISES[name].folder
    wrong = ast.parse((folder / "wrong.py").read_text(encoding="utf-8"))
    sentences = {node.targets[0].id: ast.literal_eval(node.value) for node in wrong.body
                 if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                 and node.targets[0].id.isupper() and isinstance(node.value, (ast.Constant, ast.BinOp))
                 and isinstance(ast.literal_eval(node.value), str) and " " in ast.literal_eval(node.value)}
    for other in ("cases.py", "checks.py"):
        typed = _module_strings(folder / other)
        again = {k: typed[text] for k, text in sentences.items() if text in typed}
        assert not again, f"{name}/{other} types wrong.py's sentences again (use the constants): {again}"
    literal_names = [
        f"line {key.lineno}" for node in ast.walk(ast.parse((folder / "cases.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.keyword) and node.arg == "mistakes" and isinstance(node.value, ast.Dict)
        for key in node.value.keys if isinstance(key, (ast.Constant, ast.JoinedStr))]
    assert not literal_names, f"{name}/cases.py names mistakes with literals (put them in wrong.py): {literal_names}"


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_a_graded_case_is_one_check_in_one_place(name):
    """Every graded declared case is a hidden check with its points, in no other place: no
    function of checks.py has its name or its id (function: description)."""
    exercise = EXERCISES[name]
    cases = importlib.import_module(exercise.cases_module)
    graded = [c for c in cases.CASES if c.graded]
    listed = check_functions(exercise)
    names = [n for n, _ in listed]
    assert len(names) == len(set(names)), "a check name used twice"
    ids = [m.name for _, m in listed]
    assert len(ids) == len(set(ids)), "a check id (function: description) used twice"
    metas = dict(listed)
    for c in graded:
        assert metas[c.name].points == c.points and metas[c.name].name == f"{c.function}: {c.description}"
    file_checks = {node.name for node in ast.parse(exercise.checks_file.read_text(encoding="utf-8")).body
                   if isinstance(node, ast.FunctionDef)}
    assert not file_checks & {c.name for c in graded}


def test_a_check_refuses_what_it_could_not_grade_or_show():
    """Points without a name, a hidden case nobody grades, two visible cases with one label."""
    case = Case("f(1)", expected=1.0)
    with pytest.raises(ValueError, match="points and name"):
        Check("f", "one", cases=[case], points=1)
    with pytest.raises(ValueError, match="never run"):
        Check("f", "one", cases=[Case("f(1)", expected=1.0, hidden=True)])
    with pytest.raises(ValueError, match="own label"):
        Check("f", "one", cases=[case, case])
    with pytest.raises(ValueError, match="check_"):
        Check("f", "one", cases=[case], points=1, name="one")
