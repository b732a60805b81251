"""LMS import files (autograder/lms/) against the formats the vendors document.

What each test expects comes from the vendors' documentation (docs/lms.md), not from our output:

* Canvas (Instructure's "How do I import grades in the Gradebook?" and Canvas's own gradebook
  exporter/importer): a header ``Student, ID, SIS User ID, SIS Login ID, Section`` then
  ``<name> (<assignment id>)`` columns; a second row whose first cell holds "Points Possible"
  with the points; the student found by ID, SIS User ID or SIS Login ID.
* Moodle ("Grade import", MoodleDocs; ``grade/import/csv``): an identifier column the teacher
  maps to username, email or ID number; grade columns and feedback columns; an empty grade is
  "no grade"; every row must name a known user, or the whole import stops.
* Brightspace (D2L "Importing grades"): ``OrgDefinedId``, ``Username``, ``<item> Points Grade``
  columns and a last ``End-of-Line Indicator`` column of ``#``; Brightspace's export puts ``#``
  in front of the ids.

The graded/ folders are written with the class run's own writers (``report.write_results``,
``report.write_grades_csv`` with the gradebook's ``Totals``), as a class run writes them.
"""
import csv
import io
import re

import pytest

from autograder import cli
from autograder.checks.plugin import CheckResult
from autograder.grading.result import NotebookResult
from autograder.lms import roster as roster_mod
from autograder.lms.command import write_lms_file
from autograder.lms.graded import GradedError
from autograder.lms.roster import RosterError
from autograder.nbgrader_glue.gradebook import Override, Totals
from autograder.reports import class_report
from autograder.reports import console as report

SQRT = "forget to divide the scores by sqrt(d_k)"

ROSTER = """student_id,first_name,last_name,email,canvas_name,canvas_user_id,canvas_sis_user_id,canvas_sis_login_id,\
canvas_section,moodle_username,moodle_idnumber,brightspace_org_defined_id,brightspace_username
ada,Ada,Lovelace,ada@uni.example,,1001,S-1,ada@uni,"Section 1, Tuesday",alovelace,M1,00123,ada.l
bo,Bo,Berg,bo@uni.example,,1002,"2024,017",bo@uni,"Section 1, Tuesday",bberg,M2,00124,bo.b
cy,Cy,Chen,cy@uni.example,,1003,S-3,cy@uni,Section 2,cchen,M3,00125,cy.c
zoe,Zoë,Šimková,zoe@uni.example,,1004,S-4,zoe@uni,Section 2,zsimkova,M4,00126,zoe.s
fay,Fay,Fox,fay@uni.example,=HYPERLINK(1),1005,S-5,fay@uni,Section 2,ffox,M5,00127,fay.f
"""

ITEMS = "assignment,name,canvas_id\nattention,Attention,5501\nembeddings,Embeddings,5502\n"


def _attention(student, softmax, row, mistakes=()):
    details = {"what": "weights", "expected": "", "got": "", "mistakes": list(mistakes)} if mistakes else None
    output = f"wrong. That is the value you get when you {mistakes[0]}." if mistakes else ""
    return NotebookResult(student, "attention", "attention.ipynb", [
        CheckResult("softmax", "softmax: sums to one", softmax, 3.0, ""),
        CheckResult("attention_row", "attention_row: weights", row, 16.0, output, details=details)])


def _embeddings(student, points):
    return NotebookResult(student, "embeddings", "embeddings.ipynb", [
        CheckResult("cosine_similarity", "cosine_similarity: parallel vectors", points, 10.0,
                    "" if points == 10.0 else "wrong value")])


@pytest.fixture
def course(tmp_path):
    """A graded/ folder as a class run with a roster writes it, the roster and the items file."""
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "items.csv").write_text(ITEMS, encoding="utf-8")
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
    graded = tmp_path / "graded"
    for r in results:
        report.write_results(r, graded)
    roster = roster_mod.load(tmp_path / "roster.csv")
    handed_in = {(r.student_id, r.assignment_id) for r in results}
    absent = roster_mod.not_submitted(roster, handed_in, {"attention", "embeddings"})
    report.write_grades_csv(results, graded / "grades.csv", totals, not_submitted=absent)
    return tmp_path


def _read(path, bom):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == bom
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def _lms(course, kind, *extra):
    out = course / f"{kind}.csv"
    status = cli.main(["lms", kind, str(course / "graded"), "--roster", str(course / "roster.csv"),
                       "--out", str(out), *extra])
    return status, out


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

def test_canvas_file_has_canvas_header_points_possible_row_and_grades_of_record(course, capsys):
    status, out = _lms(course, "canvas", "--items", str(course / "items.csv"))
    assert status == 0
    rows = _read(out, bom=True)
    header, points, *students = rows
    # Canvas's importer: Student, ID, then SIS User ID and SIS Login ID, and Section last of the student columns
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assignment = re.compile(r"^(.*) \((\d+)\)$")                     # "<title> (<id>)", as Canvas exports it
    assert [assignment.match(h).groups() for h in header[5:]] == [("Attention", "5501"), ("Embeddings", "5502")]
    assert "Points Possible" in points[0] and points[1:5] == ["", "", "", ""]
    assert points[5:] == ["19", "10"]
    by = {r[1]: r for r in students}
    assert set(by) == {"1001", "1002", "1003", "1004", "1005"}       # mallory is not in the roster: left out
    assert by["1001"] == ["Lovelace, Ada", "1001", "S-1", "ada@uni", "Section 1, Tuesday", "19", "10"]
    assert by["1002"][2] == "2024,017" and by["1002"][5:] == ["2", "10"]   # 3 points - 1 late
    assert by["1003"][5:] == ["17", "4"]                              # the grader's 14 + 3, not the checks' 7
    assert by["1004"][0] == "Šimková, Zoë" and by["1004"][5:] == ["19", ""]
    assert by["1005"][5:] == ["", ""]                                 # not submitted: empty, not 0
    assert by["1005"][0] == "'=HYPERLINK(1)"                          # never a formula
    raw = out.read_text(encoding="utf-8-sig")
    assert '"2024,017"' in raw and '"Section 1, Tuesday"' in raw      # a comma stays inside its quoted cell
    assert "mallory" in capsys.readouterr().err


def test_canvas_zeros_on_request(course):
    status, out = _lms(course, "canvas", "--items", str(course / "items.csv"), "--zeros")
    assert status == 0
    fay = [r for r in _read(out, bom=True) if r[1] == "1005"][0]
    assert fay[5:] == ["0", "0"]


def test_canvas_needs_assignment_ids_and_a_canvas_id_per_student(course, capsys):
    status, out = _lms(course, "canvas")
    assert status == 2 and not out.exists()
    assert "canvas_id" in capsys.readouterr().err
    text = ROSTER.replace("1003,S-3,cy@uni", ",,")
    (course / "roster.csv").write_text(text, encoding="utf-8")
    status, out = _lms(course, "canvas", "--items", str(course / "items.csv"))
    assert status == 2 and not out.exists()
    assert "line 4 (cy)" in capsys.readouterr().err


# -- Moodle -----------------------------------------------------------------------------------------------

def test_moodle_file_keyed_by_username_with_grade_and_feedback_columns(course):
    status, out = _lms(course, "moodle", "--items", str(course / "items.csv"))
    assert status == 0
    header, *rows = _read(out, bom=True)
    assert header[0] == "Username"
    assert header[3:] == ["Attention", "Attention (feedback)", "Embeddings", "Embeddings (feedback)"]
    by = {r[0]: dict(zip(header, r, strict=True)) for r in rows}
    assert set(by) == {"alovelace", "bberg", "cchen", "zsimkova", "ffox"}
    assert by["alovelace"]["Attention"] == "19" and by["alovelace"]["Attention (feedback)"].startswith("19 of 19")
    bo = by["bberg"]["Attention (feedback)"]
    assert bo.startswith("2 of 19 points.")
    assert f"attention_row: your result is the one you get when you {SQRT}." in bo
    assert "took 1 point." in bo
    assert "manual 14 replaces automatic 4" in by["cchen"]["Attention (feedback)"]
    assert by["cchen"]["Attention"] == "17"
    assert "cosine_similarity: 4 of 10 points" in by["cchen"]["Embeddings (feedback)"]
    assert by["ffox"]["Attention"] == "" and by["ffox"]["Attention (feedback)"] == ""
    assert by["zsimkova"]["Last name"] == "Šimková"


def test_moodle_identifier_the_instructor_picks(course, capsys):
    status, out = _lms(course, "moodle", "--moodle-id", "email")
    assert status == 0
    header, *rows = _read(out, bom=True)
    assert header[0] == "Email address" and {r[0] for r in rows} >= {"ada@uni.example", "zoe@uni.example"}
    # Moodle stops the whole import at a row whose identifier names nobody: every row needs one
    (course / "roster.csv").write_text(ROSTER.replace(",M3,", ",,"), encoding="utf-8")
    out.unlink()
    status, out = _lms(course, "moodle", "--moodle-id", "idnumber")
    assert status == 2 and not out.exists()
    assert "line 4 (cy)" in capsys.readouterr().err


# -- Brightspace ------------------------------------------------------------------------------------------

def test_brightspace_file_has_points_grade_columns_and_end_of_line_indicator(course):
    status, out = _lms(course, "brightspace", "--items", str(course / "items.csv"))
    assert status == 0
    header, *rows = _read(out, bom=False)
    assert header == ["OrgDefinedId", "Username", "Attention Points Grade", "Embeddings Points Grade",
                      "End-of-Line Indicator"]
    assert all(r[-1] == "#" and len(r) == len(header) for r in rows)
    by = {r[0]: r for r in rows}
    assert by["#00123"] == ["#00123", "#ada.l", "19", "10", "#"]     # leading zeros kept behind '#'
    assert by["#00124"][2:4] == ["2", "10"] and by["#00125"][2:4] == ["17", "4"]
    assert by["#00127"][2:4] == ["", ""]


def test_brightspace_needs_orgdefinedid_or_username(course, capsys):
    (course / "roster.csv").write_text(ROSTER.replace("00125,cy.c", ","), encoding="utf-8")
    status, out = _lms(course, "brightspace")
    assert status == 2 and "line 4 (cy)" in capsys.readouterr().err


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


def test_lms_file_without_grades_csv_is_a_clear_error(tmp_path):
    (tmp_path / "roster.csv").write_text("student_id\nann\n")
    with pytest.raises(GradedError, match="grades.csv"):
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
