"""One bug, charged once, in every notebook.

Every function whose reference calls another student function declares it
(``Exercise.helpers``), and a realistic mistake in such a helper (from the mistakes
catalogue) loses only the helper's points: each caller's checks keep theirs, and their
feedback names the helper.
"""
import ast

import pytest

from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes


def _student_calls(exercise):
    """``{function: sorted student functions its reference names}``, read from the reference's
    source (an independent reading of the code, not the helper map)."""
    tree = ast.parse(exercise.solution_module.read_text())
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    found = {}
    for function in exercise.functions:
        named = {n.id for n in ast.walk(defs[function]) if isinstance(n, ast.Name)}
        calls = sorted((named & set(exercise.functions)) - {function})
        if calls:
            found[function] = calls
    return found


def _reached(exercise, function):
    """Every student function ``function``'s reference reaches, directly or through another."""
    direct = _student_calls(exercise)
    seen, todo = set(), list(direct.get(function, ()))
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo += direct.get(f, ())
    return seen


@pytest.mark.parametrize("name", list(EXERCISES))
def test_every_reference_call_of_a_student_function_is_declared(name):
    exercise = EXERCISES[name]
    for function, calls in _student_calls(exercise).items():
        assert set(calls) <= set(exercise.helpers.get(function, ())), (function, calls)
    for function, declared in exercise.helpers.items():
        assert set(declared) == _reached(exercise, function), function


def test_learned_attention_declares_the_training_step_helpers():
    helpers = EXERCISES["learned_attention"].helpers
    assert set(helpers["train_step"]) == {"model_forward", "attention_backward", "positional_encoding"}
    assert set(helpers["model_forward"]) == {"positional_encoding"}
    # softmax is given in that notebook (not a student function), so it is no helper there
    assert "softmax" not in EXERCISES["learned_attention"].functions


def _helper_mistakes():
    """One catalogued mistake per helper that some caller uses, per notebook."""
    chosen = {}
    for m in all_mistakes():
        callers = [f for f, hs in EXERCISES[m.exercise].helpers.items() if m.function in hs]
        if callers and (m.exercise, m.function) not in chosen:
            chosen[(m.exercise, m.function)] = m
    return list(chosen.values())


HELPER_MISTAKES = _helper_mistakes()


def test_every_notebook_with_helpers_has_a_helper_mistake():
    assert {m.exercise for m in HELPER_MISTAKES} == {n for n, e in EXERCISES.items() if e.helpers}


def _tiered(mistakes):
    """The first helper mistake of each exercise in the quick tier, the others in the slow one."""
    seen = set()
    for m in mistakes:
        yield pytest.param(m, id=m.id, marks=() if m.exercise not in seen else pytest.mark.slow)
        seen.add(m.exercise)


@pytest.mark.parametrize("mistake", _tiered(HELPER_MISTAKES))
def test_a_helper_bug_loses_only_the_helpers_points(mistake, hand_in):
    exercise = EXERCISES[mistake.exercise]
    result = hand_in(exercise, {mistake.function: mistake.code})
    lost = {c.function for c in result.checks if c.score < c.max_score}
    assert lost == {mistake.function}
    helper_points = sum(c.max_score for c in result.checks if c.function == mistake.function)
    assert result.score >= result.max_score - helper_points
    assert result.score < result.max_score
    # at least one caller's check saw the wrong values and says whose they are
    excused = [c for c in result.checks if c.function != mistake.function
               and c.output.startswith(f"passed on account of {mistake.function}")]
    assert excused, [c.output for c in result.checks]


def test_a_missing_backward_scale_costs_attention_backward_alone(hand_in):
    """The student report's case: attention_backward without its 1/sqrt(d_k), train_step right."""
    mistake = next(m for m in all_mistakes() if m.id == "learned_attention-backward_scaling_dropped")
    result = hand_in(EXERCISES["learned_attention"], {mistake.function: mistake.code})
    by_function = {}
    for c in result.checks:
        got, most = by_function.get(c.function, (0.0, 0.0))
        by_function[c.function] = (got + c.score, most + c.max_score)
    from autograder.checks.declared import points_by_function
    train_points = points_by_function(EXERCISES["learned_attention"])["train_step"]
    assert by_function["train_step"] == (train_points, train_points)  # all of train_step's points kept
    assert by_function["attention_backward"] == (1.0, 4.0)   # d_weights and d_V do not see the scale
    train = [c for c in result.checks if c.function == "train_step"]
    assert all("attention_backward" in c.output for c in train if c.output)
    assert sum(bool(c.output) for c in train) >= 5   # every softmax-path step saw the wrong gradients


def test_in_the_kernel_a_helper_bug_is_charged_once_too(monkeypatch, capsys):
    """nbgrader's hidden-test cells (``in_kernel.grade``, one per function, in notebook order)."""
    from autograder.checks.declared import points_by_function
    from autograder.nbgrader_glue.in_kernel import grade
    from tests.nbgrader_glue.test_incell import _namespace
    monkeypatch.setenv("COURSE_SECRET", "incell")
    mistake = next(m for m in all_mistakes() if m.id == "learned_attention-sine_cosine_swapped")
    exercise = EXERCISES["learned_attention"]
    ns = _namespace(exercise, {mistake.function: mistake.code})
    points = points_by_function(exercise)
    earned = {}
    for function in ("positional_encoding", "model_forward", "attention_backward", "train_step"):
        try:
            earned[function] = grade(exercise.name, function, namespace=ns, student_id="k1")
        except AssertionError:
            earned[function] = 0.0
    out = capsys.readouterr().out
    assert earned["positional_encoding"] == 0.0
    assert earned["model_forward"] == points["model_forward"]
    assert earned["train_step"] == points["train_step"]
    assert "passed on account of positional_encoding" in out
