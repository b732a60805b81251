"""Does each realistic mistake lose exactly its checks, with feedback that names it?"""
import pytest

from autograder.demo.mistakes import all_mistakes
from autograder.exercises import EXERCISES


@pytest.mark.parametrize("mistake", all_mistakes(), ids=lambda m: m.id)
def test_mistake_loses_exactly_its_checks(mistake, hand_in):
    result = hand_in(EXERCISES[mistake.exercise], {mistake.function: mistake.code})
    failed = {c.name for c in result.checks if c.score < c.max_score}
    assert failed == set(mistake.failing)
    outputs = [c.output for c in result.checks if c.name in failed]
    assert any(mistake.feedback in o for o in outputs), outputs
    assert result.score == result.max_score - sum(c.max_score for c in result.checks if c.name in failed)
