"""What a check is (``CheckMeta``), with nothing heavy imported: the grade command reads every
exercise's checks from their syntax (``checks/declared.py``) before it grades, to compare their points
with the gradebook's (``nbgrader_glue/points_guard.py``), and must not wait for numpy and pytest
there (``tests/project/test_import_cost.py``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckMeta:
    """What a check is worth and which student-facing function it is about.

    Attributes:
        function: the student-facing name, e.g. "attention_row".
        description: what is checked, e.g. 'weights for "the cat"'.
        points: points awarded when the check passes (float).
    """
    function: str
    description: str
    points: float

    @property
    def name(self):
        """The test name shown to students: ``"attention_row: weights for "the cat""``."""
        return f"{self.function}: {self.description}"
