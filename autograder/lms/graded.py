"""What a class run wrote, read back for the LMS files: grades of record and named mistakes.

``read(graded_dir)`` reads ``GRADED_DIR/grades.csv`` (``report.write_grades_csv``): per student
and assignment the final score (``score``: the checks' points, or the gradebook's total with
manual overrides, minus the late penalty, as ``nbgrader export`` computes it), ``max_score``,
``late`` and ``manual overrides``; rows whose ``problems`` say "not submitted" (a roster
student without a submission) have no score. The named mistakes come from each
``GRADED_DIR/<assignment>/<student>/results.json`` (``class_report.load``: the failed checks'
``extra_data.mistakes``, or the feedback's own sentence in an older file).

``load_items(path)`` reads the instructor's small mapping from our assignment names to the
LMS's grade items (``lms_items.csv``): columns ``assignment`` (ours, required), ``name`` (the
item's name in the LMS; default: ours) and ``canvas_id`` (Canvas's assignment id, digits).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from autograder.reports import csvsafe

NOT_SUBMITTED = "not submitted"
ITEM_COLUMNS = ("assignment", "name", "canvas_id")


class GradedError(ValueError):
    """GRADED_DIR has no readable grades.csv, or the items mapping is broken."""


@dataclass
class Grade:
    """One student's assignment as the class run recorded it.

    Attributes:
        student, assignment: ids as in grades.csv.
        score: the final score in points (``float``), None when not submitted.
        max_score: the assignment's points (``float``).
        late: points taken for lateness (``float``, 0 when on time).
        total: the checks' points (``float``; None when not submitted).
        overrides: the ``manual overrides`` text ("" when none).
        mistakes: ``[(function, mistake), ...]`` of the failed checks, each once, in check order.
        failed: ``[(function, earned, available), ...]`` of functions that lost points.
    """
    student: str
    assignment: str
    score: float | None
    max_score: float
    late: float = 0.0
    total: float | None = None
    overrides: str = ""
    mistakes: list = field(default_factory=list)
    failed: list = field(default_factory=list)


def unescape(text: str) -> str:
    """A grades.csv cell without the quote ``csvsafe.cell`` put in front of formula-like text."""
    if text.startswith("'") and text[1:].startswith(csvsafe.FORMULA_START):
        return text[1:]
    return text


def _number(text, what, where):
    try:
        return float(text)
    except (TypeError, ValueError):
        raise GradedError(f"{where}: {what} {text!r} is not a number") from None


def read(graded_dir) -> tuple:
    """The grades of record in ``graded_dir``.

    Args:
        graded_dir: the class run's output folder (``str`` or ``Path``).
    Returns:
        ``(grades, notes)``: ``{(student, assignment): Grade}`` and notes (``str``) about
        results.json files that could not be read.
    Raises:
        GradedError: no grades.csv, or a score that is not a number.
    """
    from autograder.reports.class_report import load
    root = Path(graded_dir)
    path = root / "grades.csv"
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GradedError(f"cannot read {path} (written by `python -m autograder grade`): {exc}") from None
    grades = {}
    for line, row in enumerate(rows, start=2):
        row = {k: unescape(v or "") for k, v in row.items() if k}
        where = f"{path}, line {line}"
        student, assignment = row.get("student_id", ""), row.get("assignment_id", "")
        if not student or not assignment:
            raise GradedError(f"{where}: no student_id or assignment_id")
        absent = NOT_SUBMITTED in [p.strip() for p in row.get("problems", "").split(";")] and not row.get("score")
        grades[(student, assignment)] = Grade(
            student, assignment,
            None if absent else _number(row.get("score"), "score", where),
            _number(row.get("max_score") or 0, "max_score", where),
            _number(row.get("late") or 0, "late", where),
            None if absent else _number(row.get("total") or 0, "total", where),
            row.get("manual overrides", ""))
    entries, notes = load(root)
    for e in entries:
        g = grades.get((e.student, e.assignment))
        if g is None or g.score is None:
            continue
        by_function = {}
        for t in e.tests:
            earned, available = by_function.get(t.function, (0.0, 0.0))
            by_function[t.function] = (earned + t.score, available + t.max_score)
            if not t.passed:
                for m in t.mistakes:
                    if (t.function, m) not in g.mistakes:
                        g.mistakes.append((t.function, m))
        g.failed = [(f, a, b) for f, (a, b) in by_function.items() if a < b]
    return grades, notes


@dataclass
class Item:
    """One LMS grade item: our ``assignment``, its LMS ``name``, Canvas's ``canvas_id`` ("" if none)."""
    assignment: str
    name: str
    canvas_id: str = ""


def load_items(path) -> list:
    """Read the assignment-to-LMS-item mapping (see the module docstring).

    Returns:
        list of ``Item`` in file order.
    Raises:
        GradedError: unreadable file, unknown column, missing or repeated assignment, or a
            ``canvas_id`` that is not digits; the message names the line.
    """
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GradedError(f"{path}: cannot read: {exc}") from None
    if not rows:
        raise GradedError(f"{path}: empty file (header: {', '.join(ITEM_COLUMNS)})")
    header = [h.strip() for h in rows[0]]
    unknown = [h for h in header if h not in ITEM_COLUMNS]
    if unknown or "assignment" not in header:
        raise GradedError(f"{path}, line 1: the columns must be among {', '.join(ITEM_COLUMNS)} with "
                          f"assignment required" + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
    items, seen, errors = [], {}, []
    for line, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        values = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
        a = values["assignment"]
        if not a:
            errors.append(f"line {line}: no assignment")
        elif a in seen:
            errors.append(f"line {line}: assignment {a!r} is also on line {seen[a]}")
        elif values.get("canvas_id") and not values["canvas_id"].isdigit():
            errors.append(f"line {line}: canvas_id {values['canvas_id']!r} is not a Canvas assignment id (digits)")
        else:
            seen[a] = line
            items.append(Item(a, values.get("name") or a, values.get("canvas_id", "")))
    if errors:
        raise GradedError(f"{path}: " + "; ".join(errors))
    return items


def number(x: float) -> str:
    """A score as a spreadsheet and an LMS read it: at most 2 decimals (Canvas shows 2), no
    trailing zeros ("12.5", "17")."""
    text = f"{round(x, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
