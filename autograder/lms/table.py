"""What every LMS file holds: roster students down, LMS grade items across, grades of record.

``build`` joins the roster (``roster.py``), the class run's grades (``graded.py``) and the
instructor's items file into a ``Table``; ``canvas.py``, ``moodle.py``, ``brightspace.py`` and
``blackboard.py`` lay it out in their LMS's import format, and ``write`` writes a table of
cells through ``csvsafe`` (formula-like text gets a leading quote; the csv module quotes
commas, quotes and line breaks). Rules shared by every file:

* **Students** are matched by ``roster.student_key`` (a graded id that equals a roster id only
  without spaces, case or Unicode form is matched, with a note naming both); two graded ids
  with one key are refused, naming their grades.csv lines; a graded student missing from the
  roster is left out and listed in ``Table.unknown`` (the command prints them): an LMS id is
  never guessed from a name.
* **The grade** is ``grades.csv``'s ``score`` (after manual overrides and the late penalty, as
  nbgrader's gradebook counts it), written in the LMS item's scale: ``score * max / points``
  where ``max`` is the item's maximum in the LMS (the items file) and ``points`` the course's
  (the assignment's ``max_score``), rounded to 2 decimals. An item without ``max`` is refused.
* **Nothing held in the LMS is erased** unless asked (``missing``): an empty cell makes every
  one of these importers remove the grade the LMS holds, and a 0 replaces it, so by default
  (``"omit"``) a cell is written only where there is a grade. A roster student with no grade
  for any item is left out of the files (``Table.left_out``); a student with grades for some
  items only goes into one file per item (``Table.blocks``): ``canvas.csv`` holds the students
  graded on every item, ``canvas-<assignment>.csv`` the others, with that item's column only.
  ``"zero"`` writes 0 and ``"empty"`` an empty cell for every roster student without a
  submission, in one file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.lms.graded import GradedError, number, read
from autograder.lms.roster import student_key
from autograder.reports import csvsafe

MISSING = ("omit", "zero", "empty")


@dataclass
class Block:
    """One file's share of a ``Table``: ``suffix`` ("" for the main file, else the assignment
    whose file it is), its ``items`` and its ``rows`` (``[(Student, {assignment: Grade})]``)."""
    suffix: str
    items: list
    rows: list


@dataclass
class Table:
    """Attributes:
        items: the ``graded.Item`` columns, in the items file's order (each has ``max``).
        points: ``{assignment: the course's points}`` (the largest ``max_score`` seen).
        rows: ``[(roster.Student, {assignment: Grade})]`` in roster order, every roster
            student; the dict holds only the items the student has a grade for.
        unknown: ``[(student id, grades.csv line)]`` graded but not in the roster (left out).
        notes: what was matched by key, scaled or left out, and why (``str``).
        missing: ``"omit"``, ``"zero"`` or ``"empty"`` (see the module docstring).
    """
    items: list
    points: dict
    rows: list
    unknown: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    missing: str = "omit"

    def value(self, grade, item) -> float:
        """The grade of ``grade`` (a ``graded.Grade`` with a score) in ``item``'s scale (points, float)."""
        points = self.points[item.assignment]
        scaled = grade.score * item.max / points if points and abs(points - item.max) > 1e-9 else grade.score
        return round(scaled, 2)

    def cell(self, grade, item) -> str:
        """The grade cell: ``number(value)``, or for no grade "0" (``missing="zero"``) or ""."""
        if grade is None:
            return "0" if self.missing == "zero" else ""
        return number(self.value(grade, item))

    @property
    def left_out(self) -> list:
        """Roster students with no grade for any item (left out of every file when ``"omit"``)."""
        return [s for s, by in self.rows if not by]

    def missing_cells(self) -> int:
        """(student, item) pairs of roster students without a grade."""
        return sum(1 for _, by in self.rows for i in self.items if i.assignment not in by)

    def blocks(self) -> list:
        """The files' shares (``Block``), main file first; see the module docstring."""
        if self.missing != "omit":
            return [Block("", self.items, self.rows)]
        full = [(s, by) for s, by in self.rows if len(by) == len(self.items)]
        out = [Block("", self.items, full)]
        partial = [(s, by) for s, by in self.rows if by and len(by) < len(self.items)]
        for item in self.items:
            rows = [(s, by) for s, by in partial if item.assignment in by]
            if rows:
                out.append(Block(item.assignment, [item], rows))
        return out

    def out_of_range(self, low: float = 0.0) -> list:
        """``[(item, student, value)]`` of grades below ``low`` or above their item's maximum."""
        return [(i, s, self.value(by[i.assignment], i)) for s, by in self.rows for i in self.items
                if i.assignment in by and not (low - 1e-9 <= self.value(by[i.assignment], i) <= i.max + 1e-9)]


def build(graded_dir, roster, items, missing: str = "omit") -> Table:
    """The ``Table`` of ``graded_dir``'s grades for ``roster``.

    Args:
        graded_dir: the class run's output folder (grades.csv, results.json files).
        roster: a ``roster.Roster``.
        items: list of ``graded.Item`` (the items file). Items without grades and graded
            assignments without an item are left out, with a note.
        missing: ``"omit"`` (default), ``"zero"`` or ``"empty"`` (see the module docstring).
    Raises:
        graded.GradedError: no readable grades.csv; an item without ``max``; two graded ids
            that are one student by ``roster.student_key``.
        ValueError: an unknown ``missing``.
    """
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}, not {missing!r}")
    grades, notes = read(graded_dir)
    graded = {a for (_, a), g in grades.items() if g.score is not None}
    points: dict[str, float] = {}
    for (_, a), g in grades.items():
        points[a] = max(points.get(a, 0.0), g.max_score)
    for i in items:
        if i.assignment not in graded:
            notes.append(f"no grades for {i.assignment!r} in {graded_dir}: its column is left out")
    mapped = {i.assignment for i in items}
    for a in sorted(graded - mapped):
        notes.append(f"{a!r} is not in the items file: its grades are left out")
    items = [i for i in items if i.assignment in graded]
    without = [f"{i.assignment!r} (line {i.line}; the course's points: {number(points[i.assignment])})"
               for i in items if i.max is None]
    if without:
        raise GradedError("the items file gives no max (the item's maximum points in the LMS) for "
                          + ", ".join(without) + ": add a max column (`python -m autograder lms items` writes a "
                          "starting file)")
    for i in items:
        if abs(i.max - points[i.assignment]) > 1e-9:
            notes.append(f"{i.assignment!r} is written in its LMS item's scale: {number(points[i.assignment])} "
                         f"course points = {number(i.max)} in {i.name!r}")
    by_key: dict = {}  # (student key, assignment) -> the first Grade of that key
    errors = []
    for (sid, a), g in sorted(grades.items(), key=lambda kv: kv[1].line):
        if g.score is None:
            continue
        other = by_key.setdefault((student_key(sid), a), g)
        if other is not g:
            errors.append(f"{a}: student_id {other.student!r} (line {other.line}) and {sid!r} (line {g.line})")
    if errors:
        raise GradedError(f"{Path(graded_dir) / 'grades.csv'}: two graded students are one student once spaces, "
                          "case and Unicode form are set aside, and no LMS file can tell them apart: "
                          + "; ".join(errors))
    roster_keys = roster.by_key()
    rows = []
    for s in roster.students:
        key = student_key(s.student_id)
        by = {i.assignment: by_key[(key, i.assignment)] for i in items if (key, i.assignment) in by_key}
        for g in by.values():
            if g.student != s.student_id:
                notes.append(f"grades.csv line {g.line}: student_id {g.student!r} is roster line {s.line}'s "
                             f"{s.student_id!r} (the same once spaces, case and Unicode form are set aside)")
        rows.append((s, by))
    unknown = sorted({(g.student, g.line) for (key, a), g in by_key.items()
                      if key not in roster_keys and a in {i.assignment for i in items}}, key=lambda u: u[1])
    return Table(items, points, rows, unknown, list(dict.fromkeys(notes)), missing)


def output_path(out: Path, suffix: str) -> Path:
    """Where a ``Block`` with ``suffix`` is written: ``out`` itself, or ``<stem>-<suffix><ext>`` beside it."""
    return out if not suffix else out.with_name(f"{out.stem}-{suffix}{out.suffix}")


def write_blocks(table: Table, out, layout, writer) -> list:
    """Write each non-empty ``Block`` of ``table`` (``output_path``) and remove the files of an
    earlier run that this one does not write (an old ``canvas-attention.csv`` imported by
    mistake would put back old grades).

    Args:
        table: the ``Table``.
        out: the main file's path.
        layout: ``layout(block) -> (header, rows)``.
        writer: ``writer(path, header, rows) -> Path``.
    Returns:
        list of the ``Path`` written, main file first.
    """
    out = Path(out)
    written = []
    for block in table.blocks():
        path = output_path(out, block.suffix)
        if block.rows:
            header, rows = layout(block)
            written.append(writer(path, header, rows))
    for suffix in ["", *(i.assignment for i in table.items)]:
        path = output_path(out, suffix)
        if path not in written and path.is_file():
            path.unlink()
            table.notes.append(f"removed {path}, written by an earlier run: this run has no rows for it")
    return written


def write(path, header: list, rows: list, bom: bool, plain=()) -> Path:
    """Write ``header`` and ``rows`` (lists of cells) as comma-separated UTF-8.

    Every cell goes through ``csvsafe.cell`` except those at the column indexes in ``plain``
    (ids, written exactly as the LMS holds them: ``roster.load`` refuses ids that look like
    formulas).

    Args:
        path: the file to write (its folder is created).
        bom: start with a UTF-8 byte-order mark (so that Excel reads non-ASCII names as UTF-8).
        plain: indexes of columns written as they are.
    Returns:
        the ``Path`` written.
    """
    import csv
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
        w = csv.writer(f)
        for row in [header, *rows]:
            w.writerow([c if i in plain else csvsafe.cell(c) for i, c in enumerate(row)])
    return path
