"""The same mistake costs the same points for every student.

Randomized cases are drawn per student, but each randomized check covers, for everyone, the
conditions under which each named mistake shows (a 2-D grid with axis=-1 for a softmax over
the wrong axis, scores past 1000 for one that overflows, ...). Each catalogued mistake
(``exercises/*/hand_ins.py``) of attention, next_token, kv_cache, embeddings and sampling is
graded in-kernel under 20 students' seeds, and of learned_attention under 10: each must get
ONE score. Each randomized check (one that takes ``rng``) is then called alone under 2,000 draws
(learned_attention's under 300) for every catalogued mistake it must catch: it must fail under
every one. (load_class.py's classes and these draws found a transposed similarity grid passing
when both zero rows fell at the same place, a missing sqrt(d_k) passing when d_k = 1, an unshifted
softmax passing when the scores stayed below exp's limit, a generate that feeds the model the
newest id passing when both rows had the same top word, a count-sorted dict passing when the
pairs were first met in count order.)
"""
import importlib
import inspect

import numpy as np
import pytest

from autograder.checks.api import Excused, Mismatch
from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
from autograder.sandbox.limits import StudentCodeError
from autograder.submission.local import LocalSubmission

SECRET = b"test-secret"
STUDENTS = [f"student{i:02d}" for i in range(20)]


def _mistakes(exercise):
    from autograder.demo.mistakes import all_mistakes
    return [m for m in all_mistakes() if m.exercise == exercise]


def _score(exercise, code, student):
    """The total of ``exercise``'s checks for the reference with ``code`` run over it, graded
    in-kernel (``LocalSubmission``) for ``student``."""
    ex = EXERCISES[exercise]
    namespace = {"__name__": "__main__"}
    exec(compile(ex.solution_module.read_text(), str(ex.solution_module), "exec"), namespace)
    exec(code, namespace)
    return sum(r.score for r in run_checks(ex, LocalSubmission(namespace), student, SECRET))


@pytest.mark.slow
@pytest.mark.parametrize("mistake", _mistakes("attention") + _mistakes("next_token") + _mistakes("kv_cache")
                         + _mistakes("embeddings") + _mistakes("sampling"), ids=lambda m: m.id)
def test_one_score_per_mistake_whoever_hands_it_in(mistake):
    scores = {student: _score(mistake.exercise, mistake.code, student) for student in STUDENTS}
    assert len(set(scores.values())) == 1, scores
    assert scores[STUDENTS[0]] < EXERCISES[mistake.exercise].points  # the mistake costs something


@pytest.mark.slow
@pytest.mark.parametrize("mistake", _mistakes("learned_attention"), ids=lambda m: m.id)
def test_one_score_per_training_mistake_whoever_hands_it_in(mistake):
    """learned_attention's checks train a model (2 to 9 s a student): 10 students' seeds."""
    scores = {student: _score(mistake.exercise, mistake.code, student) for student in STUDENTS[:10]}
    assert len(set(scores.values())) == 1, scores
    assert scores[STUDENTS[0]] < EXERCISES[mistake.exercise].points


def test_a_softmax_over_the_wrong_axis_costs_the_same_for_everyone():
    """The student of the issue: his draw had no 2-D case with axis=-1. Now every draw has one."""
    mistake = next(m for m in _mistakes("attention") if m.label == "first_axis_always")
    scores = {_score("attention", mistake.code, student) for student in STUDENTS}
    assert scores == {EXERCISES["attention"].points - 2}


def _randomized_pairs():
    """``(mistake, check function name)`` for each check of a mistake's ``failing`` that takes ``rng``."""
    from autograder.demo.mistakes import all_mistakes
    pairs = []
    for m in all_mistakes():
        checks = importlib.import_module(f"exercises.{m.exercise}.checks")
        pairs += [(m, name) for name in m.failing if "rng" in inspect.signature(getattr(checks, name)).parameters]
    return pairs


def _argument(name, submission, rng):
    """What the grading gives a check's parameter ``name`` (``autograder/checks/conftest.py``)."""
    if name == "submission":
        return submission
    if name == "rng":
        return rng
    if name[:1].isupper():
        return lambda *args, **kwargs: submission.new(name, *args, **kwargs)
    return submission.function(name)


@pytest.mark.slow
@pytest.mark.parametrize("mistake, check", _randomized_pairs(), ids=lambda v: getattr(v, "id", v))
def test_each_randomized_check_catches_its_mistakes_under_every_draw(mistake, check):
    ex = EXERCISES[mistake.exercise]
    namespace = {"__name__": "__main__"}
    exec(compile(ex.solution_module.read_text(), str(ex.solution_module), "exec"), namespace)
    exec(mistake.code, namespace)
    submission = LocalSubmission(namespace)
    function = getattr(importlib.import_module(f"exercises.{mistake.exercise}.checks"), check)
    passed = []
    with np.errstate(all="ignore"):
        for seed in range(300 if mistake.exercise == "learned_attention" else 2000):
            rng = np.random.default_rng(seed)
            try:
                function(**{p: _argument(p, submission, rng) for p in inspect.signature(function).parameters})
            except Excused:
                passed.append(seed)
            except (Mismatch, StudentCodeError):  # caught (a mistake that raises on the draw is caught too)
                continue
            else:
                passed.append(seed)
    assert passed == [], f"{mistake.id} passes {check} under the draws of seeds {passed[:10]}"
