"""Each LMS's grade import, as its own code or documentation describes it: readers for the tests.

These readers are written from the importers' public sources and documentation, never from
our writers (``autograder/lms/``): a test writes a file with our code and reads it back here,
as the LMS would, against a model of the LMS's course (its users, items and the grades it
already holds). Every rule below names where it comes from:

* Canvas: canvas-lms ``app/models/gradebook_importer.rb`` (``GradebookImporter``: header
  rules, the delimiter guess, the converters, ``Points Possible``, how a student and an
  assignment are found), ``app/models/assignment.rb`` (``Assignment.title_and_id``) and
  ``ui/features/gradebook_uploads/jquery/process_gradebook_upload.js`` (what the upload sends:
  ``posted_grade`` for every changed cell, a blank one included).
* Moodle: ``lib/csvlib.class.php`` (``csv_import_reader::load_csv_content``),
  ``grade/import/csv/classes/load_data.php`` (``prepare_import_grade_data``,
  ``check_user_exists``, ``update_grade_item``, ``insert_grade_record``),
  ``grade/import/grade_import_form.php`` (the mapping screen's choices),
  ``grade/export/lib.php`` (``format_column_name``: ``<item> (Real)``, ``<item> (Feedback)``),
  ``grade/import/xml/lib.php`` (``import_xml_grades``) and ``grade/import/lib.php``
  (``grade_import_commit``: a null grade or an empty feedback replaces what is held).
* Brightspace: D2L's "Importing grades" (community.d2l.com, Brightspace instructor help) and
  its Grades sample import file.
* Blackboard Learn: "Work offline with grade data" / "Uploading or downloading Grade Center
  items for working offline" (Blackboard help) and the Grade Center's own download.
"""
from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field


class ImportStopped(Exception):
    """The importer stops the whole import (Moodle: "Import failed. No data was imported.")."""


# ---------------------------------------------------------------------------------------------------
# Canvas: app/models/gradebook_importer.rb
# ---------------------------------------------------------------------------------------------------

@dataclass
class CanvasStudent:
    id: int
    name: str
    sortable_name: str
    sis_user_id: str = ""
    login_id: str = ""


@dataclass
class CanvasCourse:
    """Canvas's side: ``students`` (``CanvasStudent``), ``assignments`` ``{id: (title,
    points_possible)}`` and the scores it holds, ``held`` ``{(user id, assignment id): str}``."""
    students: list
    assignments: dict
    held: dict = field(default_factory=dict)


@dataclass
class CanvasUpload:
    """What the importer and the upload make of a file.

    ``grade_data``: ``{assignment id: {user id: posted_grade}}`` as ``populateGradeData`` sends
    it (only cells that differ from what Canvas holds); ``new_students`` and
    ``new_assignments``: rows and columns that matched nothing (Canvas would list them as new
    and create the assignments); ``points``: the Points Possible row per assignment id.
    """
    grade_data: dict
    new_students: list
    new_assignments: list
    points: dict


# NON_ASSIGNMENT_COLUMN_HEADERS: stripped by a regexp union, so a substring match
_CANVAS_NON_ASSIGNMENT = re.compile("|".join(["Current Score", "Current Points", "Current Grade", "Final Score",
                                              "Final Points", "Final Grade", "Override Score", "Override Grade",
                                              "Override Status"]))


def _canvas_decimal_comma_to_period(value):
    # CSV::Converters[:decimal_comma_to_period], applied to every field
    if value is not None and re.fullmatch(r"-?[0-9.,]+%?", value):
        parts = re.split(r"[,.]", value)
        last = parts.pop()
        return last if not parts else "".join(parts) + "." + last
    return value


def _canvas_rows(raw: bytes) -> list:
    text = raw.decode("utf-8")  # read as UTF-8 text: a byte-order mark stays in the first cell
    first = text.splitlines(keepends=True)[:3]

    def count(sep):  # identify_delimiter: the field count when it is the same on the first 3 lines
        counts = {len(next(csv.reader([line], delimiter=sep), [])) for line in first}
        return counts.pop() if len(counts) == 1 else 0
    sep = ";" if count(";") > count(",") else ","
    rows = []
    for cells in csv.reader(io.StringIO(text, newline=""), delimiter=sep):
        if re.fullmatch(r"[;, ]+", sep.join(cells)) or not cells:  # skip_lines: /^[;, ]+$/
            continue
        # converters: [:nil, :decimal_comma_to_period]; an empty unquoted field is nil
        rows.append([_canvas_decimal_comma_to_period(c if c != "" else None) for c in cells])
    return rows


def canvas_import(raw: bytes, course: CanvasCourse) -> CanvasUpload:
    """Read ``raw`` (a file's bytes) as ``GradebookImporter#parse!`` and the upload do."""
    rows = _canvas_rows(raw)
    header = rows[0]
    # header?: row_has_student_headers? (row[0] includes "Student", row[1] includes "ID", > 3 columns)
    if not (len(header) > 3 and "Student" in (header[0] or "") and "ID" in (header[1] or "")):
        raise ImportStopped("Invalid header row")
    student_columns = 3  # name, ID, section (update_column_count)
    sis_user_column = sis_login_column = None
    if re.search(r"SIS\s+Login\s+ID", header[2] or ""):
        sis_login_column, student_columns = 2, student_columns + 1
    elif re.search(r"SIS\s+User\s+ID", header[2] or "") and re.search(r"SIS\s+Login\s+ID", header[3] or ""):
        sis_user_column, sis_login_column, student_columns = 2, 3, student_columns + 2
    if "Section" not in (header[student_columns - 1] or ""):  # last_student_info_column includes "Section"
        raise ImportStopped("Invalid header row")
    assignment_headers = [h for h in header[student_columns:] if not _CANVAS_NON_ASSIGNMENT.search(h or "")]
    columns, new_assignments = {}, []
    for name_and_id in assignment_headers:
        m = re.fullmatch(r"(.*)\s\((\d+)\)", name_and_id or "")  # Assignment.title_and_id: /\A(.*)\s\((\d+)\)\z/
        title, aid = (m.group(1), int(m.group(2))) if m else (name_and_id, None)
        if aid not in course.assignments:  # by id, else by title (backward compat), else a new assignment
            aid = next((i for i, (t, _) in course.assignments.items() if t == name_and_id), None)
        if aid is None:
            new_assignments.append(title)
            continue
        columns[aid] = header.index(name_and_id)
    points, grade_data, new_students = {}, {}, []
    by_sis = {s.sis_user_id: s for s in course.students if s.sis_user_id}
    by_login = {s.login_id: s for s in course.students if s.login_id}
    by_id = {s.id: s for s in course.students}
    for row in rows[1:]:
        if row[0] is not None and "Points Possible" in row[0]:  # check_for_non_student_row
            points = {aid: row[i] for aid, i in columns.items() if row[i]}
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c or "", re.I) for c in row if c is not None):
            continue
        # process_student: the ID column, else SIS User ID, else SIS Login ID, else the name
        student = by_id.get(int(row[1])) if row[1] and row[1].lstrip("-").isdigit() else None
        if student is None and sis_user_column is not None and row[sis_user_column]:
            student = by_sis.get(row[sis_user_column])
        if student is None and sis_login_column is not None and row[sis_login_column]:
            student = by_login.get(row[sis_login_column])
        if student is None:
            student = next((s for s in course.students if row[0] in (s.name, s.sortable_name)), None)
        if student is None:
            new_students.append(row[0])
            continue
        for aid, i in columns.items():
            grade = row[i].strip() if row[i] is not None else None  # row[assignment_index]&.strip
            held = course.held.get((student.id, aid))
            # populateGradeDataPerSubmission: skip "no change", else posted_grade, blank included
            if held == grade or (held in (None, "") and grade in (None, "")):
                continue
            grade_data.setdefault(aid, {})[student.id] = grade
    return CanvasUpload(grade_data, new_students, new_assignments, points)


def canvas_apply(upload: CanvasUpload, course: CanvasCourse) -> dict:
    """The scores Canvas holds after the upload: ``posted_grade`` replaces the held score, and a
    blank one removes it."""
    after = dict(course.held)
    for aid, by in upload.grade_data.items():
        for uid, grade in by.items():
            if grade in (None, ""):
                after.pop((uid, aid), None)
            else:
                after[(uid, aid)] = grade
    return after


# ---------------------------------------------------------------------------------------------------
# Moodle: lib/csvlib.class.php, grade/import/csv/classes/load_data.php, grade/import/lib.php
# ---------------------------------------------------------------------------------------------------

@dataclass
class MoodleUser:
    id: int
    username: str
    email: str = ""
    idnumber: str = ""


@dataclass
class MoodleItem:
    """A grade item: ``id``, ``name`` as the gradebook lists it (``fetch_grade_items``: an
    activity's is "Assignment: <name>"), its ID number, ``grademax`` and ``grademin``."""
    id: int
    name: str
    grademax: float
    grademin: float = 0.0
    idnumber: str = ""


@dataclass
class MoodleCourse:
    """Moodle's side: users, grade items and what it holds, ``held`` ``{(user id, item id):
    (finalgrade or None, feedback or None)}``."""
    users: list
    items: list
    held: dict = field(default_factory=dict)


def moodle_csv_rows(raw: bytes, separator: str = ",") -> list:
    """``csv_import_reader::load_csv_content`` with encoding UTF-8: the byte-order mark removed,
    ``\\r\\n?`` read as ``\\n``, the text trimmed, rows read by ``fgetcsv``, empty lines dropped,
    and every row holding the header's number of cells ("csvweirdcolumns" otherwise)."""
    text = raw.decode("utf-8")
    text = text[1:] if text.startswith("\ufeff") else text
    text = re.sub(r"\r\n?", "\n", text).strip()
    rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=separator) if r != [""] and r]
    if not rows:
        raise ImportStopped("csvemptyfile")
    if any(len(r) != len(rows[0]) for r in rows):
        raise ImportStopped("csvweirdcolumns")
    return rows


# grade_import_mapping_form's "Map to" choices and their labels (get_string: userid, username, idnumber, email)
MOODLE_MAP_TO = {"userid": "User ID", "username": "Username", "useridnumber": "ID number", "useremail": "Email address"}
_MOODLE_USER_FIELD = {"userid": "id", "username": "username", "useridnumber": "idnumber", "useremail": "email"}


def moodle_mapping(header: list, course: MoodleCourse) -> tuple:
    """The choices on the mapping screen that a column's name gives away: "Map from" the column
    whose name is a "Map to" label, and each column named as Moodle's export names an item's
    grade or feedback column (``format_column_name``: ``<item> (Real)`` and ``<item>
    (Feedback)``, ``<item>`` as the gradebook lists it) mapped to that item or its feedback.
    Released Moodle (4.x, 5.x) leaves these to the teacher; these are the choices the names
    make for them. Returns ``(map_from index, map_to, {index: item id or "feedback_<id>"})``."""
    header = [h.strip() for h in header]
    map_from = map_to = None
    for option, label in MOODLE_MAP_TO.items():  # the first option whose label a column carries
        if label in header:
            map_from, map_to = header.index(label), option
            break
    mapping = {}
    for i, h in enumerate(header):
        for item in course.items:
            if h == f"{item.name} (Real)":
                mapping[i] = item.id
            elif h == f"{item.name} (Feedback)":
                mapping[i] = f"feedback_{item.id}"
    return map_from, map_to, mapping


def _moodle_user(course: MoodleCourse, map_to: str, value: str, case_blind: bool) -> MoodleUser:
    # check_user_exists: username and email compared without case (Moodle 5.x), others exactly;
    # before, $DB->get_record compared every field exactly (on PostgreSQL)
    field = _MOODLE_USER_FIELD[map_to]
    if case_blind and field in ("username", "email"):
        found = [u for u in course.users if getattr(u, field).lower() == value.lower()]
    else:
        found = [u for u in course.users if str(getattr(u, field)) == value]
    if len(found) != 1:
        raise ImportStopped(f"user mapping error: {'no user' if not found else 'several users'} with "
                            f"{field} {value!r}")
    return found[0]


def moodle_csv_import(raw: bytes, course: MoodleCourse, map_from: int, map_to: str, mapping: dict,
                      case_blind: bool = True) -> dict:
    """``prepare_import_grade_data`` then ``grade_import_commit``: what Moodle holds afterwards
    (``{(user id, item id): (finalgrade, feedback)}``), or ``ImportStopped``. ``case_blind``:
    usernames and emails compared without case (False: exactly, as older versions on PostgreSQL)."""
    rows = moodle_csv_rows(raw)
    items = {i.id: i for i in course.items}
    staged = []
    for line in rows[1:]:
        if len(line) <= 1:
            continue
        user, grades, feedbacks = None, {}, {}
        for key, value in enumerate(line):
            value = value.strip()
            if key == map_from:
                user = _moodle_user(course, map_to, value, case_blind)
            elif str(mapping.get(key, "0")).startswith("feedback_"):
                feedbacks[int(str(mapping[key]).split("_")[1])] = value
            elif mapping.get(key, "0") not in ("0", 0):
                item = items[mapping[key]]
                if value in ("", "-"):
                    grades[item.id] = None  # update_grade_item: no grade
                    continue
                try:
                    grade = float(value)  # unformat_float
                except ValueError:
                    raise ImportStopped(f"badgrade {value!r}") from None
                if not (item.grademin <= grade <= item.grademax):  # insert_grade_record (Moodle 4.1 onwards)
                    raise ImportStopped(f"grade {grade} outside {item.grademin}..{item.grademax} of {item.name}")
                grades[item.id] = grade
        if user is None:
            raise ImportStopped("usermappingerrorusernotfound")
        staged.append((user, grades, feedbacks))
    after = dict(course.held)
    for user, grades, feedbacks in staged:  # grade_import_commit: a null grade and an empty feedback replace
        for iid in set(grades) | set(feedbacks):
            grade, fb = after.get((user.id, iid), (None, None))
            after[(user.id, iid)] = (grades[iid] if iid in grades else grade, feedbacks[iid] if iid in feedbacks else fb)
    return after


def moodle_xml_import(raw: bytes, course: MoodleCourse, import_feedback: bool = True) -> dict:
    """``import_xml_grades`` then ``grade_import_commit``: each ``<result>`` finds its item by
    ``<assignment>`` (the item's ID number) and its user by ``<student>`` (the user's ID
    number), or the import stops; no ``<score>`` (or ``-``) is no grade; returns what Moodle holds."""
    root = ElementTree.fromstring(raw)
    if root.tag != "results" or root.find("result") is None:
        raise ImportStopped("errbadxmlformat")
    after = dict(course.held)
    for result in root.findall("result"):
        item = [i for i in course.items if i.idnumber == result.findtext("assignment")]
        if len(item) != 1:
            raise ImportStopped(f"grade item ID number {result.findtext('assignment')!r}: {len(item)} items")
        user = [u for u in course.users if u.idnumber == result.findtext("student")]
        if len(user) != 1:
            raise ImportStopped(f"user ID number {result.findtext('student')!r}: {len(user)} users")
        score = result.findtext("score")
        if score is not None and score != "-":
            try:
                grade = float(score)
            except ValueError:
                raise ImportStopped(f"errbadgrade {score!r}") from None
        else:
            grade = None
        feedback = result.findtext("feedback")
        held_grade, held_feedback = after.get((user[0].id, item[0].id), (None, None))
        after[(user[0].id, item[0].id)] = (grade, feedback if import_feedback and feedback is not None else held_feedback)
    return after


# ---------------------------------------------------------------------------------------------------
# Brightspace: D2L "Importing grades" and the Grades sample import file
# ---------------------------------------------------------------------------------------------------

@dataclass
class BrightspaceItem:
    name: str
    max_points: float
    can_exceed: bool = False


def brightspace_import(raw: bytes, users: dict, items: list, held: dict | None = None) -> dict:
    """What Brightspace holds after importing ``raw``: ``{(user key, item name): points}``.

    ``users``: ``{OrgDefinedId or Username: user key}``. The rules: a Username or OrgDefinedId
    (or both) per user; a numeric item's column is ``<item name> Points Grade``; the
    ``End-of-Line Indicator`` column closes every row with ``#``; the export writes ``#``
    before the ids, read without it; a grade above the item's maximum is capped at it unless
    the item can be exceeded; an empty grade leaves the user without one.
    """
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    header = rows[0]
    if header[-1] != "End-of-Line Indicator":
        raise ImportStopped("no End-of-Line Indicator column")
    if not {"OrgDefinedId", "Username"} & set(header):
        raise ImportStopped("no OrgDefinedId or Username column")
    by_name = {f"{i.name} Points Grade": i for i in items}
    unknown = [h for h in header if h.endswith(" Points Grade") and h not in by_name]
    if unknown:
        raise ImportStopped(f"no grade item for {unknown} (the import would offer to create them)")
    after = dict(held or {})
    for row in rows[1:]:
        if row[-1] != "#":
            raise ImportStopped(f"row without its end-of-line indicator: {row}")
        keys = [row[header.index(h)].removeprefix("#") for h in ("OrgDefinedId", "Username") if h in header]
        user = next((users[k] for k in keys if k in users), None)
        if user is None:
            raise ImportStopped(f"no user {keys}")
        for h, item in by_name.items():
            if h not in header:
                continue
            cell = row[header.index(h)].strip()
            if cell == "":
                after.pop((user, item.name), None)
                continue
            points = float(cell)
            after[(user, item.name)] = points if item.can_exceed else min(points, item.max_points)
    return after


# ---------------------------------------------------------------------------------------------------
# Blackboard Learn: "Work offline with grade data" (Grade Center upload)
# ---------------------------------------------------------------------------------------------------

def blackboard_rows(raw: bytes) -> list:
    """The upload's reading of a file: text by its byte-order mark (the Grade Center's own
    download is UTF-16), tab-delimited when the header holds a tab, else comma-delimited with
    every value in a quote character; a header row, then one record per line."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = raw.decode("utf-16")
    else:
        text = raw.decode("utf-8-sig")
    delimiter = "\t" if "\t" in text.splitlines()[0] else ","
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"'))


def blackboard_upload(raw: bytes, usernames: dict, column_ids: set, held: dict | None = None) -> dict:
    """What the Grade Center holds after the upload: ``{(user key, column id): grade text}``.

    The student is found by the ``Username`` column; a column by the Column ID after ``|`` at
    the end of its name, and a column without one would be created as a new text column
    (refused here); ``usernames``: ``{Username: user key}``; an empty cell is written as it is
    (``""``)."""
    rows = blackboard_rows(raw)
    header = rows[0]
    if "Username" not in header:
        raise ImportStopped("no Username column")
    user_col = header.index("Username")
    columns = {}
    for i, h in enumerate(header):
        if h in ("Last Name", "First Name", "Username", "Student ID", "Last Access", "Availability"):
            continue
        m = re.search(r"\|(\d+)\s*$", h)
        if not m:
            raise ImportStopped(f"column {h!r} has no Column ID: it would be created as a new text column")
        if m.group(1) not in column_ids:
            raise ImportStopped(f"no Grade Center column {m.group(1)}")
        columns[i] = m.group(1)
    after = dict(held or {})
    for row in rows[1:]:
        if row[user_col] not in usernames:
            raise ImportStopped(f"no user {row[user_col]!r}")
        for i, cid in columns.items():
            after[(usernames[row[user_col]], cid)] = row[i]
    return after
