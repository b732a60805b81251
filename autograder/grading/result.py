"""The grade of one notebook (``NotebookResult``): what grading, resuming, reports and the
gradebook pass around. A module of its own so that each of them can import it without
importing the grading engine."""
from dataclasses import dataclass, field


@dataclass
class NotebookResult:
    """The grade of one notebook of one student.

    Attributes:
        student_id, assignment_id: who and what (``str``).
        notebook: the notebook's file name.
        checks: list of ``plugin.CheckResult``.
        notes: messages about the whole notebook (cells that raised, a start-up failure).
        seconds: wall-clock time spent grading it.
        problems: ``set`` of ``problems.Problem`` of the whole notebook (see ``all_problems``).
        grader_log: tracebacks of grader errors, for the instructor's log (never shown to students).
        confinement: how its code ran: "bubblewrap+seccomp (a sandbox uid of its own)",
            "bubblewrap+seccomp (the grading user's uid)", "unconfined", or "not run"
            (``sandbox/bubblewrap.py``).
    """
    student_id: str
    assignment_id: str
    notebook: str
    checks: list
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    problems: set = field(default_factory=set)
    grader_log: list = field(default_factory=list)
    confinement: str = "not run"

    @property
    def all_problems(self):
        """The notebook's problems and those of its checks (a ``set`` of ``Problem``)."""
        found = set(self.problems)
        for c in self.checks:
            found |= set(c.problems)
        return found

    @property
    def score(self):
        return sum(c.score for c in self.checks)

    @property
    def max_score(self):
        return sum(c.max_score for c in self.checks)
