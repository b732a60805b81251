"""Is every exercise folder complete, and does every exercise give the reference full marks
and untouched stubs zero, for any student?"""
import importlib

import pytest

from autograder.checks.declared import check_metas, points_by_function
from autograder.core.registry import EXERCISES, FILES, discover
from autograder.demo.corpus import STYLES
from autograder.demo.mistakes import mistakes_module


def total(exercise):
    """The points of ``exercise``: the sum of its checks' ``@check`` points."""
    return sum(points_by_function(exercise).values())


def test_the_course_has_its_seven_exercises_in_course_order():
    # the seven notebooks of the course, in the order its text teaches them
    assert list(EXERCISES) == ["tokens", "embeddings", "attention", "next_token", "kv_cache",
                               "learned_attention", "sampling"]


@pytest.mark.parametrize("name", list(EXERCISES))
def test_exercise_folder_holds_everything(name):
    exercise = EXERCISES[name]
    assert exercise.missing_files() == [], f"exercises/{name}/ lacks {exercise.missing_files()}"
    assert importlib.import_module(exercise.checks_module).__file__ == str(exercise.checks_file)


@pytest.mark.parametrize("name", list(EXERCISES))
def test_checks_add_up_to_the_points_the_course_promises(name):
    """``points`` of exercise.toml is typed by the course's author, apart from the checks:
    the two must agree (so neither a forgotten check nor a changed weight goes unnoticed)."""
    exercise = EXERCISES[name]
    assert exercise.points > 0
    assert total(exercise) == exercise.points
    assert set(points_by_function(exercise)) == set(exercise.functions), "a function without checks"


@pytest.mark.parametrize("name", list(EXERCISES))
def test_every_exercise_declares_its_mistakes_parity_entries_and_demo_hand_ins(name):
    exercise = EXERCISES[name]
    module = mistakes_module(exercise)
    labels = {m.label for m in module.MISTAKES}
    assert all(m.exercise == name and m.function in exercise.functions for m in module.MISTAKES)
    assert module.NAMED, f"exercises/{name}/hand_ins.py: NAMED lists no mistake of the course text"
    assert set(module.NAMED) <= labels, set(module.NAMED) - labels
    assert set(l for ls in module.DEMO.values() for l in ls) <= labels
    assert exercise.parity, f"exercises/{name}/exercise.toml: no [[parity]] entry"
    for entry in exercise.parity:
        assert entry["styles"] and set(entry["styles"]) <= set(STYLES), entry
        assert entry["layout"] in ("plain", "copy", "jupyter_copy", "renamed"), entry
        assert entry["mistake"] is None or entry["mistake"] in labels, entry


def test_a_folder_without_exercise_toml_is_an_error_not_a_skip(tmp_path):
    (tmp_path / "half_done").mkdir()
    (tmp_path / "half_done" / "notebook.py").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"half_done/exercise.toml: missing"):
        discover(tmp_path)
    (tmp_path / "half_done" / "exercise.toml").write_text('order = 1\ntitle = "x"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"missing key 'summary'.*missing key 'points'.*missing key 'functions'"):
        discover(tmp_path)
    (tmp_path / "half_done" / "exercise.toml").write_text(
        'order = 1\ntitle = "x"\nsummary = "y"\npoints = 1\nfunctions = ["f"]\n', encoding="utf-8")
    exercise = discover(tmp_path)["half_done"]
    assert exercise.missing_files() == [f for f in FILES if f not in ("exercise.toml", "notebook.py")]


@pytest.mark.parametrize("student", ["s1", pytest.param("s2", marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", list(EXERCISES))
def test_reference_gets_full_marks(name, student, graded_once):
    exercise = EXERCISES[name]
    result = graded_once(exercise, student=student)
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []
    assert result.score == result.max_score == exercise.points
    assert len(result.checks) == len(check_metas(exercise))
    assert result.notes == []


@pytest.mark.parametrize("name", list(EXERCISES))
def test_untouched_stubs_score_zero_with_not_implemented(name, graded_once):
    exercise = EXERCISES[name]
    result = graded_once(exercise, stubs=exercise.functions)
    assert result.score == 0 and result.max_score == exercise.points
    assert all("not implemented" in c.output for c in result.checks), [c.output for c in result.checks]


@pytest.mark.parametrize("name", list(EXERCISES))
def test_every_exercise_module_but_the_notebook_texts_is_at_most_400_lines(name):
    folder = EXERCISES[name].folder
    long = {p.name: n for p in folder.glob("*.py") if p.name != "notebook.py"
            for n in [len(p.read_text(encoding="utf-8").splitlines())] if n > 400}
    assert not long, f"exercises/{name}: split these by role (docs/authoring.md): {long}"


@pytest.mark.parametrize("name", list(EXERCISES))
def test_hand_ins_name_the_checks_they_must_fail_by_their_function_names(name):
    from autograder.checks.declared import check_functions
    checks = {fn for fn, _ in check_functions(EXERCISES[name])}
    for mistake in mistakes_module(EXERCISES[name]).MISTAKES:
        assert mistake.failing and set(mistake.failing) <= checks, (mistake.id, set(mistake.failing) - checks)
        assert len(mistake.failing_checks) == len(mistake.failing)
