"""The same mistake costs the same points for every student.

Randomized cases are drawn per student, but each randomized check covers, for everyone, the
conditions under which each named mistake shows (a 2-D grid with axis=-1 for a softmax over
the wrong axis, scores past 1000 for one that overflows, ...). Each catalogued mistake
(``exercises/*/hand_ins.py``) of attention, next_token, kv_cache, embeddings and sampling is
graded in-kernel under 20 students' seeds, and of learned_attention under 10: each must get
ONE score.
"""
import pytest

from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
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


def test_a_transposed_similarity_grid_fails_the_random_grid_checks_under_every_draw():
    """A student's draw once held a square grid made symmetric by its two zero rows (n = m = 2,
    the zero rows at the same place), where the transpose is the right answer: no draw may give
    the grid checks a shape under which (m, n) cannot be told from (n, m)."""
    import numpy as np

    from autograder.checks.api import Mismatch
    from exercises.embeddings import checks
    transposed = next(m for m in _mistakes("embeddings") if m.label == "grid_transposed")
    namespace = {"np": np}
    exec(transposed.code, namespace)
    for seed in range(400):
        for check in (checks.check_grid_zero_rows, checks.check_grid_random):
            with pytest.raises(Mismatch):
                check(namespace["cosine_similarity_matrix"], np.random.default_rng(seed))
