"""Realistic wrong implementations, one module per exercise, each with its expected grade.

The tests hand each one in (``tests/test_mistakes.py``) and assert that exactly the
listed checks fail and that the feedback names the misconception; the demo class hands
some of them in through nbgrader. A mistake's ``code`` replaces the whole solution cell
of its function; every other function is the reference.
"""
from dataclasses import dataclass
from importlib import import_module

from ...exercises import EXERCISES


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


def all_mistakes():
    """Every ``Mistake`` of every exercise that has a mistakes module."""
    found = []
    for name in EXERCISES:
        try:
            module = import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        found += module.MISTAKES
    return found
