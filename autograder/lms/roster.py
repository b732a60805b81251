"""The course roster: one row per student, mapping the course's student id to each LMS's ids.

``roster.csv`` is a UTF-8 CSV file (a byte-order mark, as Excel writes, is accepted) whose
first row names its columns. ``student_id`` is required; every other column is optional,
and a column not in ``COLUMNS`` is an error (a misspelt ``canvas_user_id`` would otherwise
be ignored and its students matched by name, or by nobody):

==========================  ===================================================================
column                      meaning
==========================  ===================================================================
student_id                  the course's id: nbgrader's student id, the folder name in submitted/
first_name, last_name       the student's names (nbgrader's gradebook; Canvas's "Student" column)
email                       the student's email (nbgrader's gradebook; Moodle's "email" key)
canvas_name                 Canvas's "Student" column when it is not "last_name, first_name"
canvas_user_id              Canvas's numeric user "ID" (the gradebook export's ID column)
canvas_sis_user_id          Canvas's "SIS User ID"
canvas_sis_login_id         Canvas's "SIS Login ID"
canvas_section              Canvas's "Section" (informative: Canvas does not match on it)
moodle_username             Moodle's username
moodle_idnumber             Moodle's "ID number" (a user profile field)
brightspace_org_defined_id  Brightspace's OrgDefinedId
brightspace_username        Brightspace's Username
blackboard_username         Blackboard Learn's Username (the Grade Center's student key)
==========================  ===================================================================

Rules, checked by ``load`` (every broken row is named by its line number, all at once):
``student_id`` is present and unique, and can be a folder name (no ``/``, not ``.``/``..``);
an LMS id, when given, is unique within its column (two students with one Canvas id would
get each other's grades); no id holds a control character, and none starts with a character
a spreadsheet runs as a formula (``=``, ``+``, ``-``, ``@``, unless it is a number): an LMS
file writes ids exactly as given, since an escaped id would match nobody; a row has no more
cells than the header. Blank lines are skipped; spaces around a cell are removed. Which ids
an LMS file needs is checked when that file is written (``Roster.require``): a Canvas file
needs a Canvas user id, SIS user id or SIS login id for every student, a Moodle file the
chosen identifier, a Brightspace file an OrgDefinedId or username, a Blackboard file a
username.

**One way to compare student ids** (``student_key``), on every path: the roster's
``student_id``, a graded folder's name (a class run's results) and ``grades.csv``'s
``student_id`` (which shows control characters as escapes, ``core.safetext``) are the same
student when they agree after Unicode NFC normalisation, without spaces, tabs, newlines or
other invisible characters at either end, and ignoring case. ``load`` refuses two roster rows
with one key; ``table.build`` refuses two graded ids with one key (naming their grades.csv
lines) and says which graded id matched a roster id only by its key.

A class run uses the roster given with ``--roster``, else ``roster.csv`` in the course
directory (the folder holding ``submitted/`` and ``nbgrader_config.py``), when there is one:
``course_roster``.
"""
from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = ("student_id", "first_name", "last_name", "email",
           "canvas_name", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id", "canvas_section",
           "moodle_username", "moodle_idnumber",
           "brightspace_org_defined_id", "brightspace_username", "blackboard_username")
# Columns whose values identify a student in an LMS: a value may appear only once (compared by
# ``student_key``: an LMS that matches ids case-blind, as Moodle's username and email, would
# find two users or the wrong one).
UNIQUE = ("student_id", "email", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id",
          "moodle_username", "moodle_idnumber", "brightspace_org_defined_id", "brightspace_username",
          "blackboard_username")
# A cell a spreadsheet runs as a formula starts with one of these (reports/csvsafe.py).
_FORMULA_START = ("=", "+", "-", "@")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)\Z")
# The escapes ``core.safetext.clean`` writes for control characters (grades.csv's student ids).
_ESCAPE = re.compile(r"\\(?:([ntr])|x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r"}
ROSTER_FILE = "roster.csv"
CONFIG_FILE = "nbgrader_config.py"


class RosterError(ValueError):
    """The roster (or an LMS file's needs) is broken; the message names every bad line."""


@dataclass
class Student:
    """One roster row: ``line`` (its line number in the file, 1 = header), ``student_id`` and
    ``fields`` (``{column: value}``, empty string when not given)."""
    line: int
    student_id: str
    fields: dict = field(default_factory=dict)

    def get(self, column: str) -> str:
        """The value of ``column`` (``""`` when absent)."""
        return self.fields.get(column, "")

    @property
    def sortable_name(self) -> str:
        """Canvas's "Student" text: ``canvas_name``, else "last, first", else the student id."""
        if self.get("canvas_name"):
            return self.get("canvas_name")
        last, first = self.get("last_name"), self.get("first_name")
        if last and first:
            return f"{last}, {first}"
        return last or first or self.student_id


@dataclass
class Roster:
    """The students of ``path`` in file order (``students``) and their columns (``columns``)."""
    path: Path
    students: list
    columns: tuple

    def ids(self) -> list:
        """The course's student ids, in file order."""
        return [s.student_id for s in self.students]

    def by_id(self) -> dict:
        """``{student_id: Student}``."""
        return {s.student_id: s for s in self.students}

    def by_key(self) -> dict:
        """``{student_key(student_id): Student}`` (keys are unique: ``load`` checks it)."""
        return {student_key(s.student_id): s for s in self.students}

    def require(self, what: str, *alternatives: str) -> None:
        """Check that every student has a value in at least one of ``alternatives`` (columns).

        Args:
            what: the file that needs them, for the message ("a Canvas file").
            alternatives: column names.
        Raises:
            RosterError: naming the roster's path and every line without any of them.
        """
        bad = [s for s in self.students if not any(s.get(c) for c in alternatives)]
        if bad:
            lines = "; ".join(f"line {s.line} ({s.student_id})" for s in bad)
            raise RosterError(f"{self.path}: {what} needs {' or '.join(alternatives)} for every student; "
                              f"missing on {lines}")


def _valid_id(student_id: str) -> bool:
    return bool(student_id) and "/" not in student_id and "\\" not in student_id and student_id not in (".", "..")


def _invisible(ch: str) -> bool:
    # whitespace, or a control/format character (tab, newline, zero-width space, BOM ...)
    return ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def _unescape(match) -> str:
    letter, *code = match.groups()
    return _ESCAPED[letter] if letter else chr(int(next(c for c in code if c), 16))


def student_key(student_id: str) -> str:
    """The form in which two student ids are compared, on every path (see the module docstring).

    Args:
        student_id: a roster ``student_id``, a graded folder's name or ``grades.csv``'s
            ``student_id`` (whose ``\\t``, ``\\n``, ``\\xNN`` ... escapes of control characters,
            written by ``core.safetext.clean``, are read back first).
    Returns:
        ``str``: NFC-normalised, without invisible characters (whitespace, control and format
        characters) at either end, case-folded. ``"Ann\\t"``, ``" ann"`` and ``"ANN"`` give ``"ann"``.
    """
    text = _ESCAPE.sub(_unescape, str(student_id))
    text = unicodedata.normalize("NFC", text)
    start, end = 0, len(text)
    while start < end and _invisible(text[start]):
        start += 1
    while end > start and _invisible(text[end - 1]):
        end -= 1
    return text[start:end].casefold()


def _bad_characters(column: str, value: str) -> str:
    """Why ``value`` cannot be an id as written ("" when it can); ``student_id`` is never written
    into an LMS file, so it may start with anything."""
    odd = [ch for ch in value if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]
    if odd:
        return f"{column} {value!r} holds the invisible character(s) {', '.join(repr(c) for c in odd)}"
    if column != "student_id" and value.startswith(_FORMULA_START) and not _NUMBER.match(value):
        return (f"{column} {value!r} starts with {value[0]!r}, which a spreadsheet runs as a formula (an LMS "
                "file writes ids as they are)")
    return ""


def load(path) -> Roster:
    """Read and check ``roster.csv`` (see the module docstring for columns and rules).

    Args:
        path: the roster file (``str`` or ``Path``).
    Returns:
        ``Roster``.
    Raises:
        RosterError: the file cannot be read as UTF-8 CSV, has no ``student_id`` column or an
            unknown column, or has broken rows (every one named by its line number).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RosterError(f"{path}: cannot read the roster as UTF-8 text: {exc}") from None
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:
        raise RosterError(f"{path}: not a CSV file: {exc}") from None
    if not rows:
        raise RosterError(f"{path}: empty file (the first line must name the columns, starting with student_id)")
    header = [h.strip() for h in rows[0]]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise RosterError(f"{path}, line 1: unknown column(s) {', '.join(repr(h) for h in unknown)}; "
                          f"the columns a roster may have are {', '.join(COLUMNS)}")
    if "student_id" not in header:
        raise RosterError(f"{path}, line 1: no student_id column (the course's student id, nbgrader's)")
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise RosterError(f"{path}, line 1: column(s) {', '.join(repeated)} given twice")
    errors, students = [], []
    seen: dict[str, dict[str, tuple[int, str]]] = {c: {} for c in UNIQUE}  # column -> key -> (line, value)
    for line, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue  # a blank line
        if len(cells) > len(header):
            errors.append(f"line {line}: {len(cells)} cells but {len(header)} columns (a comma inside a "
                          "value needs the value in double quotes)")
            continue
        values = {h: (cells[i].strip() if i < len(cells) else "") for i, h in enumerate(header)}
        sid = values["student_id"]
        if not sid:
            errors.append(f"line {line}: no student_id")
            continue
        if not _valid_id(sid):
            errors.append(f"line {line}: student_id {sid!r} cannot be a folder name")
            continue
        bad = False
        for column in UNIQUE:
            value = values.get(column, "")
            if not value:
                continue
            why = _bad_characters(column, value)
            if why:
                errors.append(f"line {line}: {why}")
                bad = True
                continue
            key = student_key(value)
            if key in seen[column]:
                first, other = seen[column][key]
                same = "" if other == value else f" (as {other!r}: the same id, compared without case)"
                errors.append(f"line {line}: {column} {value!r} is also on line {first}{same}")
                bad = True
            else:
                seen[column][key] = (line, value)
        if not bad:
            students.append(Student(line, sid, values))
    if errors:
        raise RosterError(f"{path}: " + "; ".join(errors))
    return Roster(path, students, tuple(header))


def course_roster(path):
    """``roster.csv`` of the course directory whose ``submitted/`` folder holds ``path``, or None.

    The course directory is the parent of a folder named ``submitted`` (``path`` or one of its
    parents) that holds ``nbgrader_config.py`` (as ``gradebook.find_course`` finds it, without
    loading nbgrader).
    """
    path = Path(path).resolve()
    for folder in [path, *path.parents]:
        if folder.name == "submitted" and (folder.parent / CONFIG_FILE).is_file():
            candidate = folder.parent / ROSTER_FILE
            return candidate if candidate.is_file() else None
    return None


def not_submitted(roster: Roster, handed_in, assignments) -> list:
    """The (student_id, assignment) pairs of roster students with nothing graded.

    Args:
        roster: the ``Roster``.
        handed_in: iterable of ``(student_id, assignment)`` that were graded; a graded id is
            the roster student whose ``student_key`` it shares (``" ann"`` handed in for ``ann``).
        assignments: the assignments of the run (iterable of str).
    Returns:
        sorted list of ``(student_id, assignment)`` (roster ids).
    """
    done = {(student_key(s), a) for s, a in handed_in}
    return sorted((s, a) for a in set(assignments) for s in roster.ids() if (student_key(s), a) not in done)


def load_into_gradebook(roster: Roster, db_url: str, course_id: str = "default_course") -> int:
    """Create or update every roster student in nbgrader's gradebook (``Gradebook.update_or_create_student``).

    Args:
        roster: the ``Roster``; ``first_name``, ``last_name`` and ``email`` go into the gradebook
            (so ``nbgrader export`` shows them) when the roster has them.
        db_url: the gradebook's database URL (``sqlite:///path/gradebook.db``).
        course_id: nbgrader's course id.
    Returns:
        the number of students written.
    """
    from nbgrader.api import Gradebook

    from autograder.course.build import venv_on_path
    venv_on_path()  # a new gradebook is created by nbgrader running `alembic`
    with Gradebook(db_url, course_id) as gb:
        for s in roster.students:
            details = {k: s.get(k) for k in ("first_name", "last_name", "email") if s.get(k)}
            gb.update_or_create_student(s.student_id, **details)
    return len(roster.students)
