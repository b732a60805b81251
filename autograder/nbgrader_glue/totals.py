"""What the gradebook makes of a recorded submission: its ``Totals`` (as ``nbgrader export`` counts
them) and each grader's manual ``Override`` among them (``nbgrader_glue/gradebook.py`` fills them)."""
from dataclasses import dataclass, field


@dataclass
class Override:
    """A grade cell whose manual score (formgrader's) replaces the automatic one.

    Attributes:
        notebook: the notebook's file name (``attention.ipynb``).
        cell: its grade id (``test_attention_row``).
        manual: the manual score (points, ``float``), the one nbgrader counts.
        automatic: the automatic score just recorded (points).
        previous: the automatic score the gradebook held before (``None``: none).
        stale: the automatic score changed since the manual score was given (or nbgrader
            flagged the cell for review after an earlier regrade, ``needs_manual_grade``),
            so the grader gave it for an earlier submission.
    """
    notebook: str
    cell: str
    manual: float
    automatic: float
    previous: float | None = None
    stale: bool = False

    def describe(self):
        """One line for grades.csv and the student's report, e.g. ``test_attention_row: manual 3
        replaces automatic 5 (given before the automatic score changed from 1)``."""
        text = f"{self.cell}: manual {self.manual:g} replaces automatic {self.automatic:g}"
        if self.stale:
            was = (f"changed from {self.previous:g}" if self.previous is not None
                   and abs(self.previous - self.automatic) > 1e-9 else "was regraded")
            text += f" (given before the automatic score {was})"
        return text


@dataclass
class Totals:
    """One student's assignment as the gradebook counts it after recording (``nbgrader export``'s numbers).

    Attributes:
        raw: the submission's score in points: every grade cell's score, the manual
            score where a grader gave one (nbgrader's ``SubmittedAssignment.score``).
        late_penalty: points taken for lateness by the course's ``LateSubmissionPlugin``
            (nbgrader's ``late_submission_penalty``; 0 when on time or no policy).
        max_score: the assignment's points available in the gradebook.
        overrides: list of ``Override`` of this submission.
    """
    raw: float
    late_penalty: float
    max_score: float
    overrides: list = field(default_factory=list)

    @property
    def score(self):
        """The final score, as ``nbgrader export`` computes it: ``max(0, raw - late_penalty)``
        (nbgrader/plugins/export.py, CsvExportPlugin)."""
        return max(0.0, self.raw - self.late_penalty)

    def notes(self):
        """Notes for the student's report: ``manual overrides: ...`` and ``late: ...`` (empty list if neither)."""
        notes = []
        if self.overrides:
            notes.append("manual overrides: " + "; ".join(o.describe() for o in self.overrides)
                         + f". A grader's score counts where one was given: {self.raw:g} of {self.max_score:g} points")
        if self.late_penalty > 0:
            notes.append(f"late: the course's late-work policy takes {self.late_penalty:g} points: "
                         f"final score {self.score:g} of {self.max_score:g}")
        return notes
