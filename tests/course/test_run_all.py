"""The visible checks of a released notebook: Run All runs every cell, the check cells are a
line each, the helper cell is collapsed, only the summary cell raises (with the named
mistakes first), and a value prints as the hidden checks' feedback prints it.

Quick tests run the release's own cells with ``exec`` (no kernel); the slow ones run it in a
real kernel (nbclient) and through the real ``nbgrader validate``.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.checks.api import expected_got, fmt
from autograder.checks.values import show
from autograder.core.registry import EXERCISES
from autograder.course import visible
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes

ROOT = Path(__file__).resolve().parents[2]
AXIS = "softmax over the wrong axis"   # exercises/attention/hand_ins.py NAMED
SQRT = "forget to divide the scores by sqrt(d_k)"


def _gid(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def _mistake(exercise, label):
    return next(m for m in all_mistakes() if m.exercise == exercise and m.label == label)


def _run_all(nb, capsys):
    """Every code cell of ``nb`` in order in one namespace, as Run All in a kernel that goes on
    after a failing cell: ``{grade_id or index: (printed, exception or None)}``."""
    namespace, seen = {"__name__": "__main__"}, {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        error = None
        try:
            exec(compile(cell.source, f"cell {i}", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 -- a cell that raises: the next one runs
            error = exc
        seen[_gid(cell) or i] = (capsys.readouterr().out, error)
    return seen


@pytest.mark.parametrize("name", list(EXERCISES))
def test_check_cells_are_one_line_and_the_helper_is_collapsed(name):
    for folder in ("source", "assignments"):
        nb = nbformat.read(ROOT / folder / name / f"{name}.ipynb", as_version=4)
        checker = [c for c in nb.cells if _gid(c) == "visible_checker"]
        assert len(checker) == 1 and checker[0].metadata["jupyter"]["source_hidden"] is True
        checks = [c for c in nb.cells if _gid(c).startswith("visible_") and _gid(c) != "visible_checker"]
        assert len(checks) == len(EXERCISES[name].functions) + 1
        for cell in checks:
            limit = 3 if _gid(cell) == "visible_summary" else 1
            assert len(cell.source.splitlines()) <= limit, cell.source


def test_run_all_with_a_mistake_runs_every_check_and_the_summary_raises_once(capsys):
    exercise = EXERCISES["attention"]
    mistake = _mistake("attention", "softmax_wrong_axis")
    seen = _run_all(filled_notebook(exercise, {mistake.function: mistake.code}), capsys)
    raised = {k: type(e).__name__ for k, (_, e) in seen.items() if e is not None}
    assert raised == {"visible_summary": "VisibleCheckFailed"}   # the check cells printed, went on
    printed = "".join(out for out, _ in seen.values())
    assert "FAIL  attention_matrix: " in printed and "That is the value you get when you " in printed
    message = str(seen["visible_summary"][1])
    lines = message.splitlines()
    assert lines[1] == "Fix first (a known mistake gives these values):"
    assert lines[2].startswith("  attention_matrix, 3 checks: you take the softmax over the wrong axis")
    assert all(len(line) <= 76 for line in lines) and len(lines) <= 12


def test_untouched_stubs_raise_only_in_the_summary(capsys):
    seen = _run_all(nbformat.read(EXERCISES["embeddings"].release_notebook, as_version=4), capsys)
    checks = {k: v for k, v in seen.items() if str(k).startswith("visible_") and k != "visible_checker"}
    assert all(error is None for k, (_, error) in checks.items() if k != "visible_summary")
    assert type(seen["visible_summary"][1]).__name__ == "VisibleCheckFailed"
    assert "not implemented yet" in "".join(out for out, _ in checks.values())


def test_expected_values_print_as_the_hidden_feedback_prints_them():
    # 1.60356549: rounded to 6 decimals first (1.603565) it printed as 1.60356; the value is 1.60357
    case = visible.Visible("f", "l", "f()", expected=1.60356549)
    literal = eval(visible._value(case.expected))
    assert show(literal) == fmt(1.60356549) == "1.60357"
    # every visible case's expected value, as the notebook holds it, prints as the feedback does
    for exercise in EXERCISES.values():
        for case in visible.visible_cases(exercise):
            if case.compare == "raises":
                continue
            held = eval(visible._value(case.expected), {"np": np, "float": float})
            assert show(held) == fmt(visible._lists(case.expected)), case.name


def test_the_notebook_and_the_feedback_print_a_wrong_value_alike():
    """The same wrong value against the same expected one: one text in both places."""
    exercise = EXERCISES["attention"]
    case = next(c for c in visible.visible_cases(exercise)
                if c.function == "softmax" and visible.shown_mistakes(c))
    wrong = np.asarray(visible.shown_mistakes(case)[next(iter(visible.shown_mistakes(case)))])
    hidden = expected_got(np.asarray(case.expected, dtype=float), wrong)   # the hidden check's words
    want, got = hidden.removeprefix("expected ").split(", got ", 1)
    from autograder.course import visible_cell
    _, lines = visible_cell._run_case("softmax", {"label": case.label, "run": lambda: wrong,
                                                  "expected": eval(visible._value(case.expected))})
    assert lines[0] == f"expected {want}" and lines[1].startswith(f"got      {got.split(' (')[0]}")


# -- in a real kernel, and through nbgrader validate ---------------------------------------
def _executed(nb, tmp_path):
    from nbclient import NotebookClient
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


@pytest.mark.slow
def test_run_all_in_a_kernel_runs_every_cell(tmp_path):
    exercise = EXERCISES["attention"]
    mistake = _mistake("attention", "no_sqrt_scaling")
    nb = _executed(filled_notebook(exercise, {mistake.function: mistake.code}), tmp_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)       # nothing stopped the run
    errors = {_gid(c) for c in code if any(o.output_type == "error" for o in c.outputs)}
    assert errors == {"visible_summary"}
    summary = next(c for c in code if _gid(c) == "visible_summary")
    assert SQRT in " ".join(next(o for o in summary.outputs if o.output_type == "error").evalue.split())


def _validate(path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    nbgrader = shutil.which("nbgrader", path=env["PATH"])
    assert nbgrader, "nbgrader is installed by scripts/setup.sh"
    shutil.copy(ROOT / "student" / "nbgrader_config.py", path.parent / "nbgrader_config.py")  # validate_all
    done = subprocess.run([nbgrader, "validate", path.name], cwd=path.parent, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


@pytest.mark.slow
def test_nbgrader_validate_shows_the_summary_cell_alone(tmp_path):
    exercise = EXERCISES["attention"]
    stub = tmp_path / "stub" / "attention.ipynb"
    stub.parent.mkdir()
    shutil.copy(exercise.release_notebook, stub)
    out = _validate(stub)
    # the stubs' own demonstration cells raise NotImplementedError; of the visible checks only
    # the summary cell is shown: no helper code, no check cell
    assert "VALIDATION FAILED ON" in out and "VisibleCheckFailed" in out, out
    assert "check_visible" not in out and "def _run_case" not in out and "_visible_cases" not in out
    assert "Failing: attention_matrix (4 checks)" in out

    mistake = _mistake("attention", "no_sqrt_scaling")
    wrong = tmp_path / "wrong" / "attention.ipynb"
    wrong.parent.mkdir()
    nbformat.write(filled_notebook(exercise, {mistake.function: mistake.code}), wrong)
    out = _validate(wrong)
    assert "VALIDATION FAILED ON 1 CELL(S)!" in out, out
    assert "Fix first" in out and SQRT in " ".join(out.split()) and len(out.splitlines()) < 40, out
