"""Does the demo class run end to end and grade each simulated student as designed?"""
import csv
import re

import pytest

from autograder.course.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes
from autograder.demo.students import REFERENCE, STUBS, STUDENTS


def test_every_student_plan_names_known_mistakes_one_per_function():
    known = {m.id: m for m in all_mistakes()}
    for student, plan in STUDENTS.items():
        if plan in (REFERENCE, STUBS):
            continue
        assert set(plan) <= set(known), student
        functions = [(known[i].exercise, known[i].function) for i in plan]
        assert len(functions) == len(set(functions)), student


@pytest.mark.slow
def test_demo_class_through_nbgrader(demo_class):
    results, work = demo_class
    by = {(r.student_id, r.assignment_id): r for r in results}
    assert len(by) == len(STUDENTS) * len(EXERCISES)
    known = {m.id: m for m in all_mistakes()}
    for name in EXERCISES:
        assert by[("ada", name)].score == by[("ada", name)].max_score > 0
        assert by[("bo", name)].score == 0
        assert all("not implemented" in c.output for c in by[("bo", name)].checks)
        # cy and dee lose exactly the checks their mistakes lose, and keep every other point
        for student in ("cy", "dee"):
            expected = set()
            for mistake_id in STUDENTS[student]:
                if known[mistake_id].exercise == name:
                    expected |= set(known[mistake_id].failing_checks)
            failed = {c.name for c in by[(student, name)].checks if c.score < c.max_score}
            assert failed == expected, (student, name)
    # eve's endless loop and forbidden import cost her those functions' points, with reasons
    eve = {c.name: c.output for r in results if r.student_id == "eve" for c in r.checks}
    assert "did not return within" in eve["causal_mask: 3 tokens"]
    assert any("not available to submissions" in o for n, o in eve.items() if n.startswith("cosine_similarity:"))
    with open(work / "graded" / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # fay is on the roster and hands in nothing: a "not submitted" row per assignment, score empty
    assert len(rows) == len(by) + len(EXERCISES)
    assert {(r["assignment_id"], r["score"], r["problems"]) for r in rows if r["student_id"] == "fay"} == \
        {(name, "", "not submitted") for name in EXERCISES}
    missing = (work / "graded" / "class.html").read_text(encoding="utf-8").split("id='missing'")[1]
    assert "<td>fay</td>" in missing.split("</table>")[0]
    _check_lms_files(work / "graded" / "lms", by)
    assert (work / "graded" / "attention" / "eve" / "feedback.txt").is_file()
    assert all((work / "graded" / name).is_file() for name in ("class.html", "class_checks.csv", "class_mistakes.csv"))
    # feedback.txt keeps each message whole (wrapped), report.html sits beside results.json
    cy = work / "graded" / "attention" / "cy"
    feedback = " ".join(line.strip() for line in (cy / "feedback.txt").read_text(encoding="utf-8").splitlines())
    assert "That is the value you get when you forget to divide the scores by sqrt(d_k)." in feedback
    assert "forget to divide the scores by sqrt(d_k)" in (cy / "report.html").read_text(encoding="utf-8")
    # the scores are in the course's SQLite gradebook too, and nbgrader's own commands work in the course
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{work / 'course' / 'gradebook.db'}", "demo") as gb:
        for name in EXERCISES:
            recorded = {s.student.id: s.score for s in gb.assignment_submissions(name)}
            assert recorded == {s: by[(s, name)].score for s in STUDENTS}, name
    assert (work / "course" / "nbgrader_config.py").is_file()


def _check_lms_files(lms, by):
    """graded/lms/ holds the three import files in their vendors' documented layouts (docs/lms.md)."""
    n = len(EXERCISES)
    with open(lms / "canvas.csv", newline="", encoding="utf-8-sig") as f:
        header, points, *rows = list(csv.reader(f))
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and len(header) == 5 + n
    assert all(re.fullmatch(r".+ \(\d+\)", h) for h in header[5:])
    assert "Points Possible" in points[0]
    canvas = {r[1]: r for r in rows}
    assert canvas["90001"][5:] == points[5:]                          # ada: full marks everywhere
    assert canvas["90002"][0] == "Ørsted, Bo" and set(canvas["90002"][5:]) == {"0"}   # bo: the stubs
    assert canvas["90006"][5:] == [""] * n                           # fay: not submitted, empty
    with open(lms / "moodle.csv", newline="", encoding="utf-8-sig") as f:
        moodle = {r["Username"]: r for r in csv.DictReader(f)}
    assert "forget to divide the scores by sqrt(d_k)" in moodle["cnakamura"]["Attention (feedback)"]
    assert moodle["cnakamura"]["Attention"] == f"{by[('cy', 'attention')].score:g}"
    with open(lms / "brightspace.csv", newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    assert header[:2] == ["OrgDefinedId", "Username"] and header[-1] == "End-of-Line Indicator"
    assert all(h.endswith(" Points Grade") for h in header[2:-1]) and len(header) == 3 + n
    assert len(rows) == 6 and all(r[-1] == "#" and r[0].startswith("#") for r in rows)
