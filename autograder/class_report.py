"""The class at a glance, for course staff: what the class got wrong, and where.

``write_all(graded_dir)`` reads every ``results.json`` under ``graded_dir`` (ours, laid out
``<assignment>/<student>/results.json``, or a folder of Gradescope results.json files, whose
``extra_data`` names the student and assignment) and ``grades.csv`` when there is one, and
writes three files into ``graded_dir`` (or ``out``):

* ``class.html``: per assignment the score distribution (a histogram), every check with its
  pass rate and mean points, the named mistakes ranked by how many students made them (each
  student linked to their ``report.html``), a students x checks heatmap whose rows are sorted
  so that students with the same gaps stand together; then who did not submit, late work,
  identical submissions and problems (timeouts, crashes, grader errors ...). Who did not
  submit includes the roster students that grades.csv lists as "not submitted" (``not_submitted``). One
  self-contained page (inline style, no script, no network), drawn with the helpers of
  ``html_report`` (the student report's module), readable on a laptop and printable.
* ``class_checks.csv``: one row per check (assignment, function, check, points, submitted,
  passed, pass_rate, mean_points).
* ``class_mistakes.csv``: one row per named mistake (assignment, function, mistake, count,
  students).

The page names every student: it is for staff only. Student reports never read it.

Where a mistake's name comes from: each test of our results.json carries
``extra_data.mistakes`` (``checking.Mismatch.details``); a results.json without it (an
older run) is read from the feedback's own sentence "That is the value you get when you
...". Problems are those of ``extra_data.problems`` and of ``grades.csv``'s ``problems`` column
(an identical submission is any problem whose text says identical or duplicate); late work
is any ``grades.csv`` column or ``extra_data`` key whose name says late or penalty, when set.
Nothing in a broken or foreign results.json stops the report: it is skipped with a note.
"""
import csv
import json
import os
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .html_report import STYLE, _e

CLASS_HTML, CHECKS_CSV, MISTAKES_CSV = "class.html", "class_checks.csv", "class_mistakes.csv"
HISTOGRAM_BINS = 10  # tenths of the assignment's maximum score

# The sentence ``checking.expect_close`` / ``expect_equal`` write when a value matches named mistakes.
_MISTAKE_SENTENCE = re.compile(r"That is (?:the value|what) you get when you (.+?)\.?\s*$", re.S)


@dataclass
class Outcome:
    """One check of one results.json: ``name`` ("function: description"), ``function``,
    ``score`` and ``max_score`` (points, float), ``mistakes`` (names, list of str),
    ``problems`` (problem texts, list of str)."""
    name: str
    function: str
    score: float
    max_score: float
    mistakes: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def passed(self):
        return self.score >= self.max_score


@dataclass
class Entry:
    """One student's results for one assignment (one results.json).

    Attributes: ``assignment``, ``student`` (str); ``score``, ``max_score`` (points, float);
    ``tests`` (list of ``Outcome``); ``problems`` (set of problem texts as in grades.csv);
    ``late`` (``{grades.csv column: value}`` of late work, empty when on time);
    ``link`` (``Path`` of the student's report.html, else of the results.json; None: no link).
    """
    assignment: str
    student: str
    score: float
    max_score: float
    tests: list
    problems: set = field(default_factory=set)
    late: dict = field(default_factory=dict)
    link: Path = None
    href: str = field(default=None, repr=False)  # the link as written in the page, once computed


def mistakes_in(output):
    """The mistake names in one check's feedback ("... That is the value you get when you A
    (or when you B)."), as a list of str; [] when it names none."""
    found = _MISTAKE_SENTENCE.search(output or "")
    if not found:
        return []
    text = found.group(1).strip()
    parts = text.split(" (or when you ")
    if len(parts) > 1 and text.endswith(")" * (len(parts) - 1)):
        parts[-1] = parts[-1][:len(parts[-1]) - (len(parts) - 1)]
    return [p.strip() for p in parts if p.strip()]


def _problems_of_text(output):
    """Problems told by feedback text alone (a results.json without ``extra_data``)."""
    text = (output or "").lower()
    found = []
    if "grader error" in text:
        found.append("grader error")
    if "did not return within" in text:
        found.append("timeout")
    return found


def _number(value, default=0.0):
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if number == number and abs(number) != float("inf") else default


def _read_grades_csv(path):
    """``{(student, assignment): row}`` of grades.csv, or {} when absent or unreadable."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return {(r.get("student_id", ""), r.get("assignment_id", "")): r for r in csv.DictReader(f)}
    except (OSError, UnicodeDecodeError, csv.Error):
        return {}


def _late_columns(row):
    """The late-work columns of a grades.csv row that say it was late (value not empty, 0 or no)."""
    late = {}
    for key, value in row.items():
        if key and ("late" in key.lower() or "penalty" in key.lower()):
            text = (value or "").strip()
            if text and text.lower() not in ("0", "0.0", "no", "false", "on time", "-"):
                late[key] = text
    return late


def _entry(path, rel, data, assignment_hint):
    extra = data.get("extra_data") if isinstance(data.get("extra_data"), dict) else {}
    if len(rel) == 3 and rel[1] != "results":  # ours: <assignment>/<student>/results.json
        default_assignment, default_student = rel[0], rel[1]
    else:  # a folder of Gradescope results: <submission>/(results/)results.json
        folders = [p for p in rel[:-1] if p != "results"]
        default_assignment = assignment_hint or "assignment"
        default_student = folders[-1] if folders else path.stem
    tests = []
    for t in data.get("tests") or []:
        if not isinstance(t, dict):
            continue
        name = str(t.get("name", ""))
        t_extra = t.get("extra_data") if isinstance(t.get("extra_data"), dict) else {}
        function = str(t_extra.get("function") or (name.split(": ", 1)[0] if ": " in name else name))
        mistakes = t_extra.get("mistakes")
        mistakes = [str(m) for m in mistakes] if isinstance(mistakes, list) else mistakes_in(t.get("output"))
        problems = t_extra.get("problems")
        problems = [str(p) for p in problems] if isinstance(problems, list) else _problems_of_text(t.get("output"))
        tests.append(Outcome(name, function, _number(t.get("score")), _number(t.get("max_score")), mistakes, problems))
    max_score = sum(t.max_score for t in tests) or _number(data.get("max_score"))
    score = _number(data.get("score"), sum(t.score for t in tests))
    problems = set(str(p) for p in extra.get("problems") or [] if p) if isinstance(extra.get("problems"), list) \
        else set()
    for t in tests:
        problems |= set(t.problems)
    late = {str(k): str(v) for k, v in extra.items()
            if ("late" in str(k).lower() or "penalty" in str(k).lower()) and v not in (None, "", 0, False, [], {})}
    return Entry(str(extra.get("assignment") or assignment_hint or default_assignment),
                 str(extra.get("student_id") or default_student), score, max_score, tests, problems, late)


def load(graded_dir, assignment=None):
    """Read the class's results under ``graded_dir``.

    Args:
        graded_dir: a grading output folder (``<assignment>/<student>/results.json`` and
            grades.csv), or a folder of Gradescope results.json files.
        assignment: the assignment name for results.json files that do not say it (Gradescope's
            of an older build); None: from ``extra_data`` or the folder layout.
    Returns:
        ``(entries, notes)``: ``Entry`` list sorted by assignment and student, and notes (str)
        about files that were skipped.
    """
    root = Path(graded_dir)
    notes, entries, seen = [], [], {}
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # .resume/ and the like
        if "results.json" in files:
            rel = Path(folder).relative_to(root).parts + ("results.json",)
            found.append((rel, Path(folder), "report.html" in files))
    for rel, folder, has_report in sorted(found):
        path, shown = folder / "results.json", "/".join(rel)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            entry = _entry(path, rel, data, assignment)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            notes.append(f"skipped {shown}: {exc}")
            continue
        key = (entry.assignment, entry.student)
        if key in seen:
            notes.append(f"{shown}: a second results.json of {entry.student} for "
                         f"{entry.assignment}; the first ({seen[key]}) is shown")
            continue
        seen[key] = shown
        entry.link = folder / "report.html" if has_report else path
        entries.append(entry)
    grades = _read_grades_csv(root / "grades.csv")
    for entry in entries:
        row = grades.get((entry.student, entry.assignment))
        if row is None:
            continue
        entry.late = {**entry.late, **_late_columns(row)}
        listed = {p.strip() for p in re.split(r";\s+(?![^(]*\))", row.get("problems") or "") if p.strip()}
        # grades.csv may say more ("several notebooks (not counted: ...)") or know more (added columns)
        entry.problems = {p for p in entry.problems if not any(q.startswith(p + " (") for q in listed)} | listed
    entries.sort(key=lambda e: (e.assignment, e.student))
    return entries, notes


# -- the numbers --------------------------------------------------------------------
@dataclass
class CheckStats:
    """One check across the class: ``assignment``, ``function``, ``name``, ``points`` (its
    maximum), ``submitted`` and ``passed`` (students), ``mean_points`` (over those who submitted)."""
    assignment: str
    function: str
    name: str
    points: float
    submitted: int = 0
    passed: int = 0
    total_points: float = 0.0

    @property
    def pass_rate(self):
        """Share of the students who submitted that passed, in [0, 1]."""
        return self.passed / self.submitted if self.submitted else 0.0

    @property
    def mean_points(self):
        return self.total_points / self.submitted if self.submitted else 0.0


def check_stats(entries):
    """``{assignment: [CheckStats, ...]}`` in the checks' order as first seen."""
    stats = {}
    for e in entries:
        by_name = stats.setdefault(e.assignment, {})
        for t in e.tests:
            s = by_name.setdefault(t.name, CheckStats(e.assignment, t.function, t.name, t.max_score))
            s.points = max(s.points, t.max_score)
            s.submitted += 1
            s.passed += t.passed
            s.total_points += t.score
    return {a: list(v.values()) for a, v in stats.items()}


def mistake_table(entries):
    """Named mistakes ranked by how many students made them.

    Returns:
        list of ``(assignment, function, mistake, [Entry, ...])``, most students first (then
        assignment, function, mistake); a student counts once per mistake however many of its
        checks name it.
    """
    found = defaultdict(dict)
    for e in entries:
        for t in e.tests:
            if t.passed:
                continue
            for m in t.mistakes:
                found[(e.assignment, t.function, m)][e.student] = e
    rows = [(a, f, m, sorted(who.values(), key=lambda e: e.student)) for (a, f, m), who in found.items()]
    rows.sort(key=lambda r: (-len(r[3]), r[0], r[1], r[2]))
    return rows


def histogram(scores, max_score, bins=HISTOGRAM_BINS):
    """Counts of ``scores`` in ``bins`` equal parts of [0, ``max_score``] (the top one closed).

    Returns: list of ``bins`` ints."""
    counts = [0] * bins
    for s in scores:
        share = s / max_score if max_score > 0 else 0.0
        counts[min(max(int(share * bins), 0), bins - 1)] += 1
    return counts


def gap_order(entries, names):
    """``entries`` sorted so that students with the same failed checks stand together: by their
    failed checks (most often failed checks first, so common gaps make the big groups), then by
    name. ``names``: the assignment's check names."""
    fails = {n: 0 for n in names}
    for e in entries:
        for t in e.tests:
            if not t.passed and t.name in fails:
                fails[t.name] += 1
    order = sorted(names, key=lambda n: -fails[n])

    def key(e):
        passed = {t.name: t.passed for t in e.tests}
        return tuple(0 if passed.get(n, False) else 1 for n in order), e.student
    return sorted(entries, key=key)


# -- CSV ----------------------------------------------------------------------------
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """A CSV cell that a spreadsheet will not run as a formula (OWASP: prefix ' to a text
    starting with = + - @ tab or CR). Numbers are written as they are."""
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _write_csv(path, header, rows):
    """Write ``rows`` (lists) under ``header`` as UTF-8 CSV, every cell through ``_cell``."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([_cell(v) for v in row] for row in rows)
    return Path(path)


def write_checks_csv(stats, path):
    """``class_checks.csv``: assignment, function, check, points, submitted, passed,
    pass_rate (share in [0, 1], 3 decimals), mean_points (2 decimals)."""
    rows = [[s.assignment, s.function, s.name, s.points, s.submitted, s.passed, f"{s.pass_rate:.3f}",
             f"{s.mean_points:.2f}"] for a in sorted(stats) for s in stats[a]]
    return _write_csv(path, ["assignment", "function", "check", "points", "submitted", "passed", "pass_rate",
                             "mean_points"], rows)


def write_mistakes_csv(mistakes, path):
    """``class_mistakes.csv``: assignment, function, mistake, count (students), students ("; ")."""
    rows = [[a, f, m, len(who), "; ".join(e.student for e in who)] for a, f, m, who in mistakes]
    return _write_csv(path, ["assignment", "function", "mistake", "count", "students"], rows)


# -- HTML ---------------------------------------------------------------------------
CLASS_STYLE = """
.autograder-report.class-report { max-width: 75em; }
.class-report .staff { background: #fde2e2; border: 1px solid #c62828; padding: .4em .8em; }
.class-report table.data { border-collapse: collapse; margin: .6em 0; }
.class-report table.data th, .class-report table.data td { border: 1px solid #ddd; padding: .2em .5em;
  text-align: left; vertical-align: top; }
.class-report table.data td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.class-report .bar { display: inline-block; height: .9em; background: #3b528b; vertical-align: middle; }
.class-report h2 { font-size: 1.3em; } .class-report h3 { font-size: 1.05em; margin: 1.2em 0 .3em; }
.class-report section.assignment > h2 { font-size: 1.5em; border-bottom: 2px solid #3b528b; }
.class-report .small { font-size: .85em; color: #555; margin-top: 0; }
.class-report table.histogram { border-collapse: collapse; }
.class-report table.histogram td { vertical-align: bottom; text-align: center; width: 4.2em; height: 6.5em;
  border-bottom: 1px solid #888; padding: 0 .2em; }
.class-report table.histogram .count { display: block; font-size: .85em; }
.class-report table.histogram .column { display: block; background: #3b528b; }
.class-report table.histogram th { font-weight: normal; font-size: .75em; white-space: nowrap; padding: .2em; }
.class-report .rate { display: inline-block; width: 8em; background: #eee; margin-right: .4em; text-align: left; }
.class-report .rate .bar { background: #2e7d32; }
.class-report td.students a { margin-right: .2em; white-space: nowrap; }
.class-report td.mistake-name { min-width: 16em; }
.class-report table.grid { border-collapse: collapse; margin: .6em 0; }
.class-report table.grid th { font-weight: normal; font-size: .85em; padding: 0 .3em; text-align: right;
  white-space: nowrap; }
.class-report table.grid thead th { text-align: center; }
.class-report table.grid td { width: 1.5em; height: 1.2em; border: 1px solid #fff; padding: 0; }
.class-report td.p { background: #2e7d32; } .class-report td.f { background: #c62828; }
.class-report td.h { background: #f9a825; } .class-report td.n { background: #bbb; }
.class-report .legend span { display: inline-block; width: 1em; height: 1em; vertical-align: middle;
  margin: 0 .3em 0 1em; }
.class-report section.assignment { break-before: page; }
.class-report table, .class-report tr { break-inside: avoid; }
.class-report * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media print { .class-report { max-width: none; font-size: 10pt; } .class-report a { color: inherit; } }
"""


def _pts(x):
    return f"{x:.4g}"


def _href(target, base):
    """URL of the file ``target`` relative to the folder ``base`` ('/'-separated, percent-quoted)."""
    return quote(os.path.relpath(os.path.abspath(target), base).replace(os.sep, "/"))


def _link(entry, base):
    """The student's name as a link to their report (``base``: the page's folder, absolute)."""
    if not entry.link:
        return _e(entry.student)
    if entry.href is None:
        entry.href = _e(_href(entry.link, base))
    return f"<a href='{entry.href}'>{_e(entry.student)}</a>"


def _anchor(assignment):
    return "a-" + re.sub(r"[^A-Za-z0-9_-]", "_", assignment)


def _histogram_html(entries, max_score):
    """Columns of students per tenth of ``max_score``; each range holds its lower end (the last both)."""
    counts = histogram([e.score for e in entries], max_score)
    top = max(counts) or 1
    bars, labels = [], []
    for i, n in enumerate(counts):
        low, high = max_score * i / HISTOGRAM_BINS, max_score * (i + 1) / HISTOGRAM_BINS
        bars.append(f"<td title='{n} students'><span class='count'>{n}</span>"
                    f"<span class='column' style='height: {5 * n / top:.2f}em'></span></td>")
        labels.append(f"<th>{_pts(low)}&ndash;{_pts(high)}</th>")
    scores = [e.score for e in entries]
    summary = (f"mean {_pts(statistics.fmean(scores))}, median {_pts(statistics.median(scores))} of "
               f"{_pts(max_score)} points; {sum(1 for s in scores if s >= max_score)} with full marks"
               if scores else "no results")
    return (f"<h3>Score distribution</h3><p>{summary}</p><table class='histogram'>"
            f"<tr>{''.join(bars)}</tr><tr>{''.join(labels)}</tr></table>"
            "<p class='small'>Students per range of points (a range holds its lower end).</p>")


def _mistakes_html(rows, base):
    if not rows:
        return "<h3>Named mistakes</h3><p>No failed check matched a named mistake.</p>"
    out = ["<h3>Named mistakes</h3><table class='data mistakes'><tr><th>students</th><th>function</th>"
           "<th>mistake</th><th>who (their reports)</th></tr>"]
    for _, function, mistake, who in rows:
        out.append(f"<tr class='mistake-row'><td class='num count'>{len(who)}</td><td>{_e(function)}</td>"
                   f"<td class='mistake-name'>{_e(mistake)}</td>"
                   f"<td class='students'>{' '.join(_link(e, base) for e in who)}</td></tr>")
    return "".join(out) + "</table>"


def _checks_html(stats):
    out = ["<h3>Checks</h3><table class='data checks'><tr><th>#</th><th>check</th><th>points</th>"
           "<th>pass rate</th><th>mean points</th></tr>"]
    for i, s in enumerate(stats, 1):
        out.append(f"<tr><td class='num'>{i}</td><td class='check-name'>{_e(s.name)}</td><td class='num'>"
                   f"{_pts(s.points)}</td><td class='num'><span class='rate'><span class='bar' "
                   f"style='width: {100 * s.pass_rate:.1f}%'></span></span>{s.passed}/{s.submitted} "
                   f"({100 * s.pass_rate:.0f}%)</td><td class='num'>{s.mean_points:.2f}</td></tr>")
    return "".join(out) + "</table>"


def _grid_html(entries, stats, base):
    names = [s.name for s in stats]
    head = "".join(f"<th title='{_e(n)}'>{i}</th>" for i, n in enumerate(names, 1))
    rows = []
    for e in gap_order(entries, names):
        by = {t.name: t for t in e.tests}
        cells = []
        for n in names:
            t = by.get(n)
            kind = "n" if t is None else "p" if t.passed else "h" if t.score > 0 else "f"
            cells.append(f"<td class='{kind}'></td>")
        rows.append(f"<tr><th>{_link(e, base)}</th>{''.join(cells)}<td class='num' style='width: auto; "
                    f"padding-left: .4em'>{_pts(e.score)}</td></tr>")
    legend = ("<p class='legend'><span class='p' style='background: #2e7d32'></span>passed"
              "<span style='background: #f9a825'></span>some points<span style='background: #c62828'></span>"
              "failed<span style='background: #bbb'></span>not in this results.json</p>")
    return ("<h3>Students &times; checks</h3><p>Columns are the checks numbered above; rows are "
            "sorted so that students who failed the same checks stand together.</p>" + legend
            + f"<table class='grid'><thead><tr><th></th>{head}<th>points</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _simple_table(caption, header, rows, css):
    """A titled table (``css`` is its class and the title's id), or "None." without rows."""
    if not rows:
        return f"<h2 id='{css}'>{caption}</h2><p>None.</p>"
    out = [f"<h2 id='{css}'>{caption}</h2><table class='data {css}'><tr>"
           + "".join(f"<th>{h}</th>" for h in header) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    return "".join(out) + "</table>"


def is_identical(problem):
    """Whether a problem text says the submission is identical to another's."""
    text = problem.lower()
    return "identical" in text or "duplicate" in text or text.startswith("same as")


def render_class_html(entries, notes=(), base=".", title="Class report", stats=None, mistakes=None, absent=()):
    """The class report page (see module docstring) as one str.

    Args:
        entries: ``Entry`` list (``load``). notes: lines shown at the top (str).
        base: the folder the page is written to (links to reports are relative to it).
        stats, mistakes: ``check_stats(entries)`` and ``mistake_table(entries)`` when computed already.
        absent: ``(student, assignment)`` pairs of roster students who submitted nothing
            (``not_submitted``): they count among the students and stand under "Did not submit".
    Every text from results.json or grades.csv is escaped (``html.escape``)."""
    by_assignment = defaultdict(list)
    for e in entries:
        by_assignment[e.assignment].append(e)
    stats = check_stats(entries) if stats is None else stats
    mistakes = mistake_table(entries) if mistakes is None else mistakes
    students = sorted({e.student for e in entries} | {s for s, a in absent if a in by_assignment})
    base = os.path.abspath(base)
    for e in entries:
        e.href = None
    out = [f"<div class='autograder-report class-report'><style>{STYLE}{CLASS_STYLE}</style>",
           f"<h1>{_e(title)}</h1>",
           "<p class='staff'><b>For course staff only.</b> This page shows every student's results; "
           "share a student's own report.html with that student alone.</p>",
           f"<p>{len(students)} students, {len(by_assignment)} assignments, {len(entries)} graded submissions.</p>"]
    if notes:
        out.append("<div class='notes'><ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></div>")
    overview = []
    for a in sorted(by_assignment):
        group = by_assignment[a]
        top = max(e.max_score for e in group)
        scores = [e.score for e in group]
        overview.append([f"<a href='#{_anchor(a)}'>{_e(a)}</a>", len(group), len(students) - len(group),
                         _pts(statistics.fmean(scores)), _pts(top),
                         len([m for m in mistakes if m[0] == a])])
    out.append(_simple_table("Assignments", ["assignment", "submitted", "not submitted", "mean points",
                                             "of", "named mistakes"], overview, "overview"))
    contents_at = len(out)
    for a in sorted(by_assignment):
        group = by_assignment[a]
        out.append(f"<section class='assignment' id='{_anchor(a)}'><h2>{_e(a)}</h2>")
        out.append(_histogram_html(group, max(e.max_score for e in group)))
        out.append(_mistakes_html([m for m in mistakes if m[0] == a], base))
        out.append(_checks_html(stats.get(a, [])))
        out.append(_grid_html(group, stats.get(a, []), base))
        out.append("</section>")
    tail = []  # the class-wide tables, after the assignments; listed at the top
    missing = []
    handed_in = {(e.student, e.assignment) for e in entries}
    for s in students:
        absent = [a for a in sorted(by_assignment) if (s, a) not in handed_in]
        if absent:
            missing.append([_e(s), _e(", ".join(absent))])
    tail.append(("Did not submit", ["student", "assignments"], missing, "missing"))
    late = [[_link(e, base), _e(e.assignment), _e("; ".join(f"{k}: {v}" for k, v in e.late.items()))]
            for e in entries if e.late]
    tail.append(("Late work", ["student", "assignment", "recorded"], late, "late"))
    same = [[_link(e, base), _e(e.assignment), _e("; ".join(p for p in sorted(e.problems) if is_identical(p)))]
            for e in entries if any(is_identical(p) for p in e.problems)]
    tail.append(("Identical submissions", ["student", "assignment", "finding"], same, "identical"))
    problems = [[_link(e, base), _e(e.assignment), _e("; ".join(p for p in sorted(e.problems) if not is_identical(p)))]
                for e in entries if any(not is_identical(p) for p in e.problems)]
    tail.append(("Problems (timeouts, crashes, grader errors ...)", ["student", "assignment", "problems"],
                 problems, "problems"))
    out.insert(contents_at, "<p class='contents'>For the whole class: " + " &middot; ".join(
        f"<a href='#{css}'>{caption.split(' (')[0]}</a> ({len(rows)})" for caption, _, rows, css in tail) + "</p>")
    out += [_simple_table(*t) for t in tail]
    out.append("</div>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width'><title>{_e(title)}</title></head>"
            "<body style='margin: 1.5em auto; max-width: 75em; padding: 0 1em'>\n"
            + "\n".join(out) + "\n</body></html>\n")


def not_submitted(graded_dir):
    """``(student, assignment)`` pairs that grades.csv lists as "not submitted" (roster students
    without a submission, written by a class run given a roster); [] without grades.csv."""
    rows = _read_grades_csv(Path(graded_dir) / "grades.csv")
    return sorted(key for key, row in rows.items()
                  if "not submitted" in [p.strip() for p in (row.get("problems") or "").split(";")])


def write_all(graded_dir, out=None, assignment=None):
    """Read ``graded_dir`` (see ``load``) and write class.html, class_checks.csv and
    class_mistakes.csv into ``out`` (default ``graded_dir``).

    Returns:
        ``{"html": Path, "checks": Path, "mistakes": Path, "entries": int, "notes": [str]}``.
    """
    out = Path(out or graded_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries, notes = load(graded_dir, assignment)
    stats, mistakes = check_stats(entries), mistake_table(entries)
    page = out / CLASS_HTML
    page.write_text(render_class_html(entries, notes, base=out, stats=stats, mistakes=mistakes,
                                      absent=not_submitted(graded_dir)), encoding="utf-8")
    return {"html": page, "checks": write_checks_csv(stats, out / CHECKS_CSV),
            "mistakes": write_mistakes_csv(mistakes, out / MISTAKES_CSV),
            "entries": len(entries), "notes": notes}



def write_after_run(out, say=None):
    """``write_all(out)`` at the end of a class run: prints where the files went (with ``say``,
    default ``print`` to stderr); a failure is reported and returns None, never ends the run."""
    import sys
    import traceback
    say = say or (lambda *a: print(*a, file=sys.stderr))
    try:
        written = write_all(out)
    except Exception:  # the grades are written already; the staff report must not undo a run
        say(f"could not write the class report:\n{traceback.format_exc()}")
        return None
    say(f"class report (staff only) in {written['html']}; {written['checks'].name}, "
        f"{written['mistakes'].name} beside it")
    return written


def add_arguments(parser):
    """Arguments of ``python -m autograder report`` (see ``command``)."""
    parser.add_argument("graded_dir", metavar="GRADED_DIR",
                        help="a grading output folder (<assignment>/<student>/results.json, grades.csv) "
                             "or a folder of Gradescope results.json files")
    parser.add_argument("--out", help="where class.html and the CSVs go (default: GRADED_DIR)")
    parser.add_argument("--assignment", help="assignment name for results.json files that do not say it")


def command(args):
    """``python -m autograder report GRADED_DIR``: write the class report; exit status 0, or 2
    when GRADED_DIR holds no results.json."""
    import sys
    if not Path(args.graded_dir).is_dir():
        print(f"report: {args.graded_dir} is not a folder", file=sys.stderr)
        return 2
    written = write_all(args.graded_dir, args.out, args.assignment)
    for note in written["notes"]:
        print(f"note: {note}", file=sys.stderr)
    if not written["entries"]:
        print(f"report: no results.json under {args.graded_dir}", file=sys.stderr)
        return 2
    print(f"class report of {written['entries']} results.json file(s) in {written['html']}; "
          f"{written['checks']}, {written['mistakes']}")
    return 0
