"""Do the hidden test cells (in-kernel, under nbgrader) give the same points as the child-process grader?"""
import pytest

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.nbgrader_glue.in_kernel import ChecksFailed, grade, student_id_from_cwd


def _namespace(exercise, replacements=None, stubs=()):
    """Execute a filled notebook's definitions in a fresh namespace, as a kernel would."""
    nb = filled_notebook(exercise, replacements, stubs)
    ns = {"__name__": "__main__"}
    for cell in nb.cells:
        if cell.cell_type == "code" and "nbgrader" in cell.metadata and cell.metadata["nbgrader"].get("solution"):
            exec(cell.source, ns)
        elif cell.cell_type == "code" and cell.source.startswith("import"):
            exec(cell.source, ns)
    return ns


@pytest.mark.parametrize("name", list(EXERCISES))
def test_reference_gets_every_point_in_the_kernel(name, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_SECRET", "incell")
    exercise = EXERCISES[name]
    ns = _namespace(exercise)
    from autograder.checks.declared import points_by_function
    for function, points in points_by_function(exercise).items():
        assert grade(name, function, namespace=ns, student_id="k1") == points


def test_a_mistake_earns_the_same_partial_points_in_the_kernel(monkeypatch, hand_in, capsys):
    monkeypatch.setenv("COURSE_SECRET", "incell")
    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    exercise = EXERCISES["attention"]
    ns = _namespace(exercise, {mistake.function: mistake.code})
    earned = grade("attention", "attention_row", namespace=ns, student_id="s1")
    out = capsys.readouterr().out
    assert earned == 1.0 and "sqrt(d_k)" in out


def test_no_points_raises_so_nbgrader_records_zero(monkeypatch):
    monkeypatch.setenv("COURSE_SECRET", "incell")
    exercise = EXERCISES["attention"]
    ns = _namespace(exercise, stubs=exercise.functions)
    with pytest.raises(ChecksFailed, match="not implemented"):
        grade("attention", "softmax", namespace=ns, student_id="k1")


def test_student_id_comes_from_nbgraders_autograded_folder(tmp_path):
    cwd = tmp_path / "autograded" / "alice" / "attention"
    cwd.mkdir(parents=True)
    assert student_id_from_cwd(cwd) == "alice"
    assert student_id_from_cwd(tmp_path) == "anonymous"
