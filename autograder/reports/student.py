"""An HTML report of one student's notebook: what passed, what failed, and why.

``render_html(result)`` turns a ``vocabulary.NotebookResult`` into one self-contained HTML page
(no scripts, no external files): the score, notes about the notebook, and for every check
its points and feedback; for a failed comparison also the expected value beside the
student's, the named mistake, and a small picture where one helps:

* two grids of numbers of one shape (attention weights, a similarity matrix): the
  student's heatmap beside the expected one, coloured on one scale (HTML and CSS: writing a
  report costs milliseconds, so a whole class can have one; matplotlib PNGs took ~0.25 s each);
* two sequences (learned merges, tokens): side by side, one row per position, the first
  row where they part highlighted.

``write_html(result, out_dir)`` writes it to ``OUT/<assignment>/<student>/report.html``,
next to ``results.json``. Every text that comes from a submission (feedback quotes the
student's values, names and error messages) is passed through ``html.escape``.
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from autograder.checks.api import expected_got, fmt
from autograder.checks.values import show_pair

# Every rule is scoped to the report's own element, so the fragment can sit inside another
# page (nbgrader's feedback) without restyling it.
STYLE = """
.autograder-report { font-family: system-ui, sans-serif; color: #222; max-width: 60em; }
.autograder-report h1 { font-size: 1.4em; } .autograder-report h2 { font-size: 1.1em; margin-top: 1.6em; }
.autograder-report .score { font-size: 1.2em; font-weight: bold; }
.autograder-report .check { border: 1px solid #ccc; border-left: 6px solid #999; padding: .5em 1em; margin: .6em 0; }
.autograder-report .passed { border-left-color: #2e7d32; }
.autograder-report .failed { border-left-color: #c62828; background: #fff8f8; }
.autograder-report .status { font-weight: bold; } .autograder-report .passed .status { color: #2e7d32; }
.autograder-report .failed .status { color: #c62828; }
.autograder-report .message { white-space: pre-wrap; }
.autograder-report .mistake { background: #fff3cd; padding: .3em .6em; }
.autograder-report .fixfirst { border: 2px solid #8a6d00; padding: .2em 1em; }
.autograder-report table.values td, .autograder-report table.values th { border: 1px solid #ddd;
  padding: .2em .6em; vertical-align: top; font-family: monospace; }
.autograder-report tr.parted td { background: #ffe0e0; }
.autograder-report .notes { background: #f3f3f3; padding: .5em 1em; }
.autograder-report .heatmaps { display: flex; gap: 2em; flex-wrap: wrap; margin: .6em 0; }
.autograder-report table.heatmap { border-collapse: collapse; }
.autograder-report table.heatmap caption { font-weight: bold; white-space: nowrap; }
.autograder-report table.heatmap td { width: 3.6em; height: 2.2em; text-align: center; font-family: monospace; }
.autograder-report table.values caption { text-align: left; font-weight: bold; }
.autograder-report .again { font-style: italic; }
.autograder-report a:focus-visible { outline: 3px solid #1a4fa0; outline-offset: 2px; }
"""


def escape_html(value):
    return html.escape(str(value), quote=True)


def _numeric_grid(value):
    """``value`` as a 2-D float array of at most 30 x 30, or None."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return arr if arr.ndim == 2 and 0 < arr.shape[0] <= 30 and 0 < arr.shape[1] <= 30 else None


# Five stops of matplotlib's "viridis" colour map (dark purple to yellow), interpolated.
VIRIDIS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], dtype=float)


def _colour(x):
    """CSS colour of ``x`` in [0, 1] on the viridis map."""
    position = min(max(x, 0.0), 1.0) * (len(VIRIDIS) - 1)
    i = min(int(position), len(VIRIDIS) - 2)
    r, g, b = VIRIDIS[i] + (VIRIDIS[i + 1] - VIRIDIS[i]) * (position - i)
    return f"rgb({r:.0f}, {g:.0f}, {b:.0f})"


def _luminance(rgb):
    """WCAG relative luminance of an sRGB colour (0-255 channels), in [0, 1]."""
    lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _ink(share):
    """Black or white text on the viridis colour of ``share``: whichever contrasts more (WCAG's
    contrast ratio; one of the two always reaches 4.58:1)."""
    position = min(max(share, 0.0), 1.0) * (len(VIRIDIS) - 1)
    i = min(int(position), len(VIRIDIS) - 2)
    rgb = [round(c) for c in VIRIDIS[i] + (VIRIDIS[i + 1] - VIRIDIS[i]) * (position - i)]
    light = _luminance(rgb)
    return "black" if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "white"


def _grid_table(grid, low, high, caption):
    rows = []
    for row in grid:
        cells = []
        for x in row:
            if not np.isfinite(x):
                cells.append(f"<td style='background: #bbb'>{escape_html(fmt(float(x)))}</td>")
                continue
            share = (x - low) / (high - low)
            ink = _ink(share)
            cells.append(f"<td style='background: {_colour(share)}; color: {ink}'>{x:.3g}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table class='heatmap'><caption>{caption}</caption>{''.join(rows)}</table>"


def heatmaps(expected, got):
    """HTML of the student's grid beside the expected one, both coloured on one scale, or ""
    when they are not two grids of one shape. Plain HTML and CSS: fast to write for a whole
    class, readable without images, and every number stays visible."""
    want, have = _numeric_grid(expected), _numeric_grid(got)
    if want is None or have is None or want.shape != have.shape:
        return ""
    finite = np.concatenate([want[np.isfinite(want)], have[np.isfinite(have)]])
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if high - low < 1e-12:
        low, high = low - 1.0, high + 1.0
    return ("<div class='heatmaps'>" + _grid_table(have, low, high, "your values")
            + _grid_table(want, low, high, "expected") + "</div>")


def _sequence(value):
    if isinstance(value, (list, tuple)) and value and not isinstance(value, str) and \
            all(isinstance(v, (str, list, tuple)) for v in value):
        return [v if isinstance(v, str) else " ".join(str(x) for x in v) for v in value]
    return None


def sequences(expected, got):
    """HTML table of two sequences (merges, tokens) side by side, or "" when not sequences."""
    want, have = _sequence(expected), _sequence(got)
    if want is None or have is None:
        return ""
    rows = ["<table class='values'><tr><th scope='col'>#</th><th scope='col'>yours</th>"
            "<th scope='col'>expected</th></tr>"]
    parted = False
    for i in range(max(len(want), len(have))):
        mine = have[i] if i < len(have) else ""
        right = want[i] if i < len(want) else ""
        mark = ""
        if mine != right and not parted:
            mark, parted = " class='parted'", True
        rows.append(f"<tr{mark}><td>{i + 1}</td><td>{escape_html(mine)}</td><td>{escape_html(right)}</td></tr>")
    return "".join(rows) + "</table>"


def _elsewhere(name, elsewhere):
    """The line "You made this mistake in <notebook> too" for a named mistake, or ""."""
    from autograder.reports.families import family_of
    family = family_of(name)
    where = elsewhere.get(family.id) if family else None
    if not where:
        return ""
    return (f"<p class='again'>You made this mistake in {escape_html(', '.join(where))} too: "
            f"{escape_html(family.label)}.</p>")


def _named_sentences(mistakes):
    """The sentences ``checks/api.py`` ends a message with when a known mistake matched."""
    if not mistakes:
        return []
    names = " (or when you ".join(mistakes) + ")" * (len(mistakes) - 1)
    return [f"That is the value you get when you {names}.", f"That is what you get when you {names}."]


def message_once(output, details) -> str:
    """A failed check's message without the sentence naming its mistake, when the report names
    that mistake in its own box below (``_details``): each mistake is said once. A message that
    only says what was compared, expected and got becomes "": the values table says it."""
    text = str(output or "")
    if not details:
        return text
    for sentence in _named_sentences(details.get("mistakes")):
        text = text.replace(" " + sentence, "").replace(sentence, "")
    text = text.strip()
    if not details.get("withheld"):  # just "what: expected E, got G.": the table below says it
        try:
            said = f"{details.get('what', '')}: {expected_got(details.get('expected'), details.get('got'))}."
        except Exception:  # noqa: BLE001 -- values the table cannot print either: keep the message
            said = None
        if text == said:
            return ""
    return text


def fix_first(result) -> list:
    """What to fix first: ``[(mistake, points lost, [check names])]`` of the named mistakes of
    ``result``'s failed checks, and of its functions that ran past their time limit (an endless
    loop costs every check of its function, and the checks of the functions that call it), most
    points lost first (then by name). A check that names two mistakes counts its lost points for
    each."""
    from autograder.core.vocabulary import Problem
    lost: dict = {}
    for c in result.checks:
        details = getattr(c, "details", None) or {}
        if c.score >= c.max_score:
            continue
        names = list(details.get("mistakes") or [])
        if not names and (Problem.TIMEOUT in (c.problems or ()) or "did not return within" in (c.output or "")):
            names = [f"let {c.function} run past its time limit (an endless loop?)"]
        for name in names:
            points, checks = lost.get(name, (0.0, []))
            lost[name] = (points + c.max_score - c.score, checks + [c.name])
    return sorted(((n, p, cs) for n, (p, cs) in lost.items()), key=lambda x: (-x[1], x[0]))


def fix_first_text(result) -> str:
    """``fix_first`` as plain text for feedback.txt (lines, no trailing newline), or "" when no
    failed check names a mistake. Text from the submission never appears in it (mistake names and
    check names are the course's own)."""
    found = fix_first(result)
    if not found:
        return ""
    lines = ["What to fix first:"]
    for i, (name, points, checks) in enumerate(found, 1):
        lines.append(f"  {i}. You {name}: {points:g} point{'s' if points != 1 else ''} lost ({'; '.join(checks)})")
    return "\n".join(lines)


def _fix_first_html(result):
    found = fix_first(result)
    if not found:
        return ""
    items = "".join(f"<li>You {escape_html(name)}: {points:g} point{'s' if points != 1 else ''} lost "
                    f"({escape_html('; '.join(checks))})</li>" for name, points, checks in found)
    return f"<div class='fixfirst'><h2>What to fix first</h2><ol>{items}</ol></div>"


def _headline(result, record, passed):
    """The grade of record in bold; the checks' own points beside it when they differ."""
    checks = f"{len(passed)} of {len(result.checks)} checks passed"
    if record is None:
        return f"<p class='score'>{result.score:g} of {result.max_score:g} points; {checks}</p>"
    why = []
    if getattr(record, "late_penalty", 0) > 0:
        why.append(f"the course's late-work policy took {record.late_penalty:g} points")
    if abs(getattr(record, "raw", result.score) - result.score) > 1e-9:
        why.append(f"a grader's score counts where one was given ({record.raw:g} points before any penalty)")
    line = (f"<p class='score'>Grade of record: {record.score:g} of {record.max_score:g} points</p>"
            f"<p>The checks gave {result.score:g} of {result.max_score:g} points ({checks})")
    return line + ("; " + "; ".join(why) if why else "") + ".</p>"


def _details(details, elsewhere=None):
    if not details or details.get("explained_by"):  # no values: the message names the mistake
        return ""
    expected, got = details.get("expected"), details.get("got")
    if details.get("withheld"):  # a fixed check: the right value is not shown (checks/withheld.py)
        parts = [f"<p>Compared: {escape_html(details.get('what', ''))}</p>",
                 f"<table class='values'><tr><th>yours</th><td>{escape_html(fmt(got))}</td></tr></table>"]
        for name in details.get("mistakes") or []:
            parts.append(f"<p class='mistake'>That is the value you get when you {escape_html(name)}.</p>")
        return "".join(parts)
    want, have, note = show_pair(expected, got)   # one precision that tells them apart
    parts = [f"<p>Compared: {escape_html(details.get('what', ''))}</p>",
             "<table class='values'>"
             f"<tr><th scope='row'>expected</th><td>{escape_html(want)}</td></tr>"
             f"<tr><th scope='row'>yours</th><td>{escape_html(have)}</td></tr>"
             + (f"<tr><th scope='row'>difference</th><td>{escape_html(note)}</td></tr>" if note else "") + "</table>"]
    said = set()
    for name in details.get("mistakes") or []:
        parts.append(f"<p class='mistake'>That is the value you get when you {escape_html(name)}.</p>")
        line = _elsewhere(name, elsewhere) if elsewhere else ""
        if line and line not in said:  # one line per family, however many of its mistakes match
            parts.append(line)
            said.add(line)
    parts.append(heatmaps(expected, got) or sequences(expected, got))
    return "".join(parts)


def render_html(result, path=None, record=None) -> str:
    """One self-contained HTML page for a ``vocabulary.NotebookResult`` (see module docstring).

    Args:
        result: the ``NotebookResult``.
        path: the student's path across the unit (``families.student_path``: ``Step`` list over all
            their assignments) or None: a failed check whose mistake family the student made in
            another notebook says so ("You made this mistake in attention too").
        record: the gradebook's count of this submission (``totals.Totals``: ``score``,
            ``max_score``, ``raw``, ``late_penalty``) or None: the headline is the grade of
            record, with the checks' own points below it when they differ.

    Returns:
        str: the page (``render_fragment`` inside a document). Every submission-derived text
        is escaped with ``html.escape``.
    """
    title = f"{result.assignment_id}: {result.student_id}"
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape_html(title)}</title></head><body style='margin: 2em auto; max-width: 60em'>\n"
            + render_fragment(result, path, record) + "</body></html>\n")


def _other_notebooks(result, path) -> dict[str, list[str]]:
    """``{family id: [assignment, ...]}``: the other assignments where each family was named."""
    found: dict[str, list[str]] = {}
    for step in path or []:
        if step.status in ("made", "again") and step.assignment != result.assignment_id:
            found.setdefault(step.family.id, []).append(step.assignment)
    return found


def render_fragment(result, path=None, record=None) -> str:
    """The report as one ``<div class="autograder-report">`` element with its scoped style,
    for placing inside another page (nbgrader's feedback notebook, see ``nbgrader_glue/gradebook.py``).

    Args: as ``render_html``.
    Returns:
        str: the element. Every submission-derived text is escaped with ``html.escape``.
    """
    elsewhere = _other_notebooks(result, path)
    passed = [c for c in result.checks if c.score >= c.max_score]
    out = [f"<div class='autograder-report'><style>{STYLE}</style>",
           f"<h1>{escape_html(result.assignment_id)} &middot; {escape_html(result.notebook)} &middot; {escape_html(result.student_id)}</h1>",
           _headline(result, record, passed), _fix_first_html(result)]
    if result.notes:
        out.append("<div class='notes'><h2>About the notebook</h2><ul>"
                   + "".join(f"<li>{escape_html(n)}</li>" for n in result.notes) + "</ul></div>")
    failed = [c for c in result.checks if c.score < c.max_score]
    for heading, group in (("Failed checks", failed), ("Passed checks", passed)):
        if not group:
            continue
        out.append(f"<h2>{heading}</h2>")
        for c in group:
            ok = c.score >= c.max_score
            out.append(f"<div class='check {'passed' if ok else 'failed'}'>"
                       f"<p><span class='status'>{'PASS' if ok else 'FAIL'}</span> "
                       f"{escape_html(c.name)} &middot; {c.score:g} of {c.max_score:g} points</p>")
            if not ok:
                details = getattr(c, "details", None)
                message = message_once(c.output, details)
                if message:
                    out.append(f"<p class='message'>{escape_html(message)}</p>")
                out.append(_details(details, elsewhere))
            out.append("</div>")
    out.append("</div>")
    return "\n".join(out) + "\n"


def write_html(result, out_dir, path=None, record=None) -> Path:
    """Write ``OUT/<assignment_id>/<student_id>/report.html``; returns its ``Path``.
    ``path``: the student's path across the unit, ``record``: the gradebook's count (see
    ``render_html``), each or None."""
    from autograder.reports.console import fs_name  # the same folder as results.json, in every locale
    page = Path(out_dir) / fs_name(result.assignment_id) / fs_name(result.student_id) / "report.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_html(result, path, record), encoding="utf-8")
    return page
