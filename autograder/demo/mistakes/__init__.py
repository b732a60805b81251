"""Realistic wrong implementations, one module per exercise, each with its expected grade.

Each exercise's ``exercises/<name>/mistakes.py`` lists its ``MISTAKES`` (``Mistake``), the
ones the course text names (``NAMED``: label -> phrase the visible check prints) and the
demo class's hand-ins (``DEMO``: student -> labels). The tests hand each one in
(``tests/checks/test_mistakes.py``) and assert that exactly the listed checks fail and that the feedback names the misconception; the demo class hands
some of them in through nbgrader. A mistake's ``code`` replaces the whole solution cell
of its function; every other function is the reference.
"""
from dataclasses import dataclass
from importlib import import_module

from autograder.course.registry import EXERCISES


@dataclass(frozen=True)
class Mistake:
    """One misconception, written as code a student might hand in.

    Attributes:
        exercise: exercise name, e.g. "attention".
        function: the solution cell it replaces, e.g. "attention_row".
        label: short id, e.g. "no_sqrt_scaling".
        code: the wrong implementation (a whole cell of Python).
        failing: descriptions of the checks that must fail (all others must pass).
        feedback: a phrase the feedback of at least one failing check must contain.
    """
    exercise: str
    function: str
    label: str
    code: str
    failing: tuple
    feedback: str

    @property
    def id(self):
        return f"{self.exercise}-{self.label}"


def mistakes_module(exercise):
    """The module ``exercises/<name>/mistakes.py`` of ``exercise`` (an ``exercises.Exercise``).

    Raises:
        ModuleNotFoundError: the exercise has no ``mistakes.py`` (every exercise needs one).
    """
    return import_module(exercise.mistakes_module)


def all_mistakes():
    """Every ``Mistake`` of every exercise, in course order.

    Raises:
        ModuleNotFoundError: an exercise has no ``mistakes.py`` (never skipped in silence).
    """
    return [m for exercise in EXERCISES.values() for m in mistakes_module(exercise).MISTAKES]
