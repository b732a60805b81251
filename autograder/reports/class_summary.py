"""The class report's one pass over a class (``Summary``): every entry read once, in ``load``'s order,
and only what the page and its CSVs need kept, small, so that a class of 10,000 notebooks is drawn
without an ``Entry`` per notebook in memory (``class_load.Listing`` reads them one at a time).

Kept per notebook: its row of the students x checks grid, ``(marks, student, k, score)``: the
grid's cells as bytes (one letter a check, ``class_sections.CELLS``; equal rows one object), the
student's name (interned), ``k`` its place in the class (what its link is found by) and its points
(``None``: not attempted); its marks for the student's path (``families.marks``: shared, a tuple a
notebook). Per assignment: its check tallies (``class_stats.add_check_stats``) and how often each
check failed. Per named mistake: who made it. Only where there is something to show: a row of the
late-work, identical and problems tables (an index and a shared text).
"""
from __future__ import annotations

import sys
from array import array

from autograder.reports.class_stats import add_check_stats, mistake_rows

NOT_IN = ord("n")  # a check the notebook's results.json does not have (``class_sections.CELLS``)


def cell(test) -> str:
    """The grid's letter for one check (``class_load.Outcome``): ``n`` no such check, ``p``
    passed, ``s`` not attempted (the released stub), ``h`` some points, ``f`` failed."""
    if test is None:
        return "n"
    return "p" if test.passed else "s" if test.stub else "h" if test.score > 0 else "f"


class Group:
    """One assignment's figures: ``submitted`` (entries), ``top`` (the largest maximum score),
    ``scores`` (points of each attempted notebook, an ``array('d')``), ``stubs`` (notebooks not
    attempted), ``rows`` (the grid's rows, see the module docstring), ``fails`` (``{check name:
    failed checks}``, every failed check counted)."""

    __slots__ = ("submitted", "top", "scores", "stubs", "rows", "fails")

    def __init__(self):
        self.submitted, self.top, self.scores, self.stubs = 0, None, array("d"), 0
        self.rows: list = []
        self.fails: dict = {}


class Summary:
    """What the class report shows of a class, gathered entry by entry (``add``, in ``load``'s
    order: by assignment, then student).

    Attributes: ``count`` (entries), ``stats`` (``{assignment: {check name: CheckStats}}``),
    ``groups`` (``{assignment: Group}``), ``made`` (``{(assignment, function, mistake): {student:
    k}}``), ``late``, ``identical``, ``problems`` (``[(k, assignment, text), ...]``: the tables' rows), ``marks``
    (``{student: [(assignment, marks, k), ...]}``: every entry of each student).
    """

    def __init__(self):
        self.count = 0
        self.stats: dict = {}
        self.groups: dict = {}
        self.made: dict = {}
        self.late: list = []
        self.identical: list = []
        self.problems: list = []
        self.marks: dict = {}
        self._shared: dict = {}  # equal grid rows and texts: one object each

    @classmethod
    def of(cls, entries) -> Summary:
        """The ``Summary`` of ``entries`` (any iterable of ``Entry``, in ``load``'s order)."""
        summary = cls()
        for k, entry in enumerate(entries):
            summary.add(k, entry)
        return summary

    def _one(self, value):
        return self._shared.setdefault(value, value)

    def add(self, k: int, e) -> None:
        """Count entry ``e`` (an ``Entry``), the ``k``-th of the class (from 0)."""
        from autograder.reports.class_sections import is_identical, problem_text
        from autograder.reports.families import marks
        self.count += 1
        add_check_stats(self.stats, e)
        group = self.groups.get(e.assignment) or self.groups.setdefault(e.assignment, Group())
        group.submitted += 1
        group.top = e.max_score if group.top is None else max(group.top, e.max_score)
        if e.not_attempted:
            group.stubs += 1
        else:
            group.scores.append(e.score)
        for t in e.tests:
            if not t.passed:
                group.fails[t.name] = group.fails.get(t.name, 0) + 1
                for m in t.mistakes:
                    self.made.setdefault((e.assignment, t.function, m), {})[e.student] = k
        by = {t.name: t for t in e.tests}
        cells = "".join(cell(by.get(name)) for name in self.stats[e.assignment]).encode("ascii")
        student = sys.intern(e.student)
        group.rows.append((self._one(cells), student, k, None if e.not_attempted else e.score))
        assignment = sys.intern(e.assignment)
        if e.late:
            self.late.append((k, assignment, "; ".join(f"{key}: {v}" for key, v in e.late.items())))
        same = [p for p in sorted(e.problems) if is_identical(p)]
        if same:
            self.identical.append((k, assignment, self._one("; ".join(same))))
        if e.problems:
            self.problems.append((k, assignment, self._one(problem_text(e.problems))))
        self.marks.setdefault(student, []).append((assignment, marks(e), k))

    def mistakes(self) -> list:
        """The named mistakes as ``class_stats.mistake_table`` ranks them: ``(assignment, function,
        mistake, [(student, k), ...])``."""
        return mistake_rows(self.made)

    def paths(self, order: dict | None = None) -> dict:
        """``{student: [families.Step, ...]}`` (``families.student_paths``) from the marks kept."""
        from autograder.reports.families import path_of
        return {s: path_of([(a, m) for a, m, _ in group], order) for s, group in sorted(self.marks.items())}

    def handed_in(self, student: str) -> set:
        """The assignments ``student`` has an entry for."""
        return {a for a, _, _ in self.marks.get(student, ())}

    def place(self, student: str, assignment: str):
        """``k`` of ``student``'s entry for ``assignment``, or ``None``."""
        return next((k for a, _, k in self.marks.get(student, ()) if a == assignment), None)
