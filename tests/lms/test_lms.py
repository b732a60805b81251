"""LMS import files (autograder/lms/) read back the way each LMS's importer reads them.

Every file is written with our code and read by ``lms_importers.py``, which follows the
importers' own public sources and documentation (canvas-lms ``app/models/gradebook_importer.rb``
and ``process_gradebook_upload.js``; Moodle ``lib/csvlib.class.php``, ``grade/import/csv``,
``grade/import/xml``, ``grade/import/lib.php`` and ``grade/export/lib.php``; D2L's "Importing
grades"; Blackboard's "Work offline with grade data"), never our writers: each test models the
LMS's course (its users, items and the grades it holds, some entered there by hand) and
checks what the course holds after the import.

The graded/ folders are written with the class run's own writers (``outputs.write_results``,
``console.write_grades_csv`` with the gradebook's ``Totals``), as a class run writes them.
The expected grades are computed here from the course's points and each item's maximum.
"""
import csv
import html
import io

import pytest
from lms_importers import (
    BrightspaceItem,
    CanvasCourse,
    CanvasStudent,
    MoodleCourse,
    MoodleItem,
    MoodleUser,
    blackboard_rows,
    blackboard_upload,
    brightspace_import,
    canvas_apply,
    canvas_import,
    moodle_csv_import,
    moodle_csv_rows,
    moodle_mapping,
    moodle_xml_import,
)

from autograder import cli
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.grading.outputs import write_results
from autograder.lms import roster as roster_mod
from autograder.lms.command import write_lms_file
from autograder.lms.graded import GradedError
from autograder.lms.roster import RosterError
from autograder.nbgrader_glue.totals import Override, Totals
from autograder.reports import class_report
from autograder.reports import console as report

SQRT = "forget to divide the scores by sqrt(d_k)"

ROSTER = """student_id,first_name,last_name,email,canvas_name,canvas_user_id,canvas_sis_user_id,canvas_sis_login_id,\
canvas_section,moodle_username,moodle_idnumber,brightspace_org_defined_id,brightspace_username,blackboard_username
ada,Ada,Lovelace,ada@uni.example,,1001,S-1,ada@uni,"Section 1, Tuesday",alovelace,M1,00123,ada.l,alovelace
bo,Bo,Berg,bo@uni.example,,1002,"2024,017",bo@uni,"Section 1, Tuesday",BBerg,M2,00124,bo.b,bberg
cy,Cy,Chen,cy@uni.example,,1003,S-3,cy@uni,Section 2,cchen,M3,00125,cy.c,cchen
zoe,Zoë,Šimková,zoe@uni.example,,1004,S-4,zoe@uni,Section 2,zsimkova,M4,00126,zoe.s,zsimkova
fay,Fay,Fox,fay@uni.example,=HYPERLINK(1),1005,S-5,fay@uni,Section 2,ffox,M5,00127,fay.f,ffox
"""

# attention is worth 19 in the LMS as in the course; embeddings 100 in the LMS, 10 in the course
ITEMS = """assignment,name,max,canvas_id,blackboard_id,moodle_idnumber
attention,Attention,19,5501,881,att
embeddings,Embeddings,100,5502,882,emb
"""
COURSE_POINTS = {"attention": 19.0, "embeddings": 10.0}
LMS_MAX = {"attention": 19.0, "embeddings": 100.0}


def in_lms_scale(assignment, points):
    """A course score in the LMS item's scale, as a number with at most 2 decimals."""
    return round(points * LMS_MAX[assignment] / COURSE_POINTS[assignment], 2)


# What the class run graded (course points), computed from the checks below: bo lost 1 point to
# lateness, cy's attention counts a grader's 14 for attention_row (3 + 14); zoe handed in attention
# only; fay nothing; mallory is not on the roster.
GRADED = {("ada", "attention"): 19, ("ada", "embeddings"): 10, ("bo", "attention"): 2, ("bo", "embeddings"): 10,
          ("cy", "attention"): 17, ("cy", "embeddings"): 4, ("zoe", "attention"): 19}


def _attention(student, softmax, row, mistakes=()):
    details = {"what": "weights", "expected": "", "got": "", "mistakes": list(mistakes)} if mistakes else None
    output = f"wrong. That is the value you get when you {mistakes[0]}." if mistakes else ""
    return NotebookResult(student, "attention", "attention.ipynb", [
        CheckResult("softmax", "softmax: sums to one", softmax, 3.0, "" if softmax == 3.0 else "wrong"),
        CheckResult("attention_row", "attention_row: weights", row, 16.0, output, details=details)])


def _embeddings(student, points):
    return NotebookResult(student, "embeddings", "embeddings.ipynb", [
        CheckResult("cosine_similarity", "cosine_similarity: parallel vectors", points, 10.0,
                    "" if points == 10.0 else "wrong value")])


def _graded(tmp_path, results, totals=None, roster_text=ROSTER):
    """grades.csv and results.json files as a class run with ``roster_text`` writes them."""
    (tmp_path / "roster.csv").write_text(roster_text, encoding="utf-8")
    (tmp_path / "items.csv").write_text(ITEMS, encoding="utf-8")
    graded = tmp_path / "graded"
    for r in results:
        write_results(r, graded)
    roster = roster_mod.load(tmp_path / "roster.csv")
    handed_in = {(r.student_id, r.assignment_id) for r in results}
    absent = roster_mod.not_submitted(roster, handed_in, {r.assignment_id for r in results})
    report.write_grades_csv(results, graded / "grades.csv", totals or {}, not_submitted=absent)
    return tmp_path


@pytest.fixture
def course(tmp_path):
    """A graded/ folder as a class run with a roster writes it, the roster and the items file."""
    results = [
        _attention("ada", 3.0, 16.0), _embeddings("ada", 10.0),
        _attention("bo", 3.0, 0.0, [SQRT]), _embeddings("bo", 10.0),  # bo: late, 1 point taken
        _attention("cy", 3.0, 4.0), _embeddings("cy", 4.0),           # cy: a grader's 14 replaces 4
        _attention("zoe", 3.0, 16.0),                                  # zoe: no embeddings
        _attention("mallory", 3.0, 16.0),                              # not in the roster
    ]                                                                  # fay: nothing at all
    totals = {("bo", "attention"): Totals(3.0, 1.0, 19.0),
              ("cy", "attention"): Totals(17.0, 0.0, 19.0,
                                          [Override("attention.ipynb", "test_attention_row", 14.0, 4.0, 4.0)])}
    return _graded(tmp_path, results, totals)


def _lms(course, kind, *extra, out=None):
    ext = {"moodle-xml": "xml", "blackboard": "xls"}.get(kind, "csv")
    out = out or course / "lms" / f"{kind}.{ext}"
    status = cli.main(["lms", kind, str(course / "graded"), "--roster", str(course / "roster.csv"),
                       "--items", str(course / "items.csv"), "--out", str(out), *extra])
    return status, out


def _files(out):
    """The main file and the per-item files beside it, as the command wrote them."""
    return sorted(out.parent.glob(f"{out.stem}*{out.suffix}"))


# -- grades.csv and the class report: roster students who submitted nothing -----------------------------

def test_grades_csv_lists_roster_students_without_a_submission(course):
    with open(course / "graded" / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {(r["student_id"], r["assignment_id"]): r for r in csv.DictReader(f)}
    for key in [("fay", "attention"), ("fay", "embeddings"), ("zoe", "embeddings")]:
        assert rows[key]["score"] == "" and rows[key]["total"] == "" and rows[key]["problems"] == "not submitted"
    assert rows[("fay", "attention")]["max_score"] == "19"    # 3 + 16, the assignment's points
    assert rows[("bo", "attention")]["score"] == "2"          # 3 - 1 late
    assert ("mallory", "attention") in rows                   # graded: kept in grades.csv


def test_class_report_says_who_did_not_submit(course):
    written = class_report.write_all(course / "graded")
    page = written["html"].read_text(encoding="utf-8")
    missing = page.split("id='missing'")[1].split("</table>")[0]
    assert "<td>fay</td><td>attention, embeddings</td>" in missing
    assert "<td>zoe</td><td>embeddings</td>" in missing
    assert ">ada<" not in missing


# -- Canvas -----------------------------------------------------------------------------------------------

def _canvas_course():
    """Canvas's course: five students, two assignments, and grades it holds already: ada's old
    attention grade (to be replaced), fay's attention and zoe's embeddings entered by hand."""
    students = [CanvasStudent(1001, "Ada Lovelace", "Lovelace, Ada", "S-1", "ada@uni"),
                CanvasStudent(1002, "Bo Berg", "Berg, Bo", "2024,017", "bo@uni"),
                CanvasStudent(1003, "Cy Chen", "Chen, Cy", "S-3", "cy@uni"),
                CanvasStudent(1004, "Zoë Šimková", "Šimková, Zoë", "S-4", "zoe@uni"),
                CanvasStudent(1005, "Fay Fox", "Fox, Fay", "S-5", "fay@uni")]
    return CanvasCourse(students, {5501: ("Attention", 19), 5502: ("Embeddings", 100)},
                        {(1001, 5501): "12", (1005, 5501): "7", (1004, 5502): "55"})


CANVAS_IDS = {"ada": 1001, "bo": 1002, "cy": 1003, "zoe": 1004, "fay": 1005}
CANVAS_ASSIGNMENTS = {"attention": 5501, "embeddings": 5502}


def _number(x):
    return f"{x:.2f}".rstrip("0").rstrip(".")


def test_canvas_import_matches_every_student_and_assignment_and_keeps_held_grades(course, capsys):
    status, out = _lms(course, "canvas")
    assert status == 0
    files = _files(out)
    assert [f.name for f in files] == ["canvas-attention.csv", "canvas.csv"]  # zoe: attention only
    canvas = _canvas_course()
    after = dict(canvas.held)
    for path in files:
        upload = canvas_import(path.read_bytes(), CanvasCourse(canvas.students, canvas.assignments, after))
        assert upload.new_students == [] and upload.new_assignments == []
        assert all(int(float(p)) == {5501: 19, 5502: 100}[a] for a, p in upload.points.items())
        assert not [g for by in upload.grade_data.values() for g in by.values() if g in (None, "")]  # no blank
        after = canvas_apply(upload, CanvasCourse(canvas.students, canvas.assignments, after))
    expected = {(CANVAS_IDS[s], CANVAS_ASSIGNMENTS[a]): _number(in_lms_scale(a, p)) for (s, a), p in GRADED.items()}
    expected[(1005, 5501)] = "7"    # fay handed in nothing: her grade entered in Canvas stays
    expected[(1004, 5502)] = "55"   # zoe: no embeddings here, Canvas's stays
    assert after == expected
    assert expected[(1003, 5502)] == "40" and expected[(1001, 5502)] == "100"  # 4 of 10 course points, item of 100
    printed = capsys.readouterr()
    assert "mallory" in printed.err and "1 roster student(s) without a submission left out" in printed.out
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")                      # Excel reads the names as UTF-8
    assert '"Section 1, Tuesday"' in raw.decode("utf-8")


def test_canvas_names_never_run_as_formulas_and_ids_stay_exact(course):
    status, out = _lms(course, "canvas", "--not-submitted", "zero")
    assert status == 0
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    fay = [r for r in rows if r[1] == "1005"][0]
    assert fay[0] == "'=HYPERLINK(1)" and fay[5:] == ["0", "0"]    # text, never a formula; 0 on request


def test_canvas_not_submitted_zero_and_empty_say_what_they_do(course, capsys):
    canvas = _canvas_course()
    status, out = _lms(course, "canvas", "--not-submitted", "zero")
    assert status == 0 and _files(out) == [out]                   # one file, every roster student
    after = canvas_apply(canvas_import(out.read_bytes(), canvas), canvas)
    assert after[(1005, 5501)] == "0" and after[(1004, 5502)] == "0"    # the held grades replaced by 0
    assert "3 cell(s) without a submission written as 0" in capsys.readouterr().out
    status, out = _lms(course, "canvas", "--not-submitted", "empty")
    assert status == 0 and _files(out) == [out]
    after = canvas_apply(canvas_import(out.read_bytes(), canvas), canvas)
    assert (1005, 5501) not in after and (1004, 5502) not in after     # a blank cell removes them (docs/lms.md)
    assert "removes a grade the LMS holds" in capsys.readouterr().out


def test_canvas_needs_assignment_ids_and_a_canvas_id_per_student(course, capsys):
    (course / "items.csv").write_text(ITEMS.replace(",5501,", ",,"), encoding="utf-8")
    status, out = cli.main(["lms", "canvas", str(course / "graded"), "--roster", str(course / "roster.csv"),
                            "--items", str(course / "items.csv"), "--out", str(course / "c.csv")]), course / "c.csv"
    assert status == 2 and not out.exists()
    assert "canvas_id" in capsys.readouterr().err
    (course / "items.csv").write_text(ITEMS, encoding="utf-8")
    (course / "roster.csv").write_text(ROSTER.replace("1003,S-3,cy@uni", ",,"), encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 2 and not out.exists()
    assert "line 4 (cy)" in capsys.readouterr().err
    # an item named like one of Canvas's total columns would be dropped by the importer
    (course / "items.csv").write_text(ITEMS.replace("Embeddings", "Embeddings Final Grade"), encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 2 and "Embeddings Final Grade" in capsys.readouterr().err
    (course / "items.csv").write_text(ITEMS, encoding="utf-8")
    # bo without a Canvas user id: Canvas would read the SIS User ID 2024,017 as 2024.017 and miss him
    (course / "roster.csv").write_text(ROSTER.replace(",1002,", ",,"), encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 2 and not out.exists()
    assert "line 3 (bo): canvas_sis_user_id '2024,017' would be read as '2024.017'" in capsys.readouterr().err


# -- Moodle ---------------------------------------------------------------------------------------------

def _moodle_course():
    """Moodle's course: five users, two manual grade items, and what it holds: fay's attention
    and zoe's embeddings, with feedback, entered by hand."""
    users = [MoodleUser(1, "alovelace", "ada@uni.example", "M1"), MoodleUser(2, "bberg", "bo@uni.example", "M2"),
             MoodleUser(3, "cchen", "cy@uni.example", "M3"), MoodleUser(4, "zsimkova", "zoe@uni.example", "M4"),
             MoodleUser(5, "ffox", "fay@uni.example", "M5")]
    items = [MoodleItem(11, "Attention", 19.0, idnumber="att"), MoodleItem(12, "Embeddings", 100.0, idnumber="emb")]
    return MoodleCourse(users, items, {(5, 11): (7.0, "oral exam"), (4, 12): (55.0, "on paper")})


MOODLE_IDS = {"ada": 1, "bo": 2, "cy": 3, "zoe": 4, "fay": 5}
MOODLE_ITEMS = {"attention": 11, "embeddings": 12}


def _moodle_expected_grades():
    grades = {(MOODLE_IDS[s], MOODLE_ITEMS[a]): in_lms_scale(a, p) for (s, a), p in GRADED.items()}
    grades[(5, 11)], grades[(4, 12)] = 7.0, 55.0
    return grades


def test_moodle_csv_has_moodles_export_columns_and_imports_every_grade_and_feedback(course):
    status, out = _lms(course, "moodle")
    assert status == 0
    files = _files(out)
    assert [f.name for f in files] == ["moodle-attention.csv", "moodle.csv"]
    moodle = _moodle_course()
    after = moodle.held
    for path in files:
        header = moodle_csv_rows(path.read_bytes())[0]
        map_from, map_to, mapping = moodle_mapping(header, moodle)
        # the names alone settle every choice: the identifier, each grade and each feedback column
        assert (map_from, map_to) == (0, "username")
        assert set(mapping) == set(range(3, len(header)))
        after = moodle_csv_import(path.read_bytes(), MoodleCourse(moodle.users, moodle.items, after),
                                  map_from, map_to, mapping)
    assert {k: g for k, (g, _) in after.items()} == _moodle_expected_grades()
    assert after[(5, 11)] == (7.0, "oral exam") and after[(4, 12)] == (55.0, "on paper")   # untouched
    feedback = {k: html.unescape(f) for k, (_, f) in after.items()}   # Moodle shows its text format as HTML
    bo = feedback[(2, 11)]
    assert bo.startswith("2 of 19 points. ")
    assert f"In attention_row, your result is the one you get when you {SQRT}." in bo
    assert "The course's late-work policy took 1 point." in bo
    assert "A grader gave test_attention_row 14 points in place of the checks' 4." in feedback[(3, 11)]
    assert "cosine_similarity lost 6 of 10 points (failed checks: parallel vectors)." in feedback[(3, 12)]
    assert feedback[(3, 12)].startswith("4 of 10 course points (40 of 100 in this grade item).")
    assert feedback[(1, 11)] == "19 of 19 points."
    assert not any("report" in f for f in feedback.values() if f)


def test_moodle_csv_identifier_the_instructor_picks(course, capsys):
    status, out = _lms(course, "moodle", "--moodle-id", "email")
    assert status == 0
    header = moodle_csv_rows(out.read_bytes())[0]
    map_from, map_to, _ = moodle_mapping(header, _moodle_course())
    assert header[0] == "Email address" and (map_from, map_to) == (0, "useremail")
    # Moodle stops the whole import at a row whose identifier names nobody: every row needs one
    (course / "roster.csv").write_text(ROSTER.replace(",M3,", ",,"), encoding="utf-8")
    status, out = _lms(course, "moodle", "--moodle-id", "idnumber", out=course / "m2.csv")
    assert status == 2 and not out.exists()
    assert "line 4 (cy)" in capsys.readouterr().err


def test_moodle_usernames_are_written_as_moodle_stores_them(course):
    status, out = _lms(course, "moodle")
    rows = moodle_csv_rows(out.read_bytes())
    assert "bberg" in [r[0] for r in rows[1:]]                      # the roster says BBerg; Moodle stores bberg
    moodle = _moodle_course()
    after = moodle_csv_import(out.read_bytes(), moodle, *moodle_mapping(rows[0], moodle), case_blind=False)
    assert after[(2, 12)][0] == 100.0                               # found even where Moodle compares exactly


def test_moodle_not_submitted_zero_and_empty_say_what_they_do(course):
    moodle = _moodle_course()
    for choice, fay in (("zero", (0.0, "No submission was graded for this item.")), ("empty", (None, ""))):
        status, out = _lms(course, "moodle", "--not-submitted", choice, out=course / f"moodle-{choice}.csv")
        assert status == 0 and _files(out) == [out]
        rows = moodle_csv_rows(out.read_bytes())
        after = moodle_csv_import(out.read_bytes(), moodle, *moodle_mapping(rows[0], moodle))
        assert after[(5, 11)] == fay            # fay's grade and feedback entered by hand: replaced, or erased
        assert after[(4, 12)] == fay


def test_moodle_xml_imports_by_id_numbers_with_no_mapping(course):
    status, out = _lms(course, "moodle-xml")
    assert status == 0 and _files(out) == [out]
    moodle = _moodle_course()
    after = moodle_xml_import(out.read_bytes(), moodle)
    assert {k: g for k, (g, _) in after.items()} == _moodle_expected_grades()
    assert after[(4, 12)] == (55.0, "on paper")
    assert html.unescape(after[(1, 12)][1]) == "10 of 10 course points (100 of 100 in this grade item)."
    (course / "items.csv").write_text(ITEMS.replace(",emb\n", ",\n"), encoding="utf-8")
    status, out = _lms(course, "moodle-xml", out=course / "m.xml")
    assert status == 2 and not out.exists()


def test_moodle_refuses_a_grade_above_the_items_maximum(course, capsys):
    # a grader's 21 for attention_row: 24 of 19; Moodle would stop the whole import at it
    totals = {("cy", "attention"): Totals(24.0, 0.0, 19.0, [Override("attention.ipynb", "test_attention_row", 21.0,
                                                                      4.0, 4.0)])}
    results = [_attention("cy", 3.0, 4.0), _attention("ada", 3.0, 16.0)]
    _graded(course, results, totals)
    for kind in ("moodle", "moodle-xml", "brightspace"):
        status, out = _lms(course, kind, out=course / f"x-{kind}")
        assert status == 2 and not out.exists()
        assert "'Attention' (max 19): cy 24" in capsys.readouterr().err
    status, out = _lms(course, "canvas")                             # Canvas takes it (extra credit)
    assert status == 0


# -- Brightspace ------------------------------------------------------------------------------------------

BRIGHTSPACE_USERS = {"00123": "ada", "00124": "bo", "00125": "cy", "00126": "zoe", "00127": "fay"}


def test_brightspace_import_matches_ids_and_items_and_keeps_held_grades(course):
    status, out = _lms(course, "brightspace")
    assert status == 0
    files = _files(out)
    assert [f.name for f in files] == ["brightspace-attention.csv", "brightspace.csv"]
    items = [BrightspaceItem("Attention", 19), BrightspaceItem("Embeddings", 100)]
    after = {("fay", "Attention"): 7.0, ("zoe", "Embeddings"): 55.0}
    for path in files:
        after = brightspace_import(path.read_bytes(), BRIGHTSPACE_USERS, items, after)
    expected = {(s, a.capitalize()): in_lms_scale(a, p) for (s, a), p in GRADED.items()}
    expected[("fay", "Attention")], expected[("zoe", "Embeddings")] = 7.0, 55.0
    assert after == expected
    header, *rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert header[:2] == ["OrgDefinedId", "Username"] and rows[0][0] == "#00123"   # leading zeros kept behind '#'
    assert not out.read_bytes().startswith(b"\xef\xbb\xbf")


def test_brightspace_needs_orgdefinedid_or_username(course, capsys):
    (course / "roster.csv").write_text(ROSTER.replace("00125,cy.c", ","), encoding="utf-8")
    status, out = _lms(course, "brightspace")
    assert status == 2 and "line 4 (cy)" in capsys.readouterr().err


# -- Blackboard -------------------------------------------------------------------------------------------

BLACKBOARD_USERS = {"alovelace": "ada", "bberg": "bo", "cchen": "cy", "zsimkova": "zoe", "ffox": "fay"}


def test_blackboard_upload_matches_usernames_and_column_ids(course):
    status, out = _lms(course, "blackboard")
    assert status == 0
    files = _files(out)
    assert [f.name for f in files] == ["blackboard-attention.xls", "blackboard.xls"]
    held = {("fay", "881"): "7", ("zoe", "882"): "55"}
    after = held
    for path in files:
        after = blackboard_upload(path.read_bytes(), BLACKBOARD_USERS, {"881", "882"}, after)
    expected = {(s, {"attention": "881", "embeddings": "882"}[a]): _number(in_lms_scale(a, p))
                for (s, a), p in GRADED.items()}
    expected.update(held)
    assert after == expected
    raw = out.read_bytes()
    assert raw.startswith(b"\xff\xfe")                             # UTF-16, as Blackboard's own download
    header = blackboard_rows(raw)[0]
    assert header == ["Last Name", "First Name", "Username", "Attention [Total Pts: 19 Score] |881",
                      "Embeddings [Total Pts: 100 Score] |882"]
    assert raw.decode("utf-16").splitlines()[1].startswith('"Lovelace"\t"Ada"\t"alovelace"\t"19"')


def test_blackboard_needs_column_ids_usernames_and_names_without_tabs(course, capsys):
    (course / "items.csv").write_text(ITEMS.replace(",881,", ",,"), encoding="utf-8")
    status, out = _lms(course, "blackboard")
    assert status == 2 and not out.exists() and "blackboard_id" in capsys.readouterr().err
    (course / "items.csv").write_text(ITEMS, encoding="utf-8")
    (course / "roster.csv").write_text(ROSTER.replace(",cchen\n", ",\n"), encoding="utf-8")
    status, out = _lms(course, "blackboard")
    assert status == 2 and "line 4 (cy)" in capsys.readouterr().err


# -- the scale, the items file ------------------------------------------------------------------------------

def test_items_file_must_give_each_items_maximum(course, capsys):
    (course / "items.csv").write_text("assignment,name,canvas_id\nattention,Attention,5501\n", encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 2 and not out.exists()
    err = capsys.readouterr().err
    assert "no max" in err and "'attention' (line 2; the course's points: 19)" in err and "lms items" in err
    (course / "items.csv").write_text("assignment,max\nattention,nineteen\nembeddings,0\n", encoding="utf-8")
    status, _ = _lms(course, "canvas")
    err = capsys.readouterr().err
    assert status == 2 and "line 2: max 'nineteen'" in err and "line 3: max '0'" in err


def test_lms_items_writes_a_starting_file_from_the_course(course, capsys):
    out = course / "lms_items.csv"
    assert cli.main(["lms", "items", str(course / "graded"), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["assignment"], r["name"], r["max"]) for r in rows] == [("attention", "attention", "19"),
                                                                      ("embeddings", "embeddings", "10")]
    assert cli.main(["lms", "items", str(course / "graded"), "--out", str(out)]) == 2   # never over a file
    assert "is not replaced" in capsys.readouterr().err


# -- student ids: one comparison on every path --------------------------------------------------------------

ODD_ROSTER = "student_id,canvas_user_id\nann,2001\nben,2002\nzo\u00e9,2003\n"  # zoé, composed


def test_odd_graded_ids_are_matched_to_the_roster_and_said(tmp_path, capsys):
    # folders named " ann", "BEN\t" and "Zoe\u0301" (decomposed) are ann, ben and zoé of the roster
    results = [_attention(" ann", 3.0, 16.0), _attention("BEN\t", 3.0, 0.0), _attention("Zoe\u0301", 3.0, 4.0)]
    course = _graded(tmp_path, results, roster_text=ODD_ROSTER)
    with open(course / "graded" / "grades.csv", newline="", encoding="utf-8") as f:
        graded = {r["student_id"]: r["problems"] for r in csv.DictReader(f)}
    assert "not submitted" not in graded.values()                   # nobody on the roster counted absent
    (course / "items.csv").write_text("assignment,max,canvas_id\nattention,19,5501\n", encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 0
    students = [CanvasStudent(2001, "Ann", "Ann"), CanvasStudent(2002, "Ben", "Ben"), CanvasStudent(2003, "Zoé", "Zoé")]
    upload = canvas_import(out.read_bytes(), CanvasCourse(students, {5501: ("attention", 19)}))
    assert upload.new_students == [] and upload.grade_data == {5501: {2001: "19", 2002: "3", 2003: "7"}}
    err = capsys.readouterr().err
    assert "' ann'" in err and "'BEN\\\\t'" in err and "roster line 2's 'ann'" in err


def test_two_graded_ids_that_are_one_student_are_refused_by_line(tmp_path, capsys):
    results = [_attention("ann", 3.0, 16.0), _attention("ANN ", 3.0, 0.0)]
    course = _graded(tmp_path, results, roster_text=ODD_ROSTER)
    (course / "items.csv").write_text("assignment,max,canvas_id\nattention,19,5501\n", encoding="utf-8")
    status, out = _lms(course, "canvas")
    assert status == 2 and not out.exists()
    assert "student_id 'ANN ' (line 2) and 'ann' (line 3)" in capsys.readouterr().err


def test_a_class_run_counts_an_odd_folder_as_its_roster_student(tmp_path, capsys):
    from autograder.lms.command import absent_for_run
    (tmp_path / "roster.csv").write_text(ODD_ROSTER, encoding="utf-8")
    roster = roster_mod.load(tmp_path / "roster.csv")
    absent = absent_for_run(roster, [_attention("Ann\n", 3.0, 16.0), _attention("ben", 3.0, 16.0)])
    assert absent == [("zo\u00e9", "attention")]
    assert "graded 'Ann\\n' is" in capsys.readouterr().err


# -- the roster ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("student_id,email\nann,a@x\nann,b@x\n", "line 3: student_id 'ann' is also on line 2"),
    ("student_id,email\nann,a@x\n,b@x\n", "line 3: no student_id"),
    ("student_id,canvas_userid\nann,1\n", "line 1: unknown column(s) 'canvas_userid'"),
    ("student_id,canvas_user_id\nann,7\nben,7\n", "line 3: canvas_user_id '7' is also on line 2"),
    ("student_id,email\nann,Ann@X\nben,ann@x\n", "line 3: email 'ann@x' is also on line 2"),
    ("student_id,canvas_section\nann,Section 1, Tuesday\n", "line 2: 3 cells but 2 columns"),
    ("email\na@x\n", "line 1: no student_id column"),
    ("student_id\n../ann\n", "line 2: student_id '../ann' cannot be a folder name"),
    # one student once case, spaces and Unicode form are set aside; an id an LMS file cannot write as it is
    ("student_id\nann\nAnn\n", "line 3: student_id 'Ann' is also on line 2 (as 'ann'"),
    ("student_id\nzoe\u0301\nzo\u00e9\n", "line 3: student_id 'zoé' is also on line 2"),
    ("student_id,moodle_username\nann,a\u200bnn\n", "line 2: moodle_username 'a\\u200bnn' holds the invisible"),
    ("student_id,canvas_sis_user_id\nann,=1+1\n", "line 2: canvas_sis_user_id '=1+1' starts with '='"),
])
def test_roster_errors_name_the_line(tmp_path, text, message):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RosterError) as err:
        roster_mod.load(path)
    assert message in str(err.value)


def test_roster_accepts_excel_bom_blank_lines_and_spaces(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffstudent_id , first_name\n ann , Zoë \n\n".encode("utf-8"))
    r = roster_mod.load(path)
    assert r.ids() == ["ann"] and r.students[0].get("first_name") == "Zoë" and r.students[0].line == 2


def test_course_roster_is_found_beside_submitted(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("")
    (tmp_path / "submitted" / "ann" / "attention").mkdir(parents=True)
    assert roster_mod.course_roster(tmp_path / "submitted") is None
    (tmp_path / "roster.csv").write_text("student_id\nann\n")
    assert roster_mod.course_roster(tmp_path / "submitted" / "ann") == tmp_path / "roster.csv"


def test_grade_stops_before_grading_on_a_broken_roster(tmp_path, capsys):
    nb = tmp_path / "ann.ipynb"
    nb.write_text("{}")
    (tmp_path / "roster.csv").write_text("student_id\nann\nann\n")
    with pytest.raises(SystemExit) as stop:
        cli.main(["grade", str(nb), "--assignment", "attention", "--roster", str(tmp_path / "roster.csv"),
                  "--out", str(tmp_path / "graded")])
    assert stop.value.code == 2
    assert "line 3: student_id 'ann' is also on line 2" in capsys.readouterr().err
    assert not (tmp_path / "graded").exists()


@pytest.mark.slow  # an nbgrader gradebook: several nbgrader commands, each a few seconds
def test_roster_loads_students_into_nbgraders_gradebook(tmp_path):
    from nbgrader.api import Gradebook
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    assert roster_mod.load_into_gradebook(roster_mod.load(path), url) == 5
    assert roster_mod.load_into_gradebook(roster_mod.load(path), url) == 5   # again: updated, not duplicated
    with Gradebook(url) as gb:
        assert len(gb.students) == 5
        zoe = gb.find_student("zoe")
        assert (zoe.first_name, zoe.last_name, zoe.email) == ("Zoë", "Šimková", "zoe@uni.example")


def test_lms_file_without_grades_csv_or_items_is_a_clear_error(tmp_path):
    (tmp_path / "roster.csv").write_text("student_id\nann\n")
    (tmp_path / "items.csv").write_text("assignment,max\nattention,19\n")
    with pytest.raises(GradedError, match="grades.csv"):
        write_lms_file("moodle", tmp_path / "nothing", tmp_path / "roster.csv", items_path=tmp_path / "items.csv",
                       say=lambda t: None)
    with pytest.raises(GradedError, match="lms items"):
        write_lms_file("moodle", tmp_path / "nothing", tmp_path / "roster.csv", say=lambda t: None)


def test_a_class_run_lists_roster_students_without_a_notebook(tmp_path, capsys):
    from autograder.lms.command import absent_for_run
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    roster = roster_mod.load(tmp_path / "roster.csv")
    results = [_attention("ada", 3.0, 16.0), _embeddings("ada", 10.0), _attention("bo", 3.0, 16.0),
               _attention("mallory", 3.0, 16.0)]
    absent = absent_for_run(roster, results)
    assert absent == sorted([("bo", "embeddings"), ("cy", "attention"), ("cy", "embeddings"),
                             ("fay", "attention"), ("fay", "embeddings"), ("zoe", "attention"),
                             ("zoe", "embeddings")])
    assert "mallory" in capsys.readouterr().err
    assert absent_for_run(None, results) == []


@pytest.mark.slow  # an nbgrader gradebook: several nbgrader commands, each a few seconds
def test_roster_commands_check_and_load(tmp_path, capsys):
    from nbgrader.api import Gradebook
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    assert cli.main(["roster", "check", str(path)]) == 0
    assert "5 student(s)" in capsys.readouterr().out
    url = f"sqlite:///{tmp_path / 'gb.db'}"
    assert cli.main(["roster", "load", str(path), "--gradebook", url]) == 0
    with Gradebook(url) as gb:
        assert sorted(s.id for s in gb.students) == ["ada", "bo", "cy", "fay", "zoe"]
    path.write_text("student_id,canvas_userid\nann,1\n", encoding="utf-8")
    assert cli.main(["roster", "check", str(path)]) == 2
    assert "unknown column(s) 'canvas_userid'" in capsys.readouterr().err


# -- feedback ------------------------------------------------------------------------------------------------

def test_feedback_says_each_thing_once_and_on_its_own():
    from autograder.lms import feedback
    from autograder.lms.graded import Grade, Lost
    grade = Grade("cy", "next_token", 12.0, 17.0, late=1.0,
                  overrides="test_sgd: manual 2 replaces automatic 0",
                  mistakes=[("sgd_update", "add the gradient instead of subtracting it; W would be 0.65."),
                            ("sgd_update", "add the gradient instead of subtracting it")],
                  failed=[Lost("sgd_update", 0.0, 3.0, ["sgd_update: one step"]),
                          Lost("forward", 0.0, 3.0, ["forward: h", "forward: logits"], stub=True),
                          Lost("cross_entropy", 1.0, 7.0, [f"cross_entropy: case {n}" for n in range(7)])])
    assert feedback.sentences(grade) == [
        "12 of 17 points.",
        "In sgd_update, your result is the one you get when you add the gradient instead of subtracting it; "
        "W would be 0.65.",
        "forward is still the stub that raises NotImplementedError (3 of 3 points lost).",
        "cross_entropy lost 6 of 7 points (failed checks: case 0; case 1; case 2; case 3; case 4; and 2 more).",
        "A grader gave test_sgd 2 points in place of the checks' 0.",
        "The course's late-work policy took 1 point.",
    ]
    assert feedback.sentences(grade, 70.59, 100.0)[0] == "12 of 17 course points (70.59 of 100 in this grade item)."
    assert feedback.text(Grade("fay", "next_token", None, 17.0)) == ""
