"""Without a bounded scratch the setuid level grades one submission per container.

Where the grader cannot mount a tmpfs (no CAP_SYS_ADMIN, as in most containers), the setuid
level's scratch lies on the container's disk with only each file capped, and a child can fill
that disk. Before, the grader went on to the next submission in the same container regardless.
Now the first submission claims the container and any other is refused with a message saying
what to do (``sandbox/one_submission.py``). This machine can mount a tmpfs, so the tests reach
the unbounded case through the tests-only switch ``AUTOGRADER_TEST_WITHOUT_TMPFS=1``.
"""
import pytest

from autograder.core.registry import EXERCISES
from autograder.sandbox import one_submission
from autograder.sandbox.limits import Limits
from autograder.sandbox.setuid import _scratch_base
from autograder.submission.remote import ChildSubmission, SandboxUnavailable

CELLS = [(1, "def f(x):\n    return x + 1\n")]


def _limits(level):
    return Limits(call_seconds=10.0, retry_seconds=5.0, cell_seconds=10.0, level=level)


@pytest.fixture
def fresh_container(monkeypatch):
    one_submission.release(_scratch_base())
    yield monkeypatch
    one_submission.release(_scratch_base())


def _answer(level, student):
    """What ``f(1)`` returns in a child started for ``student``, or the refusal's text."""
    with one_submission.grading(student):
        try:
            with ChildSubmission(CELLS, _limits(level)) as sub:
                return sub.function("f")(1)
        except Exception as exc:
            return str(exc)


def test_without_a_tmpfs_a_second_submission_is_refused(fresh_container):
    fresh_container.setenv(one_submission.WITHOUT_TMPFS, "1")
    assert _answer("setuid", "s1") == 2
    assert _answer("setuid", "s1") == 2            # the same submission again: its own container
    refused = _answer("setuid", "s2")
    assert "one submission per container" in refused, refused
    assert "bubblewrap" in refused and "CAP_SYS_ADMIN" in refused


def test_with_a_tmpfs_every_submission_is_graded(fresh_container):
    assert _answer("setuid", "s1") == 2
    assert _answer("setuid", "s2") == 2


def test_the_bubblewrap_level_always_has_a_bounded_scratch(fresh_container):
    fresh_container.setenv(one_submission.WITHOUT_TMPFS, "1")
    assert _answer("bubblewrap", "s1") == 2
    assert _answer("bubblewrap", "s2") == 2


def test_the_grading_path_refuses_the_second_student(fresh_container, hand_in):
    """Through ``grade_notebook`` (which names the submission): the first student is graded in
    full; the second is refused before any of its code runs, with the reason (a class run
    records it as a grader error for that notebook and goes on: ``workers.grade_job``)."""
    fresh_container.setenv(one_submission.WITHOUT_TMPFS, "1")
    tokens = EXERCISES["tokens"]
    first = hand_in(tokens, student="s1", limits=_limits("setuid"))
    assert first.score == first.max_score
    with pytest.raises(SandboxUnavailable, match="one submission per container"):
        hand_in(tokens, student="s2", limits=_limits("setuid"))
