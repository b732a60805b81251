"""What the grader shows and writes for a class: a table per student, Gradescope ``results.json``'s
content, the class ``grades.csv``, and the progress of a class run (``Progress``).

``results.json`` (written by the class run's outputs, ``grading/outputs.write_results``) follows Gradescope's autograder format (score, max_score, tests with
name, score, max_score, output, visibility), one per student and assignment, at
``OUT/<assignment_id>/<student_id>/results.json``; ``output_format`` is ``"text"`` so that
Gradescope shows feedback such as ``</w>`` literally instead of rendering it; each test's
``extra_data`` names its function, named mistakes and problems (read by ``reports/class_report.py``).
``grades.csv`` (every cell escaped against spreadsheet formulas, ``reports/csvsafe.py``) has one row
per student and assignment: points per notebook, total (the checks' points),
maximum, ``late`` (the late penalty in points) and ``score`` (the final score), both as
``nbgrader export`` computes them from the gradebook when the grades were recorded there
(``totals.Totals``; otherwise 0 and the total), ``manual overrides`` (the grade cells
whose manual score counts instead of the checks' points, which is why ``score`` can differ
from ``total``), and a ``problems`` column built from the ``vocabulary.Problem`` kinds
recorded while grading. A class run given a roster adds a row for each roster student with no
notebook for an assignment of the run: empty points, ``total`` and ``score``, ``problems``
"not submitted" (``lms/roster.py``, docs/lms.md).

Every piece of text that can come from a submission goes through ``safetext.clean``: the
console table has exactly one line per check (plus its header and notes, one line each),
and no escape sequence or control character reaches a terminal or a file. Files are
written as UTF-8 whatever the locale.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from autograder.core import safetext
from autograder.core.vocabulary import Problem, column
from autograder.reports import csvsafe

# A late resubmission that replaced an on-time one (grading/late.py) is a note of its result;
# grades.csv shows its summary in a column of its own.
LATE_COLUMN = "late resubmission"
LATE_NOTE_PREFIX = "late resubmission: "
LATE_GRADED_HERE = ". The late notebook is the one graded here, under the course's late-work policy"


def late_csv_text(result) -> str:
    """The ``late resubmission`` cell of grades.csv for a ``NotebookResult``: its late note's
    summary (``late.Late.summary``; "" when it has none)."""
    for note in result.notes:
        if note.startswith(LATE_NOTE_PREFIX):
            return note.removeprefix(LATE_NOTE_PREFIX).split(LATE_GRADED_HERE, 1)[0]
    return ""


def fs_name(name: str) -> str:
    """A name as the file system wants it: the same bytes on disk in every locale."""
    return os.fsdecode(str(name).encode("utf-8", "surrogateescape"))


def results_json(result, test_visibility=None, output_format="text") -> dict:
    """Gradescope ``results.json`` content (a dict) for one ``vocabulary.NotebookResult``.

    Submission text (names, messages, notes) passes through ``safetext.clean``.

    Args:
        result: the ``vocabulary.NotebookResult``.
        test_visibility: optional ``{test name: Gradescope visibility}`` ("hidden",
            "after_due_date", "after_published", "visible"); unlisted tests are "visible".
        output_format: Gradescope format of outputs and test names ("text", the default,
            shows them literally, e.g. ``est</w>``).
    """
    def text(value):
        return safetext.clean(value, safetext.OUTPUT_CHARS, newlines=True)
    tests = []
    for c in result.checks:
        tests.append({"name": text(c.name), "score": c.score, "max_score": c.max_score,
                      "status": "passed" if c.score >= c.max_score else "failed",
                      "output": text(c.output or "passed"), "output_format": output_format,
                      "name_format": output_format,
                      "visibility": (test_visibility or {}).get(c.name, "visible"),
                      # for the class report (class_report.py); Gradescope stores extra_data as is; nothing here is
                      # new to the student (the output already names the mistakes)
                      "extra_data": {"function": text(c.function),
                                     "mistakes": [text(m) for m in ((c.details or {}).get("mistakes") or [])],
                                     "problems": [p.value for p in Problem if p in set(c.problems)]}})
    output = "\n".join(text(n) for n in result.notes)
    data = {"score": result.score, "max_score": result.max_score,
            "execution_time": round(result.seconds, 3),
            "output": output or f"{text(result.notebook)}: graded", "output_format": output_format,
            "test_output_format": output_format, "test_name_format": output_format, "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"confinement": result.confinement,
                           "problems": [p.value for p in Problem if p in result.all_problems]}}
    return data


def problems(result) -> str:
    """The ``problems`` column of ``result``: its recorded ``Problem`` kinds, joined with "; ",
    with the notebooks that did not count named after "several notebooks"."""
    text = column(result.all_problems)
    if Problem.SEVERAL_NOTEBOOKS in result.all_problems:
        several = [n for n in result.notes if n.startswith("several notebooks")]
        if several and "not counted: " in several[0]:
            names = safetext.clean(several[0].split("not counted: ", 1)[1], safetext.MESSAGE_CHARS)
            text = text.replace(Problem.SEVERAL_NOTEBOOKS.value,
                                f"{Problem.SEVERAL_NOTEBOOKS.value} (not counted: {names})")
    return text


class _ClassRow:
    """A (student, assignment) row of grades.csv while the results go by (``write_grades_csv``):
    slotted, its texts interned, so a class of 10,000 notebooks holds about 300 bytes a row while
    the file is written (a dict a row held about 1 KB). ``scores``: ``((notebook column, points
    text), ...)``; ``problems``: each notebook's non-empty ``problems`` text; ``counted``: the
    gradebook's ``totals.Totals`` of the row, or ``None``."""
    __slots__ = ("scores", "late", "total", "max_score", "problems", "confinement", "counted")

    def __init__(self):
        self.scores: tuple = ()
        self.late, self.confinement = "", ""
        self.total = self.max_score = 0.0
        self.problems: tuple = ()
        self.counted = None


def write_grades_csv(results, path, totals=None, not_submitted=()):
    """Write the class table (UTF-8): one row per (student, assignment), a column per notebook.

    Args:
        results: an iterable of ``vocabulary.NotebookResult`` (read once, in order).
        path: the csv file to write.
        totals: optional ``{(student_id, assignment_id): totals.Totals}`` (ids as in the
            results) of the rows recorded in nbgrader's gradebook: they give ``late``,
            ``score`` and ``manual overrides``. Rows without one get ``late`` 0, ``score``
            equal to ``total`` and no override.
        not_submitted: ``(student_id, assignment_id)`` pairs of roster students without a
            submission (``lms.command.absent_for_run``): a row each with empty points, ``total``
            and ``score`` and ``problems`` "not submitted" (``max_score`` that of the others).
    Returns:
        the ``Path`` written.
    """
    notebooks = set()  # filled as the results go by: ``results`` may be read once only (a generator)
    rows: dict = {}
    for r in results:
        key = (sys.intern(safetext.clean(r.student_id, safetext.ID_CHARS)), sys.intern(safetext.clean(r.assignment_id)))
        row = rows.get(key)
        if row is None:
            row = rows[key] = _ClassRow()
        if totals and (r.student_id, r.assignment_id) in totals:
            row.counted = totals[(r.student_id, r.assignment_id)]
        notebook = sys.intern(safetext.clean(r.notebook, safetext.ID_CHARS))
        notebooks.add(notebook)
        row.scores = (*(kv for kv in row.scores if kv[0] != notebook), (notebook, sys.intern(f"{r.score:g}")))
        row.late = late_csv_text(r) or row.late  # late.py
        row.total += r.score
        row.max_score += r.max_score
        if text := problems(r):
            row.problems += (sys.intern(text),)
        if r.confinement not in row.confinement.split("; "):
            row.confinement = sys.intern("; ".join(c for c in (row.confinement, r.confinement) if c))
    top: dict = {}
    for (_, assignment), row in rows.items():
        top[assignment] = max(top.get(assignment, 0.0), row.max_score)
    absent = {}
    for student, assignment in not_submitted:
        student, assignment = safetext.clean(student, safetext.ID_CHARS), safetext.clean(assignment)
        if (student, assignment) not in rows:
            absent[(student, assignment)] = {"student_id": student, "assignment_id": assignment, "total": "",
                                             "max_score": f"{top.get(assignment, 0.0):g}", "late": "", "score": "",
                                             "manual overrides": "", "problems": "not submitted", "confinement": ""}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csvsafe.DictWriter(f, ["student_id", "assignment_id", *sorted(notebooks), "total", "max_score", "late",
                                        "score", "manual overrides", LATE_COLUMN, "problems", "confinement"])
        writer.writeheader()
        for key in sorted(set(rows) | set(absent)):
            if key in absent:
                writer.writerow(absent[key])
                continue
            row, t = rows[key], rows[key].counted
            writer.writerow({"student_id": key[0], "assignment_id": key[1], **dict(row.scores),
                             "total": f"{row.total:g}", "max_score": f"{row.max_score:g}",
                             "late": f"{t.late_penalty:g}" if t else "0",
                             "score": f"{t.score:g}" if t else f"{row.total:g}",
                             "manual overrides": "; ".join(o.describe() for o in t.overrides) if t else "",
                             LATE_COLUMN: row.late, "problems": "; ".join(row.problems),
                             "confinement": row.confinement})
    return path


def message_lines(message: str, width: int = 100) -> list[str]:
    """A check's feedback as lines of at most ``width`` characters, wrapped at spaces.

    Nothing is dropped: a long value was already shortened in its middle when the feedback
    was written (``checking.fmt``), so the explanation after it (the named mistake) stays.
    """
    import textwrap
    lines = []
    for paragraph in (message or "").splitlines() or [""]:
        lines += textwrap.wrap(paragraph, width, break_long_words=True, break_on_hyphens=False) or [""]
    return lines


NAME_WIDTH = 48  # the test column's width; a longer name wraps onto the next lines


def table(result, width: int = 100) -> str:
    """Plain-text table of one notebook's checks: test, points, max, message.

    Text from the submission is escaped (``safetext.clean``), so it can neither break a
    line nor move the cursor. Each message is wrapped to ``width`` characters
    (``message_lines``) and kept whole; continuation lines are indented under the message
    column, so no line of a message can pass for a header or another check's line. A test
    name longer than ``NAME_WIDTH`` wraps within its column, never cut; its continuation
    lines are indented by two more spaces, so only a check's first line starts in column 4.
    """
    def one_line(value, limit):
        return safetext.clean(value, limit)
    lines = [f"== {one_line(result.student_id, safetext.ID_CHARS)} / {one_line(result.assignment_id, 60)} / "
             f"{one_line(result.notebook, safetext.ID_CHARS)}: {result.score:g} of {result.max_score:g} points"]
    for note in result.notes:
        lines.append(f"   note: {one_line(note.replace(chr(10), ' '), width)}")
    names = [one_line(c.name, safetext.OUTPUT_CHARS) for c in result.checks]
    name_w = min(max((len(n) for n in names), default=10), NAME_WIDTH)
    lines.append(f"   {'test':<{name_w}}  {'points':>6}  {'max':>4}  message")
    blank = " " * (6 + 2 + 4 + 2)
    for name, c in zip(names, result.checks, strict=False):
        # Our own feedback may span lines; text from the submission in it is escaped already.
        message = safetext.clean(c.output or "ok", safetext.OUTPUT_CHARS, newlines=True)
        first, *rest = message_lines(message, width)
        # a long test name wraps in its column, never cut: its lines sit beside the message's
        name_first, *name_rest = message_lines(name, name_w)
        name_rest = message_lines(" ".join(name_rest), name_w - 2) if name_rest else []
        lines.append(f"   {name_first:<{name_w}}  {c.score:>6g}  {c.max_score:>4g}  {first}")
        for i in range(max(len(rest), len(name_rest))):
            left = name_rest[i] if i < len(name_rest) else ""
            right = rest[i] if i < len(rest) else ""
            lines.append(f"     {left:<{name_w - 2}}  {blank}{right}".rstrip())   # indented: not a check's line
    return "\n".join(lines)


class Progress:
    """A class run's progress on stderr: count, rate and ETA, as a rich progress bar on a terminal,
    else one line per notebook (none with ``quiet``). Called as ``progress(index, result, reused)``
    after each notebook (``workers.grade_all``); ``close`` ends the bar."""

    def __init__(self, total: int, quiet: bool):
        self.total, self.quiet, self.done, self.reused = total, quiet, 0, 0
        self.t0 = time.perf_counter()
        self.bar = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as Bar
            self.bar = Bar(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                           TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                           console=Console(file=sys.stderr), transient=False)
            self.task = self.bar.add_task("grading", total=total, rate="")
            self.bar.start()

    def __call__(self, i, r, reused=False):
        self.done += 1
        self.reused += reused
        elapsed = time.perf_counter() - self.t0
        graded = self.done - self.reused
        rate = graded / elapsed if elapsed > 0 and graded else 0.0
        if self.bar is not None:
            self.bar.update(self.task, advance=1, rate=f"{rate * 60:.0f}/min")
            return
        if self.quiet:
            return
        left = self.total - self.done
        eta = f"{left / rate:.0f} s" if rate else "?"
        how = "reused" if reused else f"{r.seconds:.1f} s"
        print(f"[{self.done}/{self.total}, {rate * 60:.0f}/min, ETA {eta}] {r.student_id}/{r.assignment_id}/"
              f"{r.notebook}: {r.score:g}/{r.max_score:g} ({how})", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
