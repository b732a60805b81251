"""The class report's page, part by part: its style and the HTML of each section (histograms,
named mistakes, pass rates, the students x checks grid, misconceptions across notebooks,
near-copies), assembled by ``class_report.render_class_html``."""
from __future__ import annotations

import itertools
import os
import re
import statistics
from urllib.parse import quote

from autograder.reports.class_load import (
    INTEGRITY_IMPORT,
    shown_name,
)
from autograder.reports.class_stats import (
    binned,
    bins,
    gap_sorted,
)
from autograder.reports.student import escape_html

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
.class-report table.grid td { min-width: 1.7em; height: 1.7em; border: 1px solid #fff; padding: 0;
  text-align: center; font-weight: bold; }
.class-report td.p, .class-report .key.p { background: #2e7d32; color: #fff; }
.class-report td.f, .class-report .key.f { background: #c62828; color: #fff; }
.class-report td.h, .class-report .key.h { background: #f9a825; color: #000; }
.class-report td.n, .class-report .key.n { background: #bbb; color: #000; }
.class-report .legend span.key { display: inline-block; min-width: 1.5em; text-align: center; font-weight: bold;
  margin: 0 .3em 0 1em; }
.class-report table a { display: inline-block; min-width: 24px; min-height: 24px; line-height: 24px; }
.class-report table.grid tbody th a { padding: 0 .2em; }
.class-report details summary { min-height: 24px; line-height: 24px; cursor: pointer; }
.class-report summary:focus-visible { outline: 3px solid #1a4fa0; outline-offset: 2px; }
.class-report table.side pre { white-space: pre-wrap; margin: 0; font-size: .85em; max-width: 34em; overflow-wrap: anywhere; }
.class-report caption { text-align: left; font-weight: bold; padding: .2em 0; }
.autograder-report .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.autograder-report a:focus-visible { outline: 3px solid #1a4fa0; outline-offset: 2px; }
.class-report section.assignment { break-before: page; }
.class-report table, .class-report tr { break-inside: avoid; }
.class-report * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media print { .class-report { max-width: none; font-size: 10pt; } .class-report a { color: inherit; } }
"""


def pts(x):
    return f"{x:.4g}"


def _href(target, base):
    """URL of the file ``target`` relative to the folder ``base``: '/'-separated, the file system's
    bytes percent-encoded (``quote`` of ``os.fsencode``), so any name a folder can have links."""
    rel = os.path.relpath(os.path.abspath(target), base).replace(os.sep, "/")
    return quote(os.fsencode(rel))


def student_link(entry, base):
    """The student's name as a link to their report (``base``: the page's folder, absolute)."""
    if not entry.link:
        return escape_html(entry.student)
    if entry.href is None:
        entry.href = escape_html(_href(entry.link, base))
    return f"<a href='{entry.href}'>{escape_html(entry.student)}</a>"


def name_link(student, link, base):
    """``student_link`` of a name and its report's ``Path`` (``None``: no link), nothing cached."""
    if not link:
        return escape_html(student)
    return f"<a href='{escape_html(_href(link, base))}'>{escape_html(student)}</a>"


def anchor(assignment):
    return "a-" + re.sub(r"[^A-Za-z0-9_-]", "_", assignment)


def _hidden(text):
    """Text for screen readers and copies, not drawn (``visually-hidden``)."""
    return f"<span class='visually-hidden'>{text}</span>"


def histogram_html(entries, max_score):
    """Columns of students per range of points (``class_stats.bins``: whole points when the points
    are whole, else tenths of ``max_score``); notebooks not attempted are counted apart."""
    return histogram_of([e.score for e in entries if not e.not_attempted],
                        sum(1 for e in entries if e.not_attempted), max_score)


def histogram_of(scores, stubs: int, max_score):
    """``histogram_html`` of the attempted notebooks' points ``scores`` and ``stubs`` notebooks
    not attempted."""
    ranges = bins(scores, max_score)
    counts = binned(scores, ranges)
    top = max(counts) or 1
    whole = all(isinstance(low, int) for low, _ in ranges)
    bars, labels = [], []
    for (low, high), n in zip(ranges, counts, strict=True):
        label = pts(low) if whole and low == high else f"{pts(low)}&ndash;{pts(high)}"
        bars.append(f"<td title='{n} students'><span class='count'>{n}</span>"
                    f"<span class='column' style='height: {5 * n / top:.2f}em'></span></td>")
        labels.append(f"<th scope='col'>{label}{_hidden(' points')}</th>")
    summary = (f"mean {pts(statistics.fmean(scores))}, median {pts(statistics.median(scores))} of "
               f"{pts(max_score)} points; {sum(1 for s in scores if s >= max_score)} with full marks"
               if len(scores) else "no attempted notebooks")
    if stubs:
        summary += (f"; {stubs} not attempted (every function still the released stub), "
                    "counted in no range, pass rate or mean")
    note = ("Students per number of points (a range holds both ends)." if whole else
            "Students per range of points (a range holds its lower end).")
    return (f"<h3>Score distribution</h3><p>{summary}</p><table class='histogram'>"
            f"<caption class='visually-hidden'>Students per range of points</caption>"
            f"<tr>{''.join(bars)}</tr><tr>{''.join(labels)}</tr></table>"
            f"<p class='small'>{note}</p>")


def mistakes_html(rows, link):
    """The named mistakes of one assignment (``class_stats.mistake_table`` rows); ``link(k)``: the
    HTML of the ``k``-th entry's student linked to their report."""
    if not rows:
        return "<h3>Named mistakes</h3><p>No failed check matched a named mistake.</p>"
    out = ["<h3>Named mistakes</h3><table class='data mistakes'><caption class='visually-hidden'>Named mistakes"
           "</caption><tr><th scope='col'>students</th><th scope='col'>function</th>"
           "<th scope='col'>mistake</th><th scope='col'>who (their reports)</th></tr>"]
    for _, function, mistake, who in rows:
        out.append(f"<tr class='mistake-row'><td class='num count'>{len(who)}</td><td>{escape_html(function)}</td>"
                   f"<td class='mistake-name'>{escape_html(mistake)}</td>"
                   f"<td class='students'>{' '.join(link(k) for _, k in who)}</td></tr>")
    return "".join(out) + "</table>"


def checks_html(stats):
    out = ["<h3>Checks</h3><table class='data checks'><caption class='visually-hidden'>Checks</caption>"
           "<tr><th scope='col'>#</th><th scope='col'>check</th><th scope='col'>points</th>"
           "<th scope='col'>pass rate</th><th scope='col'>mean points</th></tr>"]
    for i, s in enumerate(stats, 1):
        out.append(f"<tr><td class='num'>{i}</td><td class='check-name'>{escape_html(s.name)}</td><td class='num'>"
                   f"{pts(s.points)}</td><td class='num'><span class='rate'><span class='bar' "
                   f"style='width: {100 * s.pass_rate:.1f}%'></span></span>{s.passed}/{s.submitted} "
                   f"({100 * s.pass_rate:.0f}%)</td><td class='num'>{s.mean_points:.2f}</td></tr>")
    return "".join(out) + "</table>"


# The grid's cells: CSS class, the symbol drawn, the words a screen reader says (colour is never alone).
CELLS = {"p": ("\u2713", "passed"), "h": ("\u00bd", "some points"), "f": ("\u2717", "failed"),
         "n": ("\u2013", "not in this results.json"), "s": ("\u25cb", "not attempted (the released stub)")}


def grid_html(rows, stats, fails, link):
    """The students x checks grid of one assignment, in pieces (str) whose concatenation is the
    table: a row at a time (a class's grid is a MB or more). ``rows``: the grid's rows
    (``class_summary.Group.rows``: ``(cells, student, k, points or None)``), ``stats`` its
    ``CheckStats``, ``fails`` ``{check name: failed checks}``, ``link(k)`` a student's link."""
    names = [s.name for s in stats]
    head = "".join(f"<th scope='col' title='{escape_html(n)}'>{i}{_hidden(' ' + escape_html(n))}</th>"
                   for i, n in enumerate(names, 1))
    legend = ("<p class='legend'>Each cell says how a check went: "
              + "".join(f"<span class='key {'n' if k == 's' else k}' aria-hidden='true'>{sym}</span>{words}"
                        for k, (sym, words) in CELLS.items()) + ".</p>")
    yield ("<h3>Students &times; checks</h3><p>Columns are the checks numbered above; rows are "
           "sorted so that students who failed the same checks stand together.</p>" + legend
           + "<table class='grid'><caption class='visually-hidden'>Students by checks</caption>"
           f"<thead><tr><th scope='col'>student</th>{head}<th scope='col'>points</th></tr></thead><tbody>")
    drawn = {kind: f"<td class='{'n' if kind == 's' else kind}'>{symbol}{_hidden(words)}</td>"
             for kind, (symbol, words) in CELLS.items()}
    for cells, _, k, score in gap_sorted(rows, names, fails):
        kinds = cells.decode("ascii").ljust(len(names), "n")
        yield (f"<tr><th scope='row'>{link(k)}</th>{''.join(drawn[kind] for kind in kinds)}<td class='num' "
               f"style='width: auto; padding-left: .4em'>{'not attempted' if score is None else pts(score)}</td></tr>")
    yield "</tbody></table>"


def simple_table(caption, header, rows, css, level=2):
    """A titled table (``css`` is its class and the title's id; ``level``: the title's h level), or
    "None." without rows."""
    return "".join(table_pieces(caption, header, rows, css, level))


def table_pieces(caption, header, rows, css, level=2):
    """``simple_table`` in pieces (str) whose concatenation is the table: a row at a time, so a
    table of the whole class is never held; ``rows``: a list, or any iterable of lists of cells."""
    title = f"<h{level} id='{css}'>{caption}</h{level}>"
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        yield f"{title}<p>None.</p>"
        return
    yield (f"{title}<table class='data {css}'><caption class='visually-hidden'>{caption}"
           "</caption><tr>" + "".join(f"<th scope='col'>{h}</th>" for h in header) + "</tr>")
    for row in itertools.chain([first], rows):
        yield "<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
    yield "</table>"


def is_identical(problem) -> bool:
    """Whether a problem text says the submission is identical to another's."""
    text = problem.lower()
    return "identical" in text or "duplicate" in text or text.startswith("same as")


def is_integrity(problem) -> bool:
    """Whether a problem is an integrity event: an attempted import of the grader's own packages
    (``class_load.integrity_events``) or a submission flagged identical (``is_identical``)."""
    return is_identical(problem) or problem.startswith(INTEGRITY_IMPORT.split("{}")[0])


def problem_text(problems):
    """A row's problems for the Problems table: integrity events first, marked "integrity:"."""
    ordered = sorted(problems, key=lambda p: (not is_integrity(p), p))
    return "; ".join(("integrity: " if is_integrity(p) else "") + p for p in ordered)


def persistent_html(paths, link):
    """The section of misconceptions that recur across notebooks (``families.persistent``);
    ``link(student, assignment)``: the student's name linked to that notebook's report."""
    from autograder.reports.families import persistent
    rows = []
    for family, who in persistent(paths):
        for student, made, again, fixed in who:
            rows.append([escape_html(family.label), link(student, made[0]), escape_html(", ".join(made)),
                         escape_html(", ".join(again)), escape_html(", ".join(fixed)) or "&ndash;"])
    table = simple_table("Misconceptions across notebooks", ["misconception", "student", "named in",
                                                              "again in", "right later in"], rows, "persistent")
    return (table + "<p class='small'>A misconception is a family of named mistakes (reports/families.py) "
            "that the checks of several notebooks recognise. Listed: students whose wrong values showed the same "
            "family in two notebooks or more. \u201cRight later\u201d: a later notebook's checks of that idea all "
            "passed. A family not named is no proof that the idea is understood.</p>")


NEAR_PAIRS_SHOWN = 30  # items per assignment on the page (the most alike); near_copies.json keeps more
NEAR_NAMES_SHOWN = 8   # students named per code on the page, then "and N more"


def _near_codes(item):
    """``[(names, count, texts), ...]`` of a near_copies.json item, one per code: a group's one code
    or two codes alike; a pair of an earlier version (two names) as two codes of one student."""
    students = item.get("students") or []
    counts, texts = item.get("count") or [], item.get("texts") or []
    codes = []
    for k, who in enumerate(students[:2]):
        names = [str(x) for x in who] if isinstance(who, list) else [str(who)]
        count = counts[k] if k < len(counts) and isinstance(counts[k], int) else len(names)
        codes.append((names, max(count, len(names)), texts[k] if k < len(texts) and isinstance(texts[k], int) else 1))
    return codes


def _near_names(names, count):
    shown = ", ".join(escape_html(shown_name(x)) for x in names[:NEAR_NAMES_SHOWN])
    more = count - min(len(names), NEAR_NAMES_SHOWN)
    return shown + (f" and {more} more" if more > 0 else "")


def _near_row(assignment, item):
    """A row of the shared-code table for one item: a group (one code) or two codes alike."""
    codes = _near_codes(item)
    share = [float(x) for x in (item.get("share") or [0])]
    heads = [escape_html(shown_name(n[0])) if n else "?" for n, _, _ in codes]
    if len(codes) == 1:
        names, count, texts = codes[0]
        who = (f"{count} students, the same code{'' if texts < 2 else ' once what does nothing, names, order and layout are left out'}: "
               + _near_names(names, count))
        alike = "the same code"
    else:
        who = " &amp; ".join(_near_names(n, c) + (f" ({c} with the same code)" if c > 1 else "") for n, c, _ in codes)
        alike = f"{100 * min(share):.0f}% / {100 * max(share):.0f}%"
    cols = len(codes)
    evidence = "".join(
        f"<details><summary>{escape_html(f)}</summary><table class='data side'><caption class='visually-hidden'>"
        f"{escape_html(f)}: {' and '.join(heads)}</caption><tr>" + "".join(f"<th scope='col'>{h}</th>" for h in heads)
        + "</tr><tr>" + "".join(f"<td><pre>{escape_html(x)}</pre></td>" for x in src) + "</tr></table></details>"
        for f, src in (item.get("evidence") or {}).items() if isinstance(src, list) and len(src) == cols)
    return [who, escape_html(assignment), alike, evidence or "&ndash;"]


def near_copies_html(near, pairs):
    """The near-copies section (``near_copies``): groups of students handing in the same code and
    pairs of codes alike, with their code side by side, and students sharing a rare combination of
    named mistakes (``pairs``: ``near_copies.mistake_pairs``). Never a grade."""
    from autograder.reports.near_copies import MIN_SHARED, RARE
    out = ["<h2 id='near-copies'>Near-copies (for staff; never graded down)</h2>",
           "<p class='small'>Students who hand in the same code (listed once, as a group), codes that share "
           "most of their code once the released notebook's code is left out (copydetect's winnowing over "
           "each code's canonical form: statements that do nothing, dead code, renamed variables, swapped "
           "independent statements, comments and layout do not hide it; the code shown is the students' own), "
           "and pairs who made "
           "the same rare named mistakes. A reason to look at notebooks side by side, not a finding: short "
           "functions and the course's own examples make honest twins.</p>"]
    rows, cut, left = [], 0, 0
    for assignment in sorted(near):
        cut += max(0, getattr(near[assignment], "total", len(near[assignment])) - NEAR_PAIRS_SHOWN)
        stats = getattr(near[assignment], "compared", None) or {}
        left += stats.get("not compared", 0) if isinstance(stats.get("not compared", 0), int) else 0
        rows += [_near_row(assignment, item) for item in near[assignment][:NEAR_PAIRS_SHOWN] if isinstance(item, dict)]
    out.append(simple_table("Shared code", ["students", "assignment", "shared (of each)", "their code"],
                             rows, "near-code", level=3))
    if cut:
        out.append(f"<p>{cut} more groups and pairs with less shared code are in near_copies.json.</p>")
    if left:
        out.append(f"<p>{left} pairs of codes that share some fingerprints were not compared (a class of many "
                   "different codes: only the pairs sharing the most were; see docs/class-report.md).</p>")
    pairs = [[escape_html(a) + " &amp; " + escape_html(b), "<br>".join(f"{escape_html(x)}: {escape_html(f)}: {escape_html(m)} ({n} students)"
                                                      for x, f, m, n in shared)] for a, b, shared in pairs]
    out.append(simple_table(f"Rare named mistakes in common (at least {MIN_SHARED}, each made by at most {RARE} "
                             "students)", ["students", "mistakes"], pairs, "near-mistakes", level=3))
    return "".join(out)
