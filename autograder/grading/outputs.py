"""What a class run does once its notebooks are graded: ``record`` the grades in nbgrader's gradebook,
then ``write_class_outputs`` (each notebook's results.json, ``write_results``, and report.html, the
identical flags, the near-copies, grades.csv and the class report). The class run's stages
(``class_run.STAGES``) and the merge of a class graded in shards (``cluster/merge.py``) both call them,
so both write the same files the same way.
"""
from __future__ import annotations

import json
import queue
import threading
from pathlib import Path
from typing import Callable


class WarmUp:
    """What the pass after grading can do before the last result, done in a daemon thread of this
    process while the workers grade and it waits: import that pass's modules (the students' and
    the class report, copydetect) and fingerprint each exercise's boilerplate for near-copies
    (``reports/boilerplate.prepare``), then read each notebook graded, as its result comes, for the
    identical flags and the near-copies (``identical.read_ahead``, ``boilerplate.notebook_regions``).
    ``write_class_outputs`` then finds that work done (the same values: a fingerprint depends only
    on its text, within one process; a notebook changed on disk since is read again). A failure here
    is ignored: the pass after grading meets it again and handles it as it always did.

    A class run's grading stage (``class_run.grade``) hands it to ``grade_all``, which gives it each
    notebook graded (``take``); it starts the thread at the first (the workers have started by then,
    and the results' own classes have been imported, by the thread that reads them).

    Args: jobs: the ``vocabulary.Job`` list of the run.
    """

    WAIT = 300.0  # seconds ``join`` waits at most: then the pass after grading goes on by itself
    # Notebooks read ahead at most: what is read is held until the pass after grading uses it, so
    # this bounds what it adds to the command's peak, the same at 1,000 notebooks as at 10,000.
    READ_AHEAD = 500

    def __init__(self, jobs: list):
        self.exercises = list({id(j.exercise): j.exercise for j in jobs if j.exercise is not None}.values())
        self.queue, self.thread, self.ahead = queue.SimpleQueue(), None, 0

    def take(self, job, result) -> None:
        """Read ``job``'s graded notebook ahead (``result``: its grade), in the thread."""
        if self.thread is None:  # (a run that grades nothing gains nothing by it)
            self.thread = threading.Thread(target=self._work, name="after-grading-warm-up", daemon=True)
            self.thread.start()
        if result is not None and self.ahead < self.READ_AHEAD:
            self.ahead += 1
            self.queue.put((job, result))

    def _work(self):
        try:
            from autograder.core.vocabulary import graded_path
            from autograder.grading import identical, late, regrade  # noqa: F401
            from autograder.lms import command  # noqa: F401
            from autograder.reports import boilerplate, class_report, console, near_copies, student  # noqa: F401
            boilerplate.prepare(self.exercises)
        except Exception:  # noqa: BLE001 -- see the class docstring
            pass
        while (item := self.queue.get()) is not None:  # each graded notebook, read once for both
            job, result = item
            try:
                if job.exercise is not None:
                    path = graded_path(job, result)
                    identical.read_ahead(path, job.exercise)
                    boilerplate.notebook_regions(path, job.exercise.functions, keep=True)
            except Exception:  # noqa: BLE001 -- see the class docstring
                pass

    def join(self) -> None:
        """Let the thread read what is queued, then wait for it (at most ``WAIT`` seconds)."""
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join(self.WAIT)


def student_paths(out) -> dict:
    """``{student (as shown): [families.Step, ...]}`` from every results.json under ``out`` (this
    run's and those of earlier runs of other assignments), in the course's order; {} when they
    cannot be read (a report without the path is still written). The files are read one at a time
    (``class_load.Listing``); kept a notebook: its row of the listing and its ``families.marks``
    (shared), a hundred bytes or so; then a step per family a student showed."""
    from autograder.reports import class_load, families
    try:
        listing = class_load.Listing(out, grades=False)  # the paths read no late work nor problems
        return families.student_paths(listing.entries(), families.course_order())
    except Exception:  # noqa: BLE001 -- the path is extra; the students' reports must be written
        return {}


def write_results(result, out) -> Path:
    """Write ``OUT/<assignment_id>/<student_id>/results.json`` (UTF-8; its content is
    ``console.results_json``); returns its ``Path``."""
    from autograder.reports.console import fs_name, results_json
    path = Path(out) / fs_name(result.assignment_id) / fs_name(result.student_id) / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def record(jobs: list, results, *, gradebook: str = "none", path=None, late_found: dict | None = None,
           say: Callable | None = None, ahead=None) -> tuple:
    """Record ``results`` in nbgrader's gradebook and put what it made of them into them: its late
    penalties and manual overrides as notes (the reports show the grade of record), and the late
    resubmissions that replaced an on-time one (``late_found``), each said.

    Args:
        jobs: the ``vocabulary.Job`` list; results: their results, same order: a ``stream.Results``
            (edited: every later read has the notes), or a ``NotebookResult`` list (changed in place).
        gradebook: ``--gradebook``: "auto", "none" or a database URL (``gradebook.record_for_cli``);
            path: what was graded, where the course is found.
        late_found: ``late.for_cli``'s finds (index in ``results`` -> ``late.Late``), or ``None``.
        say: prints the late lines (``None``: ``print``).
        ahead: the ``record_ahead.RecordAhead`` that recorded results during the grading, or ``None``:
            it records the rest and gives the totals; when it took nothing or failed, every
            notebook is recorded here.
    Returns:
        ``(recorded, totals)``: whether the gradebook took every grade (``True`` when none was asked),
        and its totals (``{(student_id, assignment_id): totals.Totals}``, for grades.csv).
    """
    from autograder.grading import late
    from autograder.grading.stream import Results
    from autograder.nbgrader_glue.gradebook import record_for_cli
    say = say or print
    totals: dict = {}
    results = Results.of(results)  # each result read back when its turn comes (grading/stream.py)
    for i, found in (late_found or {}).items():
        results.edit(i, lambda r, found=found: late.mark([r], {0: found}))
    done = ahead.finish(jobs, results) if ahead is not None and gradebook != "none" else None
    if done is not None:
        recorded, totals = done
    else:
        recorded = record_for_cli(gradebook, path, jobs, results, totals) if gradebook != "none" else True
    rows = results.rows()
    for i, row in enumerate(rows):  # what the gradebook made of it, in the reports (as gradebook.record does)
        counted = totals.get((row.student_id, row.assignment_id)) if row is not None else None
        if counted is not None:
            results.edit(i, _add_notes(tuple(counted.notes())))
    for i, found in sorted((late_found or {}).items()):
        say(found.line(totals.get((rows[i].student_id, rows[i].assignment_id))))
    return recorded, totals


def write_class_outputs(jobs: list, results, out, *, totals: dict | None = None,
                        show: Callable | None = None, say: Callable | None = None, roster=None) -> tuple:
    """Write everything a class run writes once its notebooks are graded and recorded (``record``).

    Rows of grades.csv for notebooks this run did not grade are kept from the previous table
    (``regrade.py``: regrading one student keeps the class), and what changed is said.

    In order: each notebook's ``results.json`` (``write_results``) and ``report.html`` and
    ``feedback.txt`` (the same three files for a lone notebook as for a class), the identical-notebook flag, the near-copies for staff
    (``near_copies.json``), the class table ``grades.csv``, and the staff's class report (``class.html``
    and its CSVs).

    One pass, a result at a time: ``results`` is read back one notebook at a time (a
    ``stream.Results``, which a class run gives: each result read from its resume record), and
    only a ``stream.Row`` per notebook stays in memory, with the late notes, gradebook notes and
    identical flags as edits applied on every read. results.json files are written first (the
    students' paths across the unit are read from them), then the reports; the class report reads
    the results.json files back one at a time (``class_load.Listing``) into a small summary
    (``class_summary.Summary``: a grid row of cell letters a notebook). identical.csv is written a
    row at a time from the groups of same code (``identical.flag``).

    Args:
        jobs: the ``vocabulary.Job`` list; results: their results, same order: a ``stream.Results``,
            or a ``NotebookResult`` list (changed in place: identical flags).
        out: the output folder (``str``/``Path``).
        totals: the gradebook's totals (``record``), the grade of record in the reports; ``None``: none.
        show: called with each notebook's console table (``None``: not shown). say: progress lines.
        roster: the course roster (``lms.roster.Roster``) or ``None``: its students with no notebook
            for an assignment of the run get a "not submitted" row in grades.csv (docs/lms.md).
    Returns:
        ``(csv_path, flagged, note_path)``: grades.csv's ``Path``, and the identical or hard-linked
        notebooks with the ``Path`` of the file listing them (``identical.flag``).
    """
    from autograder.grading import identical, regrade
    from autograder.grading.stream import Results
    from autograder.lms.command import absent_for_run
    from autograder.reports import class_report, console, near_copies, student
    from autograder.reports.class_load import shown_name

    out = Path(out)
    say_ = say or print
    totals = totals or {}
    results = Results.of(results)
    rows = results.rows()
    for r in _each(results):
        write_results(r, out)
    paths = student_paths(out)  # each student's path across the unit, for their reports
    for r in _each(results):
        student.write_html(r, out, paths.get(shown_name(r.student_id)),
                           totals.get((r.student_id, r.assignment_id)))  # headline: the grade of record
        feedback = out / console.fs_name(r.assignment_id) / console.fs_name(r.student_id) / "feedback.txt"
        first = student.fix_first_text(r)  # the named mistakes by points lost, then every check
        feedback.write_text((first + "\n\n" if first else "") + console.table(r) + "\n",
                            encoding="utf-8")  # wrapped, never cut
        if show is not None:
            show(console.table(r))
    del paths
    # After the students' own reports: the flag is for the instructor (grades.csv, identical.csv).
    note_path, flagged = identical.flag(jobs, results, out)
    try:  # near-copies for staff (reports/near_copies.py): listed in the class report, never graded down
        near_copies.find(jobs, rows, out)
    except Exception as exc:  # noqa: BLE001 -- an extra for staff must not stop the class's files
        say_(f"could not compare the solutions for near-copies: {type(exc).__name__}: {exc}")
    absent = absent_for_run(roster, [r for r in rows if r is not None])  # roster students without a submission
    previous = regrade.read_table(out / "grades.csv")  # rows of students not in this run are kept
    csv_path = console.write_grades_csv(_each(results), out / "grades.csv", totals, not_submitted=absent)
    for line in regrade.summary_lines(*regrade.merge(previous, csv_path)):
        say_(line)
    class_report.write_after_run(out, say=say)
    return csv_path, flagged, note_path


def _add_notes(notes):
    """A ``stream.Results`` edit adding ``notes`` a result does not hold yet, at its end."""
    def add(result):
        result.notes.extend(n for n in notes if n not in result.notes)
    return add


def _each(results):
    """The results of ``results`` (a ``stream.Results``) one at a time, those that exist."""
    for i in range(len(results)):
        if results.row(i) is not None:
            yield results[i]
