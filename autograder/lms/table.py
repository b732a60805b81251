"""What every LMS file holds: the roster's students down, the assignments across, grades of record.

``build`` joins the roster (``roster.py``), the class run's grades (``graded.py``) and the
instructor's item mapping into a ``Table``; ``canvas.py``, ``moodle.py`` and
``brightspace.py`` lay it out in their LMS's import format, and ``write`` writes it through
``csvsafe`` (formula-like text gets a leading quote; the csv module quotes commas, quotes and
line breaks). Rules shared by the three files:

* one row per roster student, in roster order: a student without a submission gets an empty
  grade cell (the LMS then records no grade), or 0 with ``zeros=True``;
* a graded student missing from the roster is left out and listed in ``Table.unknown`` (the
  command prints them): an LMS id is never guessed from a name;
* the grade is ``grades.csv``'s ``score``: the final score after manual overrides and the late
  penalty, as nbgrader's gradebook counts it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.lms.graded import Grade, Item, number, read
from autograder.reports import csvsafe


@dataclass
class Table:
    """Attributes:
        items: the ``Item`` columns, in order.
        points: ``{assignment: points possible}`` (the largest ``max_score`` seen).
        rows: ``[(roster.Student, {assignment: Grade or None}), ...]`` in roster order.
        unknown: sorted student ids graded but not in the roster (left out).
        notes: what was left out and why (``str``).
        zeros: write 0 instead of an empty cell for "not submitted".
    """
    items: list
    points: dict
    rows: list
    unknown: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    zeros: bool = False

    def cell(self, grade: Grade | None) -> str:
        """The grade cell: the final score (``graded.number``), or "" (``zeros``: "0") when not submitted."""
        if grade is None or grade.score is None:
            return "0" if self.zeros else ""
        return number(grade.score)

    def missing(self) -> int:
        """How many (student, item) cells have no submission."""
        return sum(1 for _, by in self.rows for i in self.items if by.get(i.assignment) is None
                   or by[i.assignment].score is None)


def build(graded_dir, roster, items=None, zeros: bool = False) -> Table:
    """The ``Table`` of ``graded_dir``'s grades for ``roster``.

    Args:
        graded_dir: the class run's output folder (grades.csv, results.json files).
        roster: a ``roster.Roster``.
        items: list of ``graded.Item`` (the instructor's mapping), or None: every graded
            assignment, named as ours, in name order. Items without grades and assignments
            without an item are left out, with a note.
        zeros: 0 instead of an empty cell for a student who did not submit.
    Raises:
        graded.GradedError: no readable grades.csv.
    """
    grades, notes = read(graded_dir)
    assignments = sorted({a for _, a in grades})
    if items is None:
        items = [Item(a, a) for a in assignments]
    else:
        mapped = {i.assignment for i in items}
        for i in items:
            if i.assignment not in assignments:
                notes.append(f"no grades for {i.assignment!r} in {graded_dir}: its column is left out")
        for a in assignments:
            if a not in mapped:
                notes.append(f"{a!r} is not in the items mapping: its grades are left out")
        items = [i for i in items if i.assignment in assignments]
    points = {}
    for (_, a), g in grades.items():
        points[a] = max(points.get(a, 0.0), g.max_score)
    known = set(roster.ids())
    rows = [(s, {i.assignment: grades.get((s.student_id, i.assignment)) for i in items}) for s in roster.students]
    unknown = sorted({sid for (sid, a), g in grades.items() if sid not in known and g.score is not None})
    return Table(items, points, rows, unknown, notes, zeros)


def feedback(grade: Grade | None) -> str:
    """Feedback for the LMS, one line: the points, each named mistake in a sentence, the late
    penalty and manual overrides. "" for a student who did not submit."""
    if grade is None or grade.score is None:
        return ""
    parts = [f"{number(grade.score)} of {number(grade.max_score)} points."]
    named = {f for f, _ in grade.mistakes}
    for function, mistake in grade.mistakes:
        parts.append(f"{function}: your result is the one you get when you {mistake.rstrip('.')}.")
    for function, earned, available in grade.failed:
        if function not in named:
            parts.append(f"{function}: {number(earned)} of {number(available)} points; your report shows "
                         "which checks failed and why.")
    if grade.overrides:
        parts.append(f"A grader's score counts instead of the automatic one: {grade.overrides}.")
    if grade.late > 0:
        unit = "point" if number(grade.late) == "1" else "points"
        parts.append(f"Late work: the course's late-work policy took {number(grade.late)} {unit}.")
    return " ".join(parts)


def write(path, header: list, rows: list, bom: bool) -> Path:
    """Write ``header`` and ``rows`` (lists of cells) as CSV, every cell through ``csvsafe``.

    Args:
        path: the file to write (its folder is created).
        bom: start with a UTF-8 byte-order mark (so that Excel reads non-ASCII names as UTF-8).
    Returns:
        the ``Path`` written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        w = csvsafe.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path
