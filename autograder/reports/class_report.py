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

import csv
import os
import statistics
from pathlib import Path

from autograder.reports.class_load import (  # noqa: F401  (load: the report's reading, for callers)
    Listing,
    load,
    shown_name,
)
from autograder.reports.class_sections import (
    CLASS_STYLE,
    NEAR_PAIRS_SHOWN,
    anchor,
    checks_html,
    grid_html,
    histogram_of,
    mistakes_html,
    name_link,
    near_copies_html,
    persistent_html,
    pts,
    simple_table,
    student_link,
    table_pieces,
)
from autograder.reports.class_stats import (  # noqa: F401  (check_stats, mistake_table: for callers)
    check_stats,
    mistake_table,
    write_checks_csv,
    write_mistakes_csv,
)
from autograder.reports.class_summary import Summary
from autograder.reports.student import STYLE, escape_html

CLASS_HTML, CHECKS_CSV, MISTAKES_CSV = "class.html", "class_checks.csv", "class_mistakes.csv"


def render_class_html(entries, notes: tuple = (), base: str = ".", title: str = "Class report", absent=(),
                      paths: dict | None = None, near: dict | None = None) -> str:
    """The class report page (see module docstring) as one str: ``class_html_parts`` joined.

    Args: as ``class_html_parts``, but ``entries`` an ``Entry`` list (``load``), each linked by its
    ``link`` relative to ``base`` (the folder the page is written to)."""
    entries = list(entries)
    base = os.path.abspath(base)
    for e in entries:
        e.href = None

    def link(k):
        return student_link(entries[k], base)
    return "".join(class_html_parts(Summary.of(entries), link, notes, title, absent, paths, near))


def class_html_parts(summary, link, notes: tuple = (), title: str = "Class report", absent=(),
                     paths: dict | None = None, near: dict | None = None):
    """The class report page (see module docstring) in pieces (str) whose concatenation is the page:
    ``write_all`` writes them one by one (the page is never held whole, nor a section of the whole
    class: at 10,000 notebooks it is tens of MB).

    Args:
        summary: the class (``class_summary.Summary``); link: ``link(k)``, the HTML of the ``k``-th
            entry's student linked to their report. notes: lines shown at the top (str).
        absent: ``(student, assignment)`` pairs of roster students who submitted nothing
            (``not_submitted``): they count among the students and stand under "Did not submit".
        paths: ``families.student_paths(entries, order)`` when computed already (None: from the
            summary in the course's order, ``families.course_order``).
        near: ``near_copies.read(graded_dir)`` (``{assignment: [pair, ...]}``) or None (none compared).
    Every text from results.json or grades.csv is escaped (``html.escape``)."""
    from autograder.reports.near_copies import mistake_pairs_of
    groups = summary.groups
    assignments = sorted(groups)
    mistakes = summary.mistakes()
    students = sorted(set(summary.marks) | {s for s, a in absent if a in groups})
    yield ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
           f"<meta name='viewport' content='width=device-width'><title>{escape_html(title)}</title></head>"
           "<body style='margin: 1.5em auto; max-width: 75em; padding: 0 1em'>\n")
    head = [f"<div class='autograder-report class-report'><style>{STYLE}{CLASS_STYLE}</style>",
            f"<h1>{escape_html(title)}</h1>",
            "<p class='staff'><b>For course staff only.</b> This page shows every student's results; "
            "share a student's own report.html with that student alone.</p>",
            f"<p>{len(students)} students, {len(groups)} assignments, {summary.count} graded submissions.</p>"]
    if notes:
        head.append("<div class='notes'><ul>" + "".join(f"<li>{escape_html(n)}</li>" for n in notes) + "</ul></div>")
    overview = []
    for a in assignments:
        group = groups[a]
        tried = group.scores
        overview.append([f"<a href='#{anchor(a)}'>{escape_html(a)}</a>", group.submitted, group.stubs,
                         len(students) - group.submitted, pts(statistics.fmean(tried)) if len(tried) else "&ndash;",
                         pts(group.top), len([m for m in mistakes if m[0] == a])])
    head.append(simple_table("Assignments", ["assignment", "submitted", "not attempted", "not submitted",
                                              "mean points (attempted)", "of", "named mistakes"], overview,
                             "overview"))
    missing = []
    for s in students:
        handed = summary.handed_in(s)
        gone = [a for a in assignments if a not in handed]
        if gone:
            missing.append([escape_html(s), escape_html(", ".join(gone))])
    # the class-wide tables, after the assignments; listed at the top
    tail = [("Did not submit", ["student", "assignments"], missing, "missing", len(missing)),
            ("Late work", ["student", "assignment", "recorded"], summary.late, "late", len(summary.late)),
            ("Identical submissions", ["student", "assignment", "finding"], summary.identical, "identical",
             len(summary.identical)),
            ("Problems (integrity events, timeouts, crashes, grader errors ...)",
             ["student", "assignment", "problems"], summary.problems, "problems", len(summary.problems))]
    head.append("<p class='contents'>For the whole class: " + " &middot; ".join(
        f"<a href='#{css}'>{caption.split(' (')[0]}</a> ({n})" for caption, _, _, css, n in tail)
        + " &middot; <a href='#persistent'>Misconceptions across notebooks</a>"
        " &middot; <a href='#near-copies'>Near-copies</a></p>")
    parts: list = list(head)
    for a in assignments:
        group = groups[a]
        stats = list(summary.stats.get(a, {}).values())
        parts += [f"<section class='assignment' id='{anchor(a)}'><h2>{escape_html(a)}</h2>",
                  histogram_of(group.scores, group.stubs, group.top),
                  mistakes_html([m for m in mistakes if m[0] == a], link),
                  checks_html(stats), grid_html(group.rows, stats, group.fails, link), "</section>"]

    def rows_of(found):  # a table's rows from (k, assignment, text): drawn as they are written
        for k, assignment, text in found:
            yield [link(k), escape_html(assignment), escape_html(text)]
    for caption, header, rows, css, _ in tail:
        parts.append(table_pieces(caption, header, rows if rows is missing else rows_of(rows), css))
    if paths is None:
        from autograder.reports.families import course_order
        paths = summary.paths(course_order())

    def first(student, assignment):
        k = summary.place(student, assignment)
        return link(k) if k is not None else escape_html(student)
    parts.append(persistent_html(paths, first))
    parts.append(near_copies_html(near or {}, mistake_pairs_of(summary.made)))
    parts.append("</div>")
    for i, part in enumerate(parts):  # a part is a str or pieces of one; parts stand on lines of their own
        if i:
            yield "\n"
        if isinstance(part, str):
            yield part
        else:
            yield from part
    yield "\n</body></html>\n"


def not_submitted(graded_dir):
    """``(student, assignment)`` pairs that grades.csv lists as "not submitted" (roster students
    without a submission, written by a class run given a roster); [] without grades.csv. Read a
    row at a time (the last row of a pair counts)."""
    found: dict = {}
    try:
        with open(Path(graded_dir) / "grades.csv", newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                key = (row.get("student_id", ""), row.get("assignment_id", ""))
                if "not submitted" in [p.strip() for p in (row.get("problems") or "").split(";")]:
                    found[key] = True
                else:
                    found.pop(key, None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return []
    return sorted(found)


def write_all(graded_dir, out=None, assignment=None):
    """Read ``graded_dir`` (see ``load``) and write class.html, class_checks.csv and
    class_mistakes.csv into ``out`` (default ``graded_dir``).

    The results.json files are read twice, one at a time (``class_load.Listing``): once to list
    them in order, once into the ``class_summary.Summary`` the page and the CSVs are drawn from
    (a few hundred bytes a notebook); the page is written a piece at a time.

    Returns:
        ``{"html": Path, "checks": Path, "mistakes": Path, "entries": int, "notes": [str]}``.
    """
    out = Path(out or graded_dir)
    out.mkdir(parents=True, exist_ok=True)
    listing = Listing(graded_dir, assignment)
    summary = Summary.of(listing.entries())
    base = os.path.abspath(out)

    def link(k):
        return name_link(listing.rows[k][1], listing.link(k), base)
    page = out / CLASS_HTML
    from autograder.reports import near_copies
    near = near_copies.read(graded_dir, keep=NEAR_PAIRS_SHOWN)
    with page.open("w", encoding="utf-8") as f:
        for part in class_html_parts(summary, link, listing.notes, absent=not_submitted(graded_dir), near=near):
            f.write(part)
    stats = {a: list(v.values()) for a, v in summary.stats.items()}
    return {"html": page, "checks": write_checks_csv(stats, out / CHECKS_CSV),
            "mistakes": write_mistakes_csv(summary.mistakes(), out / MISTAKES_CSV),
            "entries": summary.count, "notes": listing.notes}


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
