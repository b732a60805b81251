"""Realistic wrong implementations, one module per exercise, each with its expected grade.

Each exercise's ``exercises/<name>/hand_ins.py`` lists its ``MISTAKES`` (``Mistake``), the
ones the course text names (``NAMED``: label -> phrase the visible check prints) and the
demo class's hand-ins (``DEMO``: student -> labels). The tests hand each one in
(``tests/checks/test_mistakes.py``) and assert that exactly the listed checks fail and that the feedback names the misconception; the demo class hands
some of them in through nbgrader. A mistake's ``code`` replaces the whole solution cell
of its function; every other function is the reference.
"""
from dataclasses import dataclass
from importlib import import_module

from autograder.checks.declared import check_functions
from autograder.core.registry import EXERCISES


@dataclass(frozen=True)
class Mistake:
    """One misconception, written as code a student might hand in.

    Attributes:
        exercise: exercise name, e.g. "attention".
        function: the solution cell it replaces, e.g. "attention_row".
        label: short id, e.g. "no_sqrt_scaling".
        code: the wrong implementation (a whole cell of Python).
        failing: the function names of the checks that must fail (all others must pass),
            e.g. ``("check_row_weights",)``: rewording a check's description or feedback
            leaves the hand-ins alone. ``failing_checks`` gives their names as reports show them.
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

    @property
    def failing_checks(self):
        """The checks of ``failing`` by the names results and reports carry (``CheckMeta.name``,
        e.g. ``'attention_row: weights for "the cat"'``), a tuple of str in ``failing``'s order.

        Raises:
            ValueError: a name of ``failing`` is not a check function of the exercise's
                ``checks.py`` (the message lists the ones it has).
        """
        names = check_names(EXERCISES[self.exercise])
        unknown = [f for f in self.failing if f not in names]
        if unknown:
            raise ValueError(f"{self.id}: failing names {', '.join(unknown)}, not check functions of "
                             f"exercises/{self.exercise}/checks.py ({', '.join(names)})")
        return tuple(names[f] for f in self.failing)


def check_names(exercise):
    """``{check function name: check name}`` of ``exercise``'s checks, read from ``checks.py``'s
    syntax (``declared.check_functions``), e.g. ``{"check_row_weights": 'attention_row: weights
    for "the cat"', ...}``."""
    return {fn: meta.name for fn, meta in check_functions(exercise)}


def mistakes_module(exercise):
    """The module ``exercises/<name>/hand_ins.py`` of ``exercise`` (a ``registry.Exercise``).

    Raises:
        ModuleNotFoundError: the exercise has no ``hand_ins.py`` (every exercise needs one).
    """
    return import_module(exercise.mistakes_module)


def all_mistakes():
    """Every ``Mistake`` of every exercise, in course order.

    Raises:
        ModuleNotFoundError: an exercise has no ``hand_ins.py`` (never skipped in silence).
    """
    return [m for exercise in EXERCISES.values() for m in mistakes_module(exercise).MISTAKES]
