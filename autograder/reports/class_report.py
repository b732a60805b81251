"""The class at a glance, for course staff: what the class got wrong, and where.

``write_all(graded_dir)`` reads every ``results.json`` under ``graded_dir`` (ours, laid out
``<assignment>/<student>/results.json``, or a folder of Gradescope results.json files, whose
``extra_data`` names the student and assignment) and ``grades.csv`` when there is one, and
writes three files into ``graded_dir`` (or ``out``):

* ``class.html``: per assignment the score distribution (a histogram), every check with its
  pass rate and mean points, the named mistakes ranked by how many students made them (each
  student linked to their ``report.html``), a students x checks heatmap whose rows are sorted
  so that students with the same gaps stand together; then who did not submit, late work,
  identical submissions and problems (integrity events first: an attempted import of the grader's
  packages, an identical flag; then timeouts, crashes, grader errors ...); the misconceptions that
  recur across notebooks (``families.py``) and the near-copies for staff (``near_copies.py``,
  read from ``near_copies.json``). Notebooks of untouched stubs are "not attempted": in no pass
  rate, mean or histogram column. Histogram columns are whole points when the points are. Who did not
  submit includes the roster students that grades.csv lists as "not submitted" (``not_submitted``). One
  self-contained page (inline style, no script, no network), drawn with the helpers of
  ``student.py`` (the student report's module), readable on a laptop and printable, and
  accessible (WCAG 2.2 AA as axe-core measures it: headers, captions, symbols beside colours,
  24 px link targets, a focus outline). Every name a folder can have is shown and linked (its
  bytes percent-encoded in the link).
* ``class_checks.csv``: one row per check (assignment, function, check, points, submitted,
  passed, pass_rate, mean_points).
* ``class_mistakes.csv``: one row per named mistake (assignment, function, mistake, count,
  students).

The page names every student: it is for staff only. Student reports never read it.

Where a mistake's name comes from: each test of our results.json carries
``extra_data.mistakes`` (``api.Mismatch.details``); a results.json without it (an
older run) is read from the feedback's own sentence "That is the value you get when you
...". Problems are those of ``extra_data.problems`` and of ``grades.csv``'s ``problems`` column
(an identical submission is any problem whose text says identical or duplicate); late work
is any ``grades.csv`` column or ``extra_data`` key whose name says late or penalty, when set.
Nothing in a broken or foreign results.json stops the report: it is skipped with a note.
"""
from __future__ import annotations

import os
import statistics
from collections import defaultdict
from pathlib import Path

from autograder.reports.class_load import (
    load,
    read_grades_csv,
    shown_name,
)
from autograder.reports.class_sections import (
    CLASS_STYLE,
    NEAR_PAIRS_SHOWN,
    anchor,
    checks_html,
    grid_html,
    histogram_html,
    is_identical,
    mistakes_html,
    near_copies_html,
    persistent_html,
    problem_text,
    pts,
    simple_table,
    student_link,
)
from autograder.reports.class_stats import (
    check_stats,
    mistake_table,
    write_checks_csv,
    write_mistakes_csv,
)
from autograder.reports.student import STYLE, escape_html

CLASS_HTML, CHECKS_CSV, MISTAKES_CSV = "class.html", "class_checks.csv", "class_mistakes.csv"


# -- the numbers --------------------------------------------------------------------


# -- CSV ----------------------------------------------------------------------------


# -- HTML ---------------------------------------------------------------------------

def render_class_html(entries, notes: tuple = (), base: str = ".", title: str = "Class report", stats=None,
                      mistakes=None, absent=(), paths: dict | None = None, near: dict | None = None) -> str:
    """The class report page (see module docstring) as one str: ``class_html_parts`` joined."""
    return "".join(class_html_parts(entries, notes, base, title, stats, mistakes, absent, paths, near))


def class_html_parts(entries, notes: tuple = (), base: str = ".", title: str = "Class report", stats=None,
                     mistakes=None, absent=(), paths: dict | None = None, near: dict | None = None) -> list:
    """The class report page (see module docstring) as a list of str whose concatenation is the
    page: ``write_all`` writes them one by one (the page is never held whole, nor encoded whole:
    at 10,000 notebooks it is tens of MB, and its copies were most of the command's peak memory).

    Args:
        entries: ``Entry`` list (``load``). notes: lines shown at the top (str).
        base: the folder the page is written to (links to reports are relative to it).
        stats, mistakes: ``check_stats(entries)`` and ``mistake_table(entries)`` when computed already.
        absent: ``(student, assignment)`` pairs of roster students who submitted nothing
            (``not_submitted``): they count among the students and stand under "Did not submit".
        paths: ``families.student_paths(entries, order)`` when computed already (None: computed
            here in the course's order, ``families.course_order``).
        near: ``near_copies.read(graded_dir)`` (``{assignment: [pair, ...]}``) or None (none compared).
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
           f"<h1>{escape_html(title)}</h1>",
           "<p class='staff'><b>For course staff only.</b> This page shows every student's results; "
           "share a student's own report.html with that student alone.</p>",
           f"<p>{len(students)} students, {len(by_assignment)} assignments, {len(entries)} graded submissions.</p>"]
    if notes:
        out.append("<div class='notes'><ul>" + "".join(f"<li>{escape_html(n)}</li>" for n in notes) + "</ul></div>")
    overview = []
    for a in sorted(by_assignment):
        group = by_assignment[a]
        top = max(e.max_score for e in group)
        tried = [e.score for e in group if not e.not_attempted]
        overview.append([f"<a href='#{anchor(a)}'>{escape_html(a)}</a>", len(group), len(group) - len(tried),
                         len(students) - len(group), pts(statistics.fmean(tried)) if tried else "&ndash;", pts(top),
                         len([m for m in mistakes if m[0] == a])])
    out.append(simple_table("Assignments", ["assignment", "submitted", "not attempted", "not submitted",
                                             "mean points (attempted)", "of", "named mistakes"], overview,
                             "overview"))
    contents_at = len(out)
    for a in sorted(by_assignment):
        group = by_assignment[a]
        out.append(f"<section class='assignment' id='{anchor(a)}'><h2>{escape_html(a)}</h2>")
        out.append(histogram_html(group, max(e.max_score for e in group)))
        out.append(mistakes_html([m for m in mistakes if m[0] == a], base))
        out.append(checks_html(stats.get(a, [])))
        out.append(grid_html(group, stats.get(a, []), base))
        out.append("</section>")
    tail = []  # the class-wide tables, after the assignments; listed at the top
    missing = []
    handed_in = {(e.student, e.assignment) for e in entries}
    for s in students:
        absent = [a for a in sorted(by_assignment) if (s, a) not in handed_in]
        if absent:
            missing.append([escape_html(s), escape_html(", ".join(absent))])
    tail.append(("Did not submit", ["student", "assignments"], missing, "missing"))
    late = [[student_link(e, base), escape_html(e.assignment), escape_html("; ".join(f"{k}: {v}" for k, v in e.late.items()))]
            for e in entries if e.late]
    tail.append(("Late work", ["student", "assignment", "recorded"], late, "late"))
    same = [[student_link(e, base), escape_html(e.assignment), escape_html("; ".join(p for p in sorted(e.problems) if is_identical(p)))]
            for e in entries if any(is_identical(p) for p in e.problems)]
    tail.append(("Identical submissions", ["student", "assignment", "finding"], same, "identical"))
    problems = [[student_link(e, base), escape_html(e.assignment), escape_html(problem_text(e.problems))] for e in entries if e.problems]
    tail.append(("Problems (integrity events, timeouts, crashes, grader errors ...)",
                 ["student", "assignment", "problems"], problems, "problems"))
    if paths is None:
        from autograder.reports.families import course_order, student_paths
        paths = student_paths(entries, course_order())
    out.insert(contents_at, "<p class='contents'>For the whole class: " + " &middot; ".join(
        f"<a href='#{css}'>{caption.split(' (')[0]}</a> ({len(rows)})" for caption, _, rows, css in tail)
        + " &middot; <a href='#persistent'>Misconceptions across notebooks</a>"
        " &middot; <a href='#near-copies'>Near-copies</a></p>")
    out += [simple_table(*t) for t in tail]
    out.append(persistent_html(paths, entries, base))
    out.append(near_copies_html(near or {}, entries, base))
    out.append("</div>")
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<meta name='viewport' content='width=device-width'><title>{escape_html(title)}</title></head>"
             "<body style='margin: 1.5em auto; max-width: 75em; padding: 0 1em'>\n"]
    for k, part in enumerate(out):
        parts += ["\n", part] if k else [part]
    parts.append("\n</body></html>\n")
    return parts


def not_submitted(graded_dir):
    """``(student, assignment)`` pairs that grades.csv lists as "not submitted" (roster students
    without a submission, written by a class run given a roster); [] without grades.csv."""
    rows = read_grades_csv(Path(graded_dir) / "grades.csv")
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
    from autograder.reports import near_copies
    parts = class_html_parts(entries, notes, base=out, stats=stats, mistakes=mistakes,
                             absent=not_submitted(graded_dir),
                             near=near_copies.read(graded_dir, keep=NEAR_PAIRS_SHOWN))
    with page.open("w", encoding="utf-8") as f:
        for part in parts:
            f.write(part)
    del parts
    return {"html": page, "checks": write_checks_csv(stats, out / CHECKS_CSV),
            "mistakes": write_mistakes_csv(mistakes, out / MISTAKES_CSV),
            "entries": len(entries), "notes": notes}


class ReportNotWritten(RuntimeError):
    """The class report could not be written (``write_after_run``); the message says why and where."""


def write_after_run(out, say=None):
    """``write_all(out)`` at the end of a class run: prints where the files went (with ``say``,
    default ``print`` to stderr).

    Raises:
        ReportNotWritten: the report could not be written (the grades are written already; the
            run must not end as if all went well). Its message names the folder and the cause.
    """
    import sys
    import traceback
    say = say or (lambda *a: print(*a, file=sys.stderr))
    try:
        written = write_all(out)
    except Exception as exc:
        detail = traceback.format_exc()
        say(f"could not write the class report:\n{detail}")
        raise ReportNotWritten(f"the class report (class.html, class_checks.csv, class_mistakes.csv) could not be "
                               f"written in {shown_name(os.fspath(out))}: {type(exc).__name__}: "
                               f"{shown_name(str(exc))}; the grades are written (grades.csv). Write the report "
                               f"again with: python -m autograder report {shown_name(os.fspath(out))}") from exc
    say(f"class report (staff only) in {written['html']}; {written['checks'].name}, "
        f"{written['mistakes'].name} beside it")
    return written


def add_arguments(parser) -> None:
    """Arguments of ``python -m autograder report`` (see ``command``)."""
    parser.add_argument("graded_dir", metavar="GRADED_DIR",
                        help="a grading output folder (<assignment>/<student>/results.json, grades.csv) "
                             "or a folder of Gradescope results.json files")
    parser.add_argument("--out", help="where class.html and the CSVs go (default: GRADED_DIR)")
    parser.add_argument("--assignment", help="assignment name for results.json files that do not say it")


def command(args) -> int:
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
