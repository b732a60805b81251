"""Does the demo class run end to end and grade each simulated student as designed? Does it show the
whole course (a named mistake in every exercise, each planted mistake named) and only the one planted
near-copy, with no flag raised by accident?"""
import csv
import importlib.util
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, Job, NotebookResult
from autograder.demo.fill import reference_code
from autograder.demo.mistakes import all_mistakes
from autograder.demo.run import masked_mistakes, submission_for
from autograder.demo.students import COPY, REFERENCE, STUBS, STUDENTS
from autograder.demo.styles import style
from autograder.reports import near_copies

SQRT = "forget to divide the scores by sqrt(d_k)"


def test_every_student_plan_names_known_mistakes_one_per_function():
    known = {m.id: m for m in all_mistakes()}
    for student, plan in STUDENTS.items():
        if plan in (REFERENCE, STUBS):
            continue
        assert set(plan) <= set(known), student
        functions = [(known[i].exercise, known[i].function) for i in plan]
        assert len(functions) == len(set(functions)), student


def test_every_exercise_has_a_planted_mistake_and_every_student_writes_code_of_their_own():
    known = {m.id: m for m in all_mistakes()}
    for name, exercise in EXERCISES.items():
        planted = [i for plan in STUDENTS.values() if plan not in (REFERENCE, STUBS) for i in plan
                   if known[i].exercise == name]
        assert planted, name
        reference = reference_code(exercise)
        for student, plan in STUDENTS.items():
            if plan in (REFERENCE, STUBS):
                continue
            own = style(student, exercise)
            replaced = {known[i].function for i in plan if known[i].exercise == name}
            assert set(own) | replaced == set(exercise.functions), (student, name)
            assert not [f for f, code in own.items() if code.strip() == reference[f].strip()], (student, name)
            submission_for(student, exercise, known)   # every function written (else KeyError)


def test_an_exercise_without_styles_yet_gets_the_reference_and_the_demo_says_so(monkeypatch):
    import autograder.demo.styles as styles
    monkeypatch.setattr(styles, "styles_of", lambda exercise: {})   # as for a new exercise's folder
    exercise, known = EXERCISES["attention"], {m.id: m for m in all_mistakes()}
    assert style("cy", exercise) == {}
    cells = {c.metadata["nbgrader"]["grade_id"]: c.source for c in submission_for("cy", exercise, known).cells
             if c.metadata.get("nbgrader", {}).get("solution")}
    planted = {known[i].function: known[i].code.lstrip("\n") for i in STUDENTS["cy"] if known[i].exercise == "attention"}
    assert cells == {**reference_code(exercise), **planted}
    run = (Path(__file__).parents[2] / "autograder" / "demo" / "run.py").read_text(encoding="utf-8")
    assert "have no code of their own for" in run


def test_a_masked_planted_mistake_is_said_with_what_masks_it():
    known = {m.id: m for m in all_mistakes()}
    mask = known["attention-mask_after_softmax"]
    hung = CheckResult(mask.function, f"{mask.function}: causal", 0.0, 1.0,
                       f"{mask.function}: did not return within 2 s of CPU time", frozenset())
    named = CheckResult(mask.function, f"{mask.function}: causal", 0.0, 1.0, f"... you {mask.feedback} ...", frozenset())
    for checks, expected in (([hung], [("eve", mask.id, hung.output)]), ([named], []),
                             ([], [("eve", mask.id, f"every check of {mask.function} passed")])):
        results = [NotebookResult("eve", "attention", "attention.ipynb", checks)]
        found = [x for x in masked_mistakes(results, known) if x[:2] == ("eve", mask.id)]
        assert found == expected


def _hand_ins(folder):
    """The demo students' notebooks, written as they hand them in, as (jobs, stand-in results)."""
    known = {m.id: m for m in all_mistakes()}
    jobs, results = [], []
    for name, exercise in EXERCISES.items():
        for student in STUDENTS:
            path = folder / student / name / exercise.notebook
            path.parent.mkdir(parents=True)
            nbformat.write(submission_for(student, exercise, known), path)
            jobs.append(Job(path, student, exercise))
            results.append(NotebookResult(student, name, exercise.notebook,
                                          [CheckResult("f", "f: c", 1.0, 1.0, "", frozenset())]))
    return jobs, results


def test_the_hand_ins_hold_one_near_copy_the_planted_one(tmp_path):
    """copydetect over the class's own code, as a class run compares it: honest styles are not
    near-copies of one another nor of the reference; the disguised copy is found."""
    jobs, results = _hand_ins(tmp_path / "submitted")
    (tmp_path / "graded").mkdir()
    path = near_copies.find(jobs, results, tmp_path / "graded")
    found = json.loads(path.read_text(encoding="utf-8"))["assignments"]
    copier, source, exercise = COPY
    listed = {(a, tuple(sorted(s for group in item["students"] for s in group))) for a, items in found.items()
              for item in items}
    assert listed == {(exercise, tuple(sorted((copier, source))))}


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
    looped = [n for n in eve if n.startswith("project_qkv:")]
    assert looped and all("did not return within" in eve[n] for n in looped)
    assert any("not available to submissions" in o for n, o in eve.items() if n.startswith("cosine_similarity:"))
    # ... and the loop is in her "what to fix first", ranked by the points it cost among her mistakes
    fix = (work / "graded" / "attention" / "eve" / "feedback.txt").read_text(encoding="utf-8").split("\n\n")[0]
    items = [line.split(": ", 1)[1] for line in fix.splitlines()[1:] if line.lstrip()[:1].isdigit()]
    lost = [float(item.split(" point")[0]) for item in items]
    assert lost == sorted(lost, reverse=True) and any("project_qkv" in line for line in fix.splitlines())
    cost = sum(c.max_score - c.score for r in results if (r.student_id, r.assignment_id) == ("eve", "attention")
               for c in r.checks if c.name in looped)
    assert [p for i, p in zip(items, lost, strict=True) if "project_qkv" in i] == [cost]
    # every planted mistake is named in its student's feedback: none masked by the loop or another mistake
    assert masked_mistakes(results, known) == []
    _check_class_report(work / "graded")
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
    assert SQRT in (cy / "report.html").read_text(encoding="utf-8")
    # the scores are in the course's SQLite gradebook too, and nbgrader's own commands work in the course
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{work / 'course' / 'gradebook.db'}", "demo") as gb:
        for name in EXERCISES:
            recorded = {s.student.id: s.score for s in gb.assignment_submissions(name)}
            assert recorded == {s: by[(s, name)].score for s in STUDENTS}, name
    assert (work / "course" / "nbgrader_config.py").is_file()


def _check_class_report(graded):
    """The class report shows a named mistake in each of the seven exercises, the planted near-copy
    and no other flag: no identical submissions, no other near-copy or shared rare mistakes, and
    no problem but eve's endless loop and fay's missing work."""
    with open(graded / "class_mistakes.csv", newline="", encoding="utf-8") as f:
        named = {r["assignment"] for r in csv.DictReader(f)}
    assert named == set(EXERCISES)
    page = (graded / "class.html").read_text(encoding="utf-8")
    overview = page.split("Assignments", 1)[1].split("</table>", 1)[0]
    for name in EXERCISES:   # the overview's "named mistakes" column: not 0 for any assignment
        row = overview.split(f">{name}</a>", 1)[1].split("</tr>", 1)[0]
        assert not row.rstrip().endswith("<td>0</td>"), name
    assert "<a href='#identical'>Identical submissions</a> (0)" in page
    # Problems: eve's endless loop and her import of the solutions, nobody else's
    assert "<a href='#problems'>Problems</a> (2)" in page
    table = page.split("id='problems'", 1)[1].split("</table>", 1)[0]
    rows = [re.findall(r"<td>(?:<a [^>]*>)?(.*?)(?:</a>)?</td>", row) for row in table.split("<tr>")[2:]]
    assert rows == [["eve", "attention", "timeout"], ["eve", "embeddings", "integrity: tried to import solutions (blocked)"]]
    with open(graded / "identical.csv", newline="", encoding="utf-8") as f:
        assert list(csv.DictReader(f)) == []
    found = json.loads((graded / near_copies.NOTE_FILE).read_text(encoding="utf-8"))["assignments"]
    copier, source, exercise = COPY
    assert {a: [sorted(s for group in item["students"] for s in group) for item in items]
            for a, items in found.items() if items} == {exercise: [sorted((copier, source))]}
    with open(graded / "grades.csv", newline="", encoding="utf-8") as f:
        problems = {(r["student_id"], r["assignment_id"], r["problems"]) for r in csv.DictReader(f) if r["problems"]}
    assert problems == {("eve", "attention", "timeout")} | {("fay", name, "not submitted") for name in EXERCISES}


def _importers():
    """tests/lms/lms_importers.py: each LMS's import, read from its own sources and documentation."""
    if "lms_importers" in sys.modules:  # tests/lms ran first and imported it
        return sys.modules["lms_importers"]
    spec = importlib.util.spec_from_file_location("lms_importers", Path(__file__).parents[1] / "lms" / "lms_importers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["lms_importers"] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


def _check_lms_files(lms, by):
    """graded/lms/ holds one import file per LMS, and each LMS's importer (``lms_importers``) maps
    every student and item of it with no hand work, in the item's scale, leaving alone the grade
    fay (who handed in nothing) holds in the LMS."""
    from autograder.demo.run import LMS_ITEMS, ROSTER
    imp = _importers()
    assert sorted(p.name for p in lms.iterdir()) == ["blackboard.xls", "brightspace.csv", "canvas.csv", "moodle.csv",
                                                     "moodle.xml"]
    with open(ROSTER, newline="", encoding="utf-8") as f:
        roster = {r["student_id"]: r for r in csv.DictReader(f)}
    with open(LMS_ITEMS, newline="", encoding="utf-8") as f:
        items = {r["assignment"]: r for r in csv.DictReader(f)}
    # the grade in each LMS item's scale, from the graded results (course points) and the item's maximum
    expected = {(s, a): round(r.score * float(items[a]["max"]) / r.max_score, 2) for (s, a), r in by.items()}
    assert expected[("ada", "tokens")] == 100 and expected[("bo", "tokens")] == 0

    students = [imp.CanvasStudent(int(r["canvas_user_id"]), f"{r['first_name']} {r['last_name']}",
                                  f"{r['last_name']}, {r['first_name']}", r["canvas_sis_user_id"],
                                  r["canvas_sis_login_id"]) for r in roster.values()]
    course = imp.CanvasCourse(students, {int(i["canvas_id"]): (i["name"], float(i["max"])) for i in items.values()},
                              {(90006, 71003): "7"})
    upload = imp.canvas_import((lms / "canvas.csv").read_bytes(), course)
    assert upload.new_students == [] and upload.new_assignments == []
    canvas = imp.canvas_apply(upload, course)
    assert canvas.pop((90006, 71003)) == "7"
    by_canvas = {(int(roster[s]["canvas_user_id"]), int(items[a]["canvas_id"])): v for (s, a), v in expected.items()}
    assert {k: float(v) for k, v in canvas.items()} == by_canvas

    users = [imp.MoodleUser(n, r["moodle_username"], r["email"], r["moodle_idnumber"])
             for n, r in enumerate(roster.values(), start=1)]
    moodle_items = [imp.MoodleItem(n, i["name"], float(i["max"]), idnumber=i["moodle_idnumber"])
                    for n, i in enumerate(items.values(), start=100)]
    moodle = imp.MoodleCourse(users, moodle_items, {(6, 102): (7.0, "entered by hand")})
    raw = (lms / "moodle.csv").read_bytes()
    mapped = imp.moodle_mapping(imp.moodle_csv_rows(raw)[0], moodle)
    uid = {r["student_id"]: n for n, r in enumerate(roster.values(), start=1)}
    iid = {a: n for n, a in enumerate(items, start=100)}
    by_moodle = {(uid[s], iid[a]): v for (s, a), v in expected.items()}
    for after in (imp.moodle_csv_import(raw, moodle, *mapped), imp.moodle_xml_import((lms / "moodle.xml").read_bytes(), moodle)):
        assert after.pop((6, 102)) == (7.0, "entered by hand")
        assert {k: g for k, (g, _) in after.items()} == by_moodle
        assert SQRT in after[(uid["cy"], iid["attention"])][1]

    org = {r["brightspace_org_defined_id"]: s for s, r in roster.items()}
    brightspace = imp.brightspace_import((lms / "brightspace.csv").read_bytes(), org,
                                         [imp.BrightspaceItem(i["name"], float(i["max"])) for i in items.values()],
                                         {("fay", "Attention"): 7.0})
    assert brightspace.pop(("fay", "Attention")) == 7.0
    assert brightspace == {(s, items[a]["name"]): v for (s, a), v in expected.items()}

    blackboard = imp.blackboard_upload((lms / "blackboard.xls").read_bytes(),
                                       {r["blackboard_username"]: s for s, r in roster.items()},
                                       {i["blackboard_id"] for i in items.values()}, {("fay", "664603"): "7"})
    assert blackboard.pop(("fay", "664603")) == "7"
    assert {k: float(v) for k, v in blackboard.items()} == {(s, items[a]["blackboard_id"]): v
                                                            for (s, a), v in expected.items()}
