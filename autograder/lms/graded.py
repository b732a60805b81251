"""What a class run wrote, read back for the LMS files: grades of record and named mistakes.

``read(graded_dir)`` reads ``GRADED_DIR/grades.csv`` (``console.write_grades_csv``): per student
and assignment the final score (``score``: the checks' points, or the gradebook's total with
manual overrides, minus the late penalty, as ``nbgrader export`` computes it), ``max_score``,
``late`` and ``manual overrides``; rows whose ``problems`` say "not submitted" (a roster
student without a submission) have no score. The named mistakes come from each
``GRADED_DIR/<assignment>/<student>/results.json`` (``class_load.load``: the failed checks'
``extra_data.mistakes``, or the feedback's own sentence in an older file).

``load_items(path)`` reads the instructor's mapping from our assignment names to the LMS's
grade items (``lms_items.csv``), one row per item:

=================  ==============================================================================
column             meaning
=================  ==============================================================================
assignment         ours (nbgrader's assignment name); required
name               the item's name in the LMS (default: ours): Moodle's and Brightspace's files
                   name their columns by it; Canvas's and Blackboard's show it only
max                the item's maximum points in the LMS; required: every file is written in
                   this scale (a score of 17 of 19 course points is 89.47 in an item worth 100)
canvas_id          Canvas's assignment id (the number in the assignment's address); Canvas
blackboard_id      the Grade Center column id (the number after ``|`` in the column's name in
                   Blackboard's own download); Blackboard
moodle_idnumber    the grade item's "ID number" in Moodle; Moodle's XML file
=================  ==============================================================================

``write_items(graded_dir, path)`` writes a starting file from the class run: each graded
assignment, named as ours, with the course's points as ``max`` (``python -m autograder lms
items``).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from autograder.lms.roster import student_key
from autograder.reports import csvsafe

NOT_SUBMITTED = "not submitted"
ITEM_COLUMNS = ("assignment", "name", "max", "canvas_id", "blackboard_id", "moodle_idnumber")


class GradedError(ValueError):
    """GRADED_DIR has no readable grades.csv, or the items mapping is broken."""


@dataclass
class Lost:
    """A function that lost points: ``function``, ``earned`` and ``available`` (points), the
    names of its failed ``checks``, and ``stub`` (every failed check met the released stub)."""
    function: str
    earned: float
    available: float
    checks: list
    stub: bool = False


@dataclass
class Grade:
    """One student's assignment as the class run recorded it.

    Attributes:
        student, assignment: ids as in grades.csv.
        line: its line in grades.csv (1 = header).
        score: the final score in points (``float``), None when not submitted.
        max_score: the assignment's points (``float``).
        late: points taken for lateness (``float``, 0 when on time).
        total: the checks' points (``float``; None when not submitted).
        overrides: the ``manual overrides`` text ("" when none).
        mistakes: ``[(function, mistake), ...]`` of the failed checks, each once, in check order.
        failed: ``Lost`` of each function that lost points, in check order.
    """
    student: str
    assignment: str
    score: float | None
    max_score: float
    line: int = 0
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
    from autograder.reports.class_load import load
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
            _number(row.get("max_score") or 0, "max_score", where), line,
            _number(row.get("late") or 0, "late", where),
            None if absent else _number(row.get("total") or 0, "total", where),
            row.get("manual overrides", ""))
    by_key: dict[tuple[str, str], list[Grade]] = {}
    for (student, assignment), grade in grades.items():
        by_key.setdefault((student_key(student), assignment), []).append(grade)
    entries, notes = load(root)
    for e in entries:
        found = by_key.get((student_key(e.student), e.assignment), [])
        g = grades.get((e.student, e.assignment)) or (found[0] if len(found) == 1 else None)
        if g is None or g.score is None:
            continue
        by_function: dict[str, tuple[float, float]] = {}
        for t in e.tests:
            earned, available = by_function.get(t.function, (0.0, 0.0))
            by_function[t.function] = (earned + t.score, available + t.max_score)
            if not t.passed:
                for m in t.mistakes:
                    if (t.function, m) not in g.mistakes:
                        g.mistakes.append((t.function, m))
        for function, (a, b) in by_function.items():
            if a < b:
                failed = [t for t in e.tests if t.function == function and not t.passed]
                g.failed.append(Lost(function, a, b, [t.name for t in failed],
                                     bool(failed) and all(t.stub for t in failed)))
    return grades, notes


@dataclass
class Item:
    """One LMS grade item (see the module docstring): our ``assignment``, its LMS ``name``, the
    LMS's maximum points ``max`` (``float``, None when the items file gives none) and the LMS's
    ids of it (``canvas_id``, ``blackboard_id``, ``moodle_idnumber``; "" when not given);
    ``line``: its line in the items file (0 when made up)."""
    assignment: str
    name: str
    max: float | None = None
    canvas_id: str = ""
    blackboard_id: str = ""
    moodle_idnumber: str = ""
    line: int = 0


def load_items(path) -> list:
    """Read the assignment-to-LMS-item mapping (see the module docstring).

    Returns:
        list of ``Item`` in file order.
    Raises:
        GradedError: unreadable file, unknown column, missing or repeated assignment, a
            ``max`` that is not a positive number, a ``canvas_id`` or ``blackboard_id`` that is
            not digits, a value with a control character; the message names every bad line.
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
    items, errors = [], []
    seen: dict[str, int] = {}  # assignment -> its line
    for line, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        values = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
        a = values["assignment"]
        problems = [f"{k} {v!r} holds a control character" for k, v in values.items()
                    if any(ord(ch) < 32 or ord(ch) == 127 for ch in v)]
        for column, what in (("canvas_id", "a Canvas assignment id"), ("blackboard_id", "a Grade Center column id")):
            if values.get(column) and not values[column].isdigit():
                problems.append(f"{column} {values[column]!r} is not {what} (digits)")
        top = None
        if values.get("max"):
            try:
                top = float(values["max"])
            except ValueError:
                top = -1.0
            if not (top > 0 and top != float("inf")):
                problems.append(f"max {values['max']!r} is not a positive number of points")
        if not a:
            problems.insert(0, "no assignment")
        elif a in seen:
            problems.insert(0, f"assignment {a!r} is also on line {seen[a]}")
        if problems:
            errors.append(f"line {line}: " + "; ".join(problems))
            continue
        seen[a] = line
        items.append(Item(a, values.get("name") or a, top, values.get("canvas_id", ""),
                          values.get("blackboard_id", ""), values.get("moodle_idnumber", ""), line))
    if errors:
        raise GradedError(f"{path}: " + "; ".join(errors))
    return items


def write_items(graded_dir, path) -> list:
    """Write a starting items file for ``graded_dir``'s assignments (``lms items``).

    One row per graded assignment, in name order: ``name`` is ours, ``max`` the course's
    points (the largest ``max_score`` in grades.csv), the LMS ids empty. The instructor then
    gives each item its LMS name, maximum and ids (docs/lms.md).

    Args:
        graded_dir: the class run's output folder.
        path: the file to write; an existing file is never replaced.
    Returns:
        the ``Item`` list written.
    Raises:
        GradedError: no readable grades.csv, or ``path`` exists.
    """
    path = Path(path)
    if path.exists():
        raise GradedError(f"{path} exists; it is not replaced (move it away, or edit it)")
    grades, _ = read(graded_dir)
    points: dict[str, float] = {}
    for (_, a), g in grades.items():
        points[a] = max(points.get(a, 0.0), g.max_score)
    items = [Item(a, a, points[a]) for a in sorted(points)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csvsafe.writer(f)
        w.writerow(ITEM_COLUMNS)
        for i in items:
            w.writerow([i.assignment, i.name, number(points[i.assignment]), "", "", ""])
    return items


def number(x: float) -> str:
    """A score as a spreadsheet and an LMS read it: at most 2 decimals (Canvas shows 2), no
    trailing zeros ("12.5", "17")."""
    text = f"{round(x, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
