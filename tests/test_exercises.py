"""Does every exercise give the reference full marks and untouched stubs zero, for any student?"""
import pytest

from autograder.exercises import EXERCISES

# Points available per exercise (the sums of the @check points, fixed when each was written).
TOTALS = {"tokens": 23, "embeddings": 14, "attention": 19, "next_token": 17, "kv_cache": 15,
          "learned_attention": 21}


def test_every_exercise_has_a_total():
    assert set(TOTALS) == set(EXERCISES)


@pytest.mark.parametrize("student", ["s1", "s2"])
@pytest.mark.parametrize("name", list(EXERCISES))
def test_reference_gets_full_marks(name, student, hand_in):
    result = hand_in(EXERCISES[name], student=student)
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []
    assert result.score == result.max_score == TOTALS[name]
    assert result.notes == []


@pytest.mark.parametrize("name", list(EXERCISES))
def test_untouched_stubs_score_zero_with_not_implemented(name, hand_in):
    exercise = EXERCISES[name]
    result = hand_in(exercise, stubs=exercise.functions)
    assert result.score == 0 and result.max_score == TOTALS[name]
    assert all("not implemented" in c.output for c in result.checks), [c.output for c in result.checks]
