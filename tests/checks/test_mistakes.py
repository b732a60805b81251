"""Does each realistic mistake lose exactly its checks, with feedback that names it?"""
import pytest

from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes


def _tiered(mistakes):
    """The first mistake of each exercise in the quick tier, the others in the slow one."""
    seen = set()
    for m in mistakes:
        yield pytest.param(m, id=m.id, marks=() if m.exercise not in seen else pytest.mark.slow)
        seen.add(m.exercise)


@pytest.mark.parametrize("mistake", _tiered(all_mistakes()))
def test_mistake_loses_exactly_its_checks(mistake, hand_in):
    result = hand_in(EXERCISES[mistake.exercise], {mistake.function: mistake.code})
    failed = {c.name for c in result.checks if c.score < c.max_score}
    assert failed == set(mistake.failing_checks)
    outputs = [c.output for c in result.checks if c.name in failed]
    assert any(mistake.feedback in o for o in outputs), outputs
    assert result.score == result.max_score - sum(c.max_score for c in result.checks if c.name in failed)
