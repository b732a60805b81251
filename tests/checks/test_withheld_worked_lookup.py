"""``checks/withheld.is_worked`` computes a worked value only when it could match.

Deciding whether a failing fixed check may show its expected value compares that value with the
exercise's worked values. Computing all of them costs seconds for learned_attention (two
1,000-step training runs), paid by every grading process that meets a failing fixed check; now a
value is computed only when its printed figure is near the expected one. These tests hold the
lazy lookup to the plain one: every worked value computed, compared to ``WORKED_ATOL``.
"""
import numpy as np
import pytest

from autograder.checks import withheld
from autograder.checks.api import WORKED_ATOL
from autograder.checks.sameness import same_value
from autograder.core.registry import EXERCISES
from autograder.core.worked import reference, worked_values


def _plain_is_worked(expected, exercise):
    """The lookup without any shortcut: every printed figure and every computed value."""
    ref = reference(exercise)
    candidates = []
    for w in worked_values(exercise):
        candidates += [w.printed, w.value(ref)]
    for v in candidates:
        try:
            x, y = np.asarray(expected), np.asarray(v)
            if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
                if x.shape == y.shape and np.all(np.abs(x - y) <= WORKED_ATOL):
                    return True
                continue
        except (ValueError, TypeError):
            pass
        if same_value(expected, v):
            return True
    return False


def _probes(exercise):
    """Values to look up: each worked value as computed, nudged just inside and just outside
    ``WORKED_ATOL`` when numeric, and as printed."""
    ref = reference(exercise)
    for w in worked_values(exercise):
        value = w.value(ref)
        yield w.printed
        yield value
        try:
            array = np.asarray(value, dtype=float)
        except (ValueError, TypeError):
            continue
        yield (array + 0.5 * WORKED_ATOL).tolist()
        yield (array + 3 * WORKED_ATOL).tolist()
        yield (array * 2 + 1).tolist()


@pytest.mark.parametrize("name", ["attention", "embeddings", "next_token", "sampling", "tokens", "kv_cache"])
def test_lazy_lookup_agrees_with_the_plain_one(name):
    exercise = EXERCISES[name]
    for expected in _probes(exercise):
        assert withheld.is_worked(expected, exercise) == _plain_is_worked(expected, exercise), expected


@pytest.mark.slow
def test_lazy_lookup_agrees_with_the_plain_one_learned_attention():
    exercise = EXERCISES["learned_attention"]
    for expected in _probes(exercise):
        assert withheld.is_worked(expected, exercise) == _plain_is_worked(expected, exercise), expected


def test_a_scalar_does_not_train_the_model():
    """A failing fixed check of learned_attention whose expected value is one loss (a scalar)
    cannot be the list of seven losses: the 1,000-step runs are not computed for it."""
    exercise = EXERCISES["learned_attention"]
    withheld._COMPUTED.clear()
    assert not withheld.is_worked(0.123456, exercise)
    trained = [w for w in worked_values(exercise) if "loss at steps" in w.what]
    assert trained and all(id(w) not in withheld._COMPUTED for w in trained)
