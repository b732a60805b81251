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
==========================  ===================================================================

Rules, checked by ``load`` (every broken row is named by its line number, all at once):
``student_id`` is present and unique, and can be a folder name (no ``/``, not ``.``/``..``);
an LMS id, when given, is unique within its column (two students with one Canvas id would
get each other's grades); a row has no more cells than the header. Blank lines are skipped;
spaces around a cell are removed. Which ids an LMS file needs is checked when that file is
written (``Roster.require``): a Canvas file needs a Canvas user id, SIS user id or SIS
login id for every student, a Moodle file the chosen identifier, a Brightspace file an
OrgDefinedId or username.

A class run uses the roster given with ``--roster``, else ``roster.csv`` in the course
directory (the folder holding ``submitted/`` and ``nbgrader_config.py``), when there is one:
``course_roster``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = ("student_id", "first_name", "last_name", "email",
           "canvas_name", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id", "canvas_section",
           "moodle_username", "moodle_idnumber",
           "brightspace_org_defined_id", "brightspace_username")
# Columns whose values identify a student in an LMS: a value may appear only once.
UNIQUE = ("student_id", "email", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id",
          "moodle_username", "moodle_idnumber", "brightspace_org_defined_id", "brightspace_username")
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
    errors, students, seen = [], [], {c: {} for c in UNIQUE}
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
            key = value.lower() if column == "email" else value
            if not value:
                continue
            if key in seen[column]:
                errors.append(f"line {line}: {column} {value!r} is also on line {seen[column][key]}")
                bad = True
            else:
                seen[column][key] = line
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
        handed_in: iterable of ``(student_id, assignment)`` that were graded.
        assignments: the assignments of the run (iterable of str).
    Returns:
        sorted list of ``(student_id, assignment)``.
    """
    done = set(handed_in)
    return sorted((s, a) for a in set(assignments) for s in roster.ids() if (s, a) not in done)


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
