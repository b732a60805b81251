"""Does the class report count what the class got wrong, link the right reports, and stay staff-only?

Synthetic classes are written with the real writers (``outputs.write_results``,
``console.write_grades_csv``, ``gradescope.container.results_for``); the expected counts below are
worked out by hand from the class each test builds. The browser test grades the demo class
(``autograder.demo``) and checks class.html in headless Chromium against the demo's student
plan (``autograder/demo/students.py``) and mistakes catalogue.
"""
import csv
import json
import os
import shutil
import subprocess
from urllib.parse import unquote

import pytest

from autograder.cli import main
from autograder.core.vocabulary import CheckResult, NotebookResult, Problem
from autograder.grading.outputs import write_results
from autograder.reports import class_load, class_report, class_stats
from autograder.reports import console as report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SQRT = "forget to divide the scores by sqrt(d_k)"
SHIFT = "forget to subtract the largest score (exp overflows)"


def _check(name, points, earned, mistakes=(), problems=()):
    function = name.split(": ", 1)[0]
    details = {"what": "weights", "expected": [0.33, 0.67], "got": [0.27, 0.73], "mistakes": list(mistakes)} \
        if earned < points else None
    return CheckResult(function, name, earned, points, "" if earned >= points else "wrong", frozenset(problems),
                       details=details)


def _attention(student, a1, a2, a3, mistakes=None, problems=(), notebook_problems=()):
    """An attention result: checks A1, A2 (1 point each), A3 (2 points)."""
    mistakes = mistakes or {}
    checks = [_check("attention_row: weights", 1.0, a1, mistakes.get(1, ())),
              _check("attention_row: context", 1.0, a2, mistakes.get(2, ())),
              _check("softmax: no overflow", 2.0, a3, mistakes.get(3, ()), problems)]
    return NotebookResult(student, "attention", "attention.ipynb", checks, problems=set(notebook_problems))


@pytest.fixture
def small_class(tmp_path):
    """Four students hand in attention, two of them tokens (see the expected numbers below)."""
    out = tmp_path / "graded"
    results = [
        _attention("s1", 1, 1, 2),
        _attention("s2", 0, 0, 2, {1: [SQRT], 2: [SQRT]}),            # one mistake, named by two checks
        _attention("s3", 0, 1, 0, {1: [SQRT], 3: [SHIFT]}, problems=[Problem.TIMEOUT]),
        _attention("s4", 1, 1, 0, notebook_problems=[Problem.GRADER_ERROR]),
        NotebookResult("s1", "tokens", "tokens.ipynb", [_check("learn_bpe: merges", 1.0, 1.0)]),
        NotebookResult("s2", "tokens", "tokens.ipynb", [_check("learn_bpe: merges", 1.0, 0.0)]),
    ]
    for r in results:
        write_results(r, out)
        (out / r.assignment_id / r.student_id / "report.html").write_text(f"<h1>{r.student_id}</h1>")
    report.write_grades_csv(results, out / "grades.csv")
    return out


def _csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_results_json_carries_function_mistakes_and_problems(small_class):
    data = json.loads((small_class / "attention" / "s3" / "results.json").read_text(encoding="utf-8"))
    tests = {t["name"]: t["extra_data"] for t in data["tests"]}
    assert tests["attention_row: weights"] == {"function": "attention_row", "mistakes": [SQRT], "problems": []}
    assert tests["softmax: no overflow"] == {"function": "softmax", "mistakes": [SHIFT], "problems": ["timeout"]}
    assert data["extra_data"]["problems"] == ["timeout"]


def test_pass_rates_and_mistakes_counted_per_student(small_class):
    written = class_report.write_all(small_class)
    checks = {(r["assignment"], r["check"]): r for r in _csv(written["checks"])}
    # attention: A1 passed by s1, s4; A2 by s1, s3, s4; A3 (2 points) by s1, s2
    assert (checks[("attention", "attention_row: weights")]["passed"],
            checks[("attention", "attention_row: weights")]["pass_rate"]) == ("2", "0.500")
    assert checks[("attention", "attention_row: context")]["pass_rate"] == "0.750"
    assert checks[("attention", "softmax: no overflow")]["points"] == "2"
    assert checks[("attention", "softmax: no overflow")]["mean_points"] == "1.00"   # (2 + 2 + 0 + 0) / 4
    assert checks[("tokens", "learn_bpe: merges")]["submitted"] == "2"
    mistakes = _csv(written["mistakes"])
    # s2 made SQRT in two checks but counts once; ranked by students: SQRT (s2, s3) before SHIFT (s3)
    assert [(m["function"], m["mistake"], m["count"], m["students"]) for m in mistakes] == [
        ("attention_row", SQRT, "2", "s2; s3"), ("softmax", SHIFT, "1", "s3")]
    page = written["html"].read_text(encoding="utf-8")
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "href='attention/s2/report.html'" in page and "href='attention/s3/report.html'" in page


def test_missing_late_identical_and_problems_are_listed(small_class):
    # grades.csv with the late-work columns another step adds, and an identical-submission finding
    rows = _csv(small_class / "grades.csv")
    for r in rows:
        r["late"] = "2 days" if (r["student_id"], r["assignment_id"]) == ("s2", "attention") else ""
        r["late_penalty"] = "10%" if r["late"] else "0"
        if (r["student_id"], r["assignment_id"]) == ("s4", "attention"):  # a kind only grades.csv has
            r["problems"] += "; identical to s3 (whitespace aside)"
    with open(small_class / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    path = small_class / "tokens" / "s2" / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["extra_data"]["problems"].append("identical submissions (same as s1)")
    path.write_text(json.dumps(data), encoding="utf-8")
    path = small_class / "tokens" / "s1" / "results.json"  # late as results.json may say it
    data = json.loads(path.read_text(encoding="utf-8"))
    data["extra_data"].update({"late_days": 1, "penalty": 0})
    path.write_text(json.dumps(data), encoding="utf-8")

    entries, notes = class_report.load(small_class)
    page = class_report.render_class_html(entries, notes, base=small_class)
    section = lambda css: page.split(f"<h2 id='{css}'>", 1)[1].split("<h2", 1)[0]  # noqa: E731
    missing = section("missing")
    assert "<td>s3</td><td>tokens</td>" in missing and "<td>s4</td><td>tokens</td>" in missing
    assert "s1" not in missing and "s2" not in missing
    late = section("late")
    assert "late: 2 days; late_penalty: 10%" in late and ">s1</a></td><td>tokens</td><td>late_days: 1</td>" in late
    assert late.count("<tr>") == 3  # header, s1 tokens, s2 attention
    identical = section("identical")
    assert "same as s1" in identical and ">s4</a></td><td>attention</td><td>identical to s3 (whitespace aside)<" in identical
    problems = section("problems")
    assert ">s3</a></td><td>attention</td><td>timeout</td>" in problems
    # integrity events (an identical flag) are problems too, listed first and marked
    assert ">s4</a></td><td>attention</td><td>integrity: identical to s3 (whitespace aside); grader error</td>" \
        in problems
    assert ">s2</a></td><td>tokens</td><td>integrity: identical submissions (same as s1)</td>" in problems
    assert ("For the whole class: <a href='#missing'>Did not submit</a> (2) &middot; <a href='#late'>Late work</a> (2)"
            " &middot; <a href='#identical'>Identical submissions</a> (2) &middot; <a href='#problems'>Problems</a> (3)"
            in page)


def test_a_problem_that_grades_csv_tells_more_of_is_listed_once(tmp_path):
    out = tmp_path / "graded"
    result = _attention("s1", 1, 1, 2, notebook_problems=[Problem.SEVERAL_NOTEBOOKS])
    result.notes.append("several notebooks hand in attention: graded attention.ipynb, which scores best; "
                        "not counted: copy.ipynb (0/4)")
    write_results(result, out)
    report.write_grades_csv([result], out / "grades.csv")
    entries, _ = class_report.load(out)
    assert entries[0].problems == {"several notebooks (not counted: copy.ipynb (0/4))"}


def test_text_from_results_is_escaped_in_html_and_csv(tmp_path):
    out = tmp_path / "graded"
    evil = "<img src=x onerror=alert(1)>"
    result = NotebookResult("=HYPERLINK(1)", "attention", "a.ipynb",
                            [_check("attention_row: weights", 1.0, 0.0, ["+cmd|calc", evil])])
    write_results(result, out)
    written = class_report.write_all(out)
    page = written["html"].read_text(encoding="utf-8")
    assert evil not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    mistakes = _csv(written["mistakes"])
    assert {m["mistake"] for m in mistakes} == {"'+cmd|calc", evil}
    assert {m["students"] for m in mistakes} == {"'=HYPERLINK(1)"}


def test_mistake_names_read_from_feedback_without_extra_data():
    assert class_load.mistakes_in(f"weights: expected [0.33], got [0.27]. That is the value you get when "
                                    f"you {SQRT}.") == [SQRT]
    two = "x: expected 1, got 2. That is what you get when you merge (a) (or when you skip b (or when you c))."
    assert class_load.mistakes_in(two) == ["merge (a)", "skip b", "c"]
    assert class_load.mistakes_in("did not return within 5 s") == []


def test_a_folder_of_gradescope_results(tmp_path):
    from autograder.gradescope.container import results_for
    folder = tmp_path / "gradescope"
    new = results_for(_attention("g1", 0, 1, 2, {1: [SQRT]}), {"tests": {}},
                      extra={"assignment": "attention", "student_id": "g1", "confinement": "sandbox"})
    old = {"score": 1, "tests": [  # an older build: no extra_data at all
        {"name": "attention_row: weights", "score": 0, "max_score": 1,
         "output": f"weights: expected 1, got 2. That is the value you get when you {SQRT}."},
        {"name": "causal_mask: 3 tokens", "score": 0, "max_score": 1,
         "output": "causal_mask did not return within 5 s"}]}
    for name, data in (("submission_11", new), ("submission_12", old)):
        (folder / name / "results").mkdir(parents=True)
        (folder / name / "results" / "results.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "submission_13").mkdir()
    (folder / "submission_13" / "results.json").write_text("{not json", encoding="utf-8")

    assert main(["report", str(folder), "--assignment", "attention", "--out", str(tmp_path / "staff")]) == 0
    mistakes = _csv(tmp_path / "staff" / "class_mistakes.csv")
    assert [(m["assignment"], m["mistake"], m["count"], m["students"]) for m in mistakes] == [
        ("attention", SQRT, "2", "g1; submission_12")]
    page = (tmp_path / "staff" / "class.html").read_text(encoding="utf-8")
    assert "skipped submission_13/results.json" in page
    assert "href='../gradescope/submission_11/results/results.json'" in page  # no report.html there
    problems = page.split("<h2 id='problems'>", 1)[1]
    assert ">submission_12</a></td><td>attention</td><td>timeout</td>" in problems
    assert main(["report", str(tmp_path / "empty-does-not-exist")]) == 2


def test_heatmap_rows_group_students_with_the_same_gaps():
    def entry(student, passed):
        tests = [class_load.Outcome(f"f: c{i}", "f", float(p), 1.0) for i, p in enumerate(passed)]
        return class_load.Entry("a", student, sum(passed), len(passed), tests)
    entries = [entry("a1", [0, 1, 1]), entry("b2", [1, 0, 1]), entry("c3", [0, 1, 1]), entry("d4", [1, 1, 1]),
               entry("e5", [1, 0, 1])]
    order = [e.student for e in class_stats.gap_order(entries, ["f: c0", "f: c1", "f: c2"])]
    assert order.index("c3") == order.index("a1") + 1 and order.index("e5") == order.index("b2") + 1


def test_histogram_bins_tenths_of_the_maximum():
    assert class_stats.histogram([0, 0.5, 1.9, 2.0, 19.99, 20], 20) == [3, 1, 0, 0, 0, 0, 0, 0, 0, 2]


def test_student_reports_show_no_other_student(tmp_path):
    from autograder.reports.student import write_html
    out = tmp_path / "graded"
    results = [_attention("student-alpha", 0, 1, 2, {1: [SQRT]}), _attention("student-beta", 0, 0, 2, {1: [SQRT]}),
               _attention("student-gamma", 1, 1, 0, {3: [SHIFT]})]
    for r in results:
        write_results(r, out)
        write_html(r, out)
    class_report.write_all(out)
    assert all(f"student-{n}" in (out / class_report.CLASS_HTML).read_text() for n in ("alpha", "beta", "gamma"))
    for r in results:
        own = (out / "attention" / r.student_id / "report.html").read_text(encoding="utf-8")
        others = [o.student_id for o in results if o is not r]
        assert r.student_id in own and not any(o in own for o in others)
        assert "class.html" not in own and "class_" not in own


# -- the demo class in a browser ----------------------------------------------------
_MEASURE = """<script>
(() => {
  const found = {viewport: window.innerWidth, page: document.documentElement.scrollWidth, spilled: [], outside: []};
  for (const el of document.querySelectorAll('body *')) {
    if (el.tagName === 'STYLE' || el.tagName === 'SCRIPT') continue;
    if (el.closest('.visually-hidden')) continue;  // clipped on purpose: read aloud, not drawn
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > window.innerWidth + 1 || box.left < -1)
      found.outside.push(el.tagName + ' ' + el.textContent.slice(0, 60));
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
      found.spilled.push(el.tagName + '.' + el.className + ' ' + el.textContent.slice(0, 60));
  }
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
})();
</script>"""


def _chromium(args, tmp, *extra):
    assert CHROMIUM, "chromium is not installed: run `bash scripts/setup.sh` as root, or `apt-get install chromium`"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp / 'profile'}", *extra, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, env=dict(os.environ, HOME=str(tmp)))


@pytest.fixture
def demo_graded(demo_class):
    """The demo class's graded/ folder (the session's ``demo_class``, see conftest.py)."""
    return demo_class[1] / "graded"


def _planned():
    """``{(assignment, function): {student: feedback phrase}}`` from the demo's student plan."""
    from autograder.demo.mistakes import all_mistakes
    from autograder.demo.students import REFERENCE, STUBS, STUDENTS
    known = {m.id: m for m in all_mistakes()}
    plan = {}
    for student, ids in STUDENTS.items():
        if ids in (REFERENCE, STUBS):
            continue
        for i in ids:
            m = known[i]
            plan.setdefault((m.exercise, m.function), {})[student] = m.feedback
    return plan


def _measured(page, tmp, width=1366):
    """The DOM of ``page`` laid out in headless Chromium ``width`` pixels wide, with the
    measurements of ``_MEASURE`` (made on a copy: the page itself has no script)."""
    from bs4 import BeautifulSoup
    copy = tmp / (page.stem + "-measured.html")  # beside the test's files, not the class's
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    try:
        done = _chromium(["--dump-dom", copy.as_uri()], tmp, f"--window-size={width},768")
    finally:
        copy.unlink()
    dom = BeautifulSoup(done.stdout, "html.parser")
    assert dom.find(id="measured"), done.stderr[-2000:]
    return dom, json.loads(dom.find(id="measured").text)


def test_a_large_class_fits_a_laptop_screen(tmp_path):
    """120 students who all made one mistake, with long names: the list of names wraps, nothing
    sticks out of the page or its cells."""
    out = tmp_path / "graded"
    for i in range(120):
        student = f"student-with-a-long-id-{i:03d}"
        write_results(_attention(student, 0, i % 2, 2 * (i % 3 == 0), {1: [SQRT], 2: [SQRT]}), out)
    page = class_report.write_all(out)["html"]
    dom, found = _measured(page, tmp_path)
    assert found["page"] <= found["viewport"], "the page scrolls sideways"
    assert found["outside"] == [] and found["spilled"] == [], found
    row = dom.select("tr.mistake-row")
    assert [int(r.find("td").text) for r in row] == [120]
    assert len(row[0].select("td.students a")) == 120
    assert len(dom.select("table.grid tbody tr")) == 120


def test_printed_each_assignment_starts_a_page(small_class, tmp_path):
    import re
    page = class_report.write_all(small_class)["html"]
    pdf = tmp_path / "class.pdf"
    done = _chromium([page.as_uri()], tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    assert pdf.is_file(), done.stderr[-2000:]
    # the overview, then attention and tokens each from a new page (Chromium writes page objects plainly)
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes())) >= 3


@pytest.mark.slow
def test_demo_class_report_in_headless_chromium(demo_graded, tmp_path):
    import numpy as np
    from PIL import Image

    from autograder.core.registry import EXERCISES
    from autograder.demo.students import HOSTILE, STUDENTS

    page = demo_graded / "class.html"
    assert page.is_file() and (demo_graded / "class_checks.csv").is_file() and \
        (demo_graded / "class_mistakes.csv").is_file(), "the demo did not write the class report"
    shot = tmp_path / "class.png"
    done = _chromium([page.as_uri()], tmp_path, f"--screenshot={shot}", "--window-size=1366,2200")
    assert shot.is_file(), done.stderr[-2000:]
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
    assert pixels.std() > 20, "the screenshot is (nearly) blank"
    # the heatmap's red (failed) and green (passed) cells are drawn, not only text
    assert np.sum((pixels[..., 0] > 150) & (pixels[..., 1] < 80) & (pixels[..., 2] < 80)) > 200
    assert np.sum((pixels[..., 1] > 100) & (pixels[..., 0] < 80) & (pixels[..., 2] < 80)) > 200

    # the DOM as laid out at a laptop's width
    dom, found = _measured(page, tmp_path)
    assert found["page"] <= found["viewport"], "the page scrolls sideways"
    assert found["outside"] == [] and found["spilled"] == [], found

    # the named mistakes against the demo's plan: a mistake of a function is listed only for students
    # whose plan has a mistake in that function, each student once, and the count is theirs
    plan = _planned()
    rows = []
    for section in dom.select("section.assignment"):
        assignment = section.find("h2").text
        for tr in section.select("tr.mistake-row"):
            cells = tr.find_all("td")
            rows.append((assignment, cells[1].text, cells[2].text, int(cells[0].text),
                         [(a.text, a["href"]) for a in cells[3].find_all("a")]))
    assert rows, "no named mistakes in class.html"
    covered = set()
    for assignment, function, mistake, count, links in rows:
        students = [s for s, _ in links]
        planned = plan.get((assignment, function), {})
        assert count == len(students) == len(set(students)), (mistake, links)
        assert set(students) <= set(planned), f"{assignment}/{function}: {mistake!r} for {students}, plan {planned}"
        # a student whose catalogue phrase is this mistake's name is listed under it
        assert {s for s, phrase in planned.items() if phrase in mistake} <= set(students), (mistake, planned)
        covered |= {(assignment, function, s) for s in students}
        for student, href in links:  # the link opens that student's report of that assignment
            target = (page.parent / unquote(href)).resolve()
            assert target == (demo_graded / assignment / student / "report.html").resolve()
            assert f"{assignment} &middot; {assignment}.ipynb &middot; {student}</h1>" in target.read_text()
    # every planned mistake is named (but eve's in assignments where her hostile code stops the checks)
    expected = {(a, f, s) for (a, f), who in plan.items() for s in who if not (s == "eve" and a in HOSTILE)}
    assert expected - covered == set(), expected - covered
    # the sqrt(d_k) mistake the issue names: in attention, made by cy alone in the demo
    sqrt = [r for r in rows if r[0] == "attention" and "sqrt(d_k)" in r[2]]
    assert [(r[1], r[3], [s for s, _ in r[4]]) for r in sqrt] == [("attention_row", 1, ["cy"])]

    # one link opened in the browser shows that student's report
    assignment, _, _, _, links = rows[0]
    student, href = links[0]
    opened = _chromium(["--dump-dom", (page.parent / unquote(href)).resolve().as_uri()], tmp_path)
    assert f"{student}</h1>" in opened.stdout and assignment in opened.stdout

    # the heatmap has one row per student who handed the assignment in, one cell per check
    checks = {r["assignment"]: 0 for r in _csv(demo_graded / "class_checks.csv")}
    for r in _csv(demo_graded / "class_checks.csv"):
        checks[r["assignment"]] += 1
    for section in dom.select("section.assignment"):
        grid = section.select("table.grid tbody tr")
        assert len(grid) == len(STUDENTS)
        assert all(len(tr.select("td.p, td.f, td.h, td.n")) == checks[section.find("h2").text] for tr in grid)
    assert {s.find("h2").text for s in dom.select("section.assignment")} == set(EXERCISES)
    # eve's endless loop is listed among the problems of the attention assignment
    problems = dom.find("table", class_="problems")
    assert any("eve" in tr.text and "attention" in tr.text and "timeout" in tr.text
               for tr in problems.find_all("tr"))


# -- the class report reads true, and is always written ------------------------------
def test_whole_points_get_whole_point_bins(tmp_path):
    out = tmp_path / "graded"
    # 4-point attention: s1 4, s2 0 + 0 + 2 = 2, s3 1 + 0 + 0 = 1, s4 1 + 1 + 0 = 2, s5 0
    for r in [_attention("s1", 1, 1, 2), _attention("s2", 0, 0, 2), _attention("s3", 1, 0, 0),
              _attention("s4", 1, 1, 0), _attention("s5", 0, 0, 0)]:
        write_results(r, out)
    page = class_report.write_all(out)["html"].read_text(encoding="utf-8")
    histogram = page.split("<table class='histogram'>", 1)[1].split("</table>", 1)[0]
    labels = [th.split(">", 1)[1].split("<", 1)[0] for th in histogram.split("<th scope='col'")[1:]]
    counts = [int(c.split("</span>")[0]) for c in histogram.split("<span class='count'>")[1:]]
    assert labels == ["0", "1", "2", "3", "4"] and counts == [1, 1, 2, 0, 1]
    assert "0.4&ndash;0.8" not in page
    # 30 points in runs of 3 whole points: 0-2, 3-5, ..., 30 (11 ranges, both ends held)
    assert class_stats.bins([0, 30], 30)[:2] == [(0, 2), (3, 5)] and class_stats.bins([0], 30)[-1] == (30, 30)
    # fractional points keep tenths of the maximum
    assert class_stats.bins([0.5], 2)[0] == (0.0, 0.2)


def test_an_attempted_import_of_the_solutions_is_an_integrity_problem(tmp_path):
    out = tmp_path / "graded"
    blocked = "ImportError: 'solutions.attention' is not available to submissions: the grader keeps its hidden values"
    r = _attention("s1", 0, 1, 2)
    r.checks[0] = CheckResult("attention_row", "attention_row: weights", 0.0, 1.0, f"attention_row raised {blocked}",
                              frozenset())
    write_results(r, out)
    r2 = _attention("s2", 1, 1, 2)
    r2.notes.append(f"cell 2: {blocked.replace('solutions.attention', 'exercises.attention.checks')}")
    write_results(r2, out)
    page = class_report.write_all(out)["html"].read_text(encoding="utf-8")
    problems = page.split("<h2 id='problems'>", 1)[1].split("<h2", 1)[0]
    assert "<td>attention</td><td>integrity: tried to import solutions.attention (blocked)</td>" in problems
    assert "<td>attention</td><td>integrity: tried to import exercises.attention.checks (blocked)</td>" in problems


def _stub(function, name, points):
    from autograder.sandbox.limits import StudentCodeError
    return CheckResult(function, name, 0.0, points, str(StudentCodeError("not implemented", function)), frozenset())


def test_untouched_stubs_are_not_attempted(tmp_path):
    out = tmp_path / "graded"
    stub = NotebookResult("s3", "attention", "attention.ipynb",
                          [_stub("attention_row", "attention_row: weights", 1.0),
                           _stub("attention_row", "attention_row: context", 1.0),
                           _stub("softmax", "softmax: no overflow", 2.0)])
    for r in [_attention("s1", 1, 1, 2), _attention("s2", 0, 1, 2), stub]:
        write_results(r, out)
    written = class_report.write_all(out)
    checks = {r["check"]: r for r in _csv(written["checks"])}
    # pass rates over the two who tried: weights passed by s1 of s1, s2
    assert (checks["attention_row: weights"]["submitted"], checks["attention_row: weights"]["pass_rate"]) == \
        ("2", "0.500")
    page = written["html"].read_text(encoding="utf-8")
    assert "1 not attempted (every function still the released stub)" in page
    assert "mean 3.5, median 3.5 of 4 points" in page  # (4 + 3) / 2, not (4 + 3 + 0) / 3
    overview = page.split("<h2 id='overview'>", 1)[1].split("</table>", 1)[0]
    assert "<td>3</td><td>1</td><td>0</td><td>3.5</td><td>4</td>" in overview  # submitted, not attempted, ...
    row = [tr for tr in page.split("<tr>") if ">s3</a></th>" in tr][0]
    assert "not attempted</td>" in row and "\u2717" not in row  # no "failed" cell for a stub
    # a started notebook with one stub left is attempted: its stub cell says so, its score counts
    entries, _ = class_report.load(out)
    assert [e.student for e in entries if e.not_attempted] == ["s3"]


def _odd_names(out):
    """Results of a UTF-8 non-ASCII student and of a folder whose name is not UTF-8 (bytes)."""
    write_results(_attention("zo\u00eb", 0, 1, 2, {1: [SQRT]}), out)
    (out / "attention" / "zo\u00eb" / "report.html").write_text("<h1>zoe</h1>", encoding="utf-8")
    raw = os.fsencode(out / "attention") + b"/caf\xe9"
    os.mkdir(raw)
    data = report.results_json(_attention("x", 0, 0, 2, {1: [SQRT]}))
    with open(raw + b"/results.json", "w", encoding="utf-8") as f:
        json.dump(data, f)
    with open(raw + b"/report.html", "w", encoding="utf-8") as f:
        f.write("<h1>cafe</h1>")
    return raw


def test_any_folder_name_is_shown_and_linked_under_a_c_locale(tmp_path):
    import sys
    from urllib.parse import unquote_to_bytes
    out = tmp_path / "graded"
    raw = _odd_names(out)
    env = dict(os.environ, LANG="C", LC_ALL="C", PYTHONIOENCODING="cp1252")
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(out)], capture_output=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    page = (out / "class.html").read_text(encoding="utf-8")
    assert ">zo\u00eb</a>" in page and ">caf\\xe9</a>" in page
    hrefs = [h.split("'", 1)[0] for h in page.split("href='")[1:] if h.startswith("attention/")]
    assert "attention/zo%C3%AB/report.html" in hrefs and "attention/caf%E9/report.html" in hrefs
    for href in hrefs:  # every link opens a file that is there
        assert os.path.isfile(os.fsencode(out) + b"/" + unquote_to_bytes(href)), href
    assert raw  # the odd folder is really not UTF-8
    mistakes = _csv(out / "class_mistakes.csv")
    assert mistakes[0]["students"] == "caf\\xe9; zo\u00eb"


def test_a_report_that_cannot_be_written_fails_the_run(tmp_path):
    from autograder.grading.outputs import write_class_outputs
    out = tmp_path / "graded"
    (out / class_report.CLASS_HTML).mkdir(parents=True)  # class.html cannot be written: a folder stands there
    with pytest.raises(class_report.ReportNotWritten, match="could not be written"):
        write_class_outputs([], [], out, say=lambda *a: None)
    assert (out / "grades.csv").is_file()  # the grades are written before


@pytest.mark.slow
def test_a_class_run_under_a_c_locale_links_odd_names_and_fails_loudly_without_its_report(tmp_path):
    """``python -m autograder grade`` under LANG=C with a non-ASCII and a non-UTF-8 student folder:
    exit 0 and every student linked; then with class.html unwritable (a folder stands there): exit 1
    and a message that says so, grades.csv written."""
    import sys
    from urllib.parse import unquote_to_bytes

    import nbformat

    from autograder.core.registry import EXERCISES
    from autograder.demo.fill import filled_notebook
    secret = tmp_path / "secret"
    secret.write_bytes(os.urandom(32).hex().encode())
    root = os.fsencode(tmp_path / "submitted")
    for name in (b"zo\xc3\xab", b"caf\xe9"):
        os.makedirs(root + b"/" + name + b"/embeddings")
        nbformat.write(filled_notebook(EXERCISES["embeddings"]), os.fsdecode(root + b"/" + name + b"/embeddings/e.ipynb"))
    env = dict(os.environ, LANG="C", LC_ALL="C", PYTHONIOENCODING="cp1252")

    def grade(out):
        return subprocess.run([sys.executable, "-m", "autograder", "grade", "submitted", "--out", out, "--quiet",
                               "--secret-file", str(secret)], cwd=tmp_path, env=env, capture_output=True, timeout=600)
    done = grade("graded")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    page = (tmp_path / "graded" / "class.html").read_text(encoding="utf-8")
    hrefs = {h.split("'", 1)[0] for h in page.split("href='")[1:] if h.startswith("embeddings/")}
    assert len(hrefs) == 2 and "embeddings/zo%C3%AB/report.html" in hrefs
    assert all(os.path.isfile(os.fsencode(tmp_path / "graded") + b"/" + unquote_to_bytes(h)) for h in hrefs)
    (tmp_path / "graded2" / class_report.CLASS_HTML).mkdir(parents=True)
    done = grade("graded2")
    assert done.returncode == 1
    assert b"error: the class report (class.html, class_checks.csv, class_mistakes.csv) could not be written" \
        in done.stderr
    assert (tmp_path / "graded2" / "grades.csv").is_file()
