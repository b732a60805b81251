"""Late work said: a late resubmission that replaced an on-time submission is named.

nbgrader's exchange keeps every submission: ``nbgrader submit`` writes
``<exchange>/<course>/inbound/<student>+<assignment>+<timestamp>+<random>/`` each time, and
``nbgrader collect --update`` copies the newest one into ``submitted/<student>/<assignment>/``
(with its ``timestamp.txt``), even when it came after the due date and an earlier copy was on
time. With a late-work policy (``LateSubmissionPlugin``) the grade then drops, possibly to 0,
although the student handed in on time first.

``find`` looks, for each notebook about to be graded, at the due date in the gradebook, the
submission's ``timestamp.txt`` and the exchange's inbound copies of that student and
assignment. When the graded submission is after the due date and an inbound copy is not,
it returns a ``Late``: both times, the due date, and the on-time copy's score when that copy
was graded before (a ``resume.py`` record with the fingerprint the on-time copy has: the
same bytes, checks, grader, limits and secret). ``find`` runs before grading, since grading
the late notebook replaces its record.

The grade command then puts ``Late.note`` in the student's report (results.json, report.html,
nbgrader's feedback), a ``late resubmission`` column in grades.csv (``csv_text``) and prints
``Late.line`` with the late score after the penalty. docs/resubmissions.md gives the
instructor's choices; ``nbgrader collect --before-duedate --student=<id> <name>`` collects
the on-time copy instead, and grading it again makes it the grade of record.
"""
from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

# How a late resubmission is written in a result's notes and read back for grades.csv: in
# reports/console.py, which writes that table (imported from there, so no import loop).
from autograder.reports.console import LATE_GRADED_HERE as GRADED_HERE
from autograder.reports.console import LATE_NOTE_PREFIX as NOTE_PREFIX


def _when(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass
class Late:
    """One late resubmission that replaced an on-time one.

    Attributes:
        student, assignment: ids as graded.
        submitted: the graded (late) submission's time (``datetime``, naive UTC, as nbgrader parses it).
        due: the assignment's due date (naive UTC).
        on_time: the time of the latest inbound copy at or before ``due``.
        on_time_copy: that copy's folder in the exchange (``Path``).
        on_time_score: ``(score, max_score)`` when that copy was graded before, else ``None``.
    """
    student: str
    assignment: str
    submitted: datetime
    due: datetime
    on_time: datetime
    on_time_copy: Path
    on_time_score: tuple | None = None

    def _scored(self) -> str:
        if self.on_time_score is None:
            return "not graded by this grader before"
        return f"it scored {self.on_time_score[0]:g} of {self.on_time_score[1]:g} when graded then"

    def summary(self) -> str:
        """The times and the on-time score in one sentence (the ``late resubmission`` cell of grades.csv)."""
        return (f"this notebook was submitted {_when(self.submitted)}, after the due date {_when(self.due)}; "
                f"it replaced the submission of {_when(self.on_time)}, which was on time ({self._scored()})")

    def note(self) -> str:
        """The note for the student's report: ``summary`` and which one counts."""
        return f"{NOTE_PREFIX}{self.summary()}{GRADED_HERE}"

    def line(self, totals=None) -> str:
        """The grade command's line; ``totals``: the ``totals.Totals`` of this submission, if recorded."""
        now = ""
        if totals is not None:
            now = (f"; the late one scores {totals.raw:g} of {totals.max_score:g}, {totals.score:g} after the "
                   f"late penalty of {totals.late_penalty:g}")
        return (f"late resubmission: {self.student}/{self.assignment}: submitted {_when(self.submitted)}, after "
                f"the due date {_when(self.due)}, replacing the on-time submission of {_when(self.on_time)} "
                f"({self._scored()}){now}. To grade the on-time one instead: nbgrader collect --before-duedate "
                f"--student={self.student} {self.assignment}, then python -m autograder grade "
                f"submitted/{self.student}/{self.assignment}/ (docs/resubmissions.md)")


def inbound_copies(course, student: str, assignment: str) -> list:
    """``[(timestamp, folder)]`` of ``student``'s submissions of ``assignment`` in the exchange's
    inbound folder, oldest first (``[]`` when there is no exchange or it cannot be read).
    Names are parsed as ``nbgrader collect`` parses them (``student+assignment+timestamp[+random]``)."""
    from nbgrader.utils import parse_utc
    root = course.config.Exchange.get("root") if "Exchange" in course.config else None
    if not root:
        return []
    inbound = Path(root) / course.course_id / "inbound"
    copies = []
    for path in glob.glob(os.path.join(glob.escape(str(inbound)), f"{glob.escape(student)}+"
                                       f"{glob.escape(assignment)}+*")):
        parts = os.path.basename(path).rsplit("+", 3)
        if len(parts) < 3 or parts[0] != student:
            continue
        try:
            copies.append((parse_utc(parts[2]), Path(path)))
        except (ValueError, OverflowError):
            continue
    return sorted(copies)


def _graded_before(store, job, copy: Path) -> tuple | None:
    """``(score, max_score)`` of a resume record whose fingerprint is that of ``copy``'s notebooks
    graded as ``job`` (``store``: ``resume.Store``), else ``None``."""
    if store is None or not store.folder.is_dir():
        return None
    paths = [copy / p.name for p in (job.path, *job.alternatives)]
    if not all(p.is_file() for p in paths):
        return None
    fingerprint = store.fingerprint(replace(job, path=paths[0], alternatives=tuple(paths[1:])))
    if fingerprint is None:
        return None
    kept = store.folder / f"on-time-{fingerprint[:40]}.json"  # outlives the record the late one replaces
    for record in [kept, *store.folder.glob("*.json")]:
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            if data.get("fingerprint") == fingerprint:
                checks = data["result"]["checks"]
                if record != kept:
                    kept.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
                return (sum(c["score"] for c in checks), sum(c["max_score"] for c in checks))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def find(course, jobs, store=None) -> dict:
    """The late resubmissions among ``jobs`` (call before grading).

    Args:
        course: nbgrader ``CourseDirectory`` (gradebook, exchange root, course id), or ``None``.
        jobs: ``vocabulary.Job`` list.
        store: the run's ``resume.Store`` (for the on-time copy's earlier score), or ``None``.
    Returns:
        ``{job index: Late}``; empty without a course, a due date or an exchange. Never raises
        for one submission's trouble (an unreadable timestamp is skipped).
    """
    if course is None:
        return {}
    from nbgrader import api

    from autograder.nbgrader_glue.gradebook import quiet_sqlalchemy
    found, due_dates = {}, {}
    for i, job in enumerate(jobs):
        if job.exercise is None:
            continue
        aid = job.exercise.assignment
        if aid not in due_dates:
            try:
                with quiet_sqlalchemy(), api.Gradebook(course.db_url, course.course_id) as gb:
                    due_dates[aid] = gb.find_assignment(aid).duedate
            except Exception:  # no gradebook, no such assignment: no due date to compare with
                due_dates[aid] = None
        due = due_dates[aid]
        if due is None:
            continue
        try:
            submitted = course.get_existing_timestamp(str(job.path.parent))
        except Exception:
            continue
        if submitted is None or submitted <= due:
            continue
        on_time = [(t, p) for t, p in inbound_copies(course, job.student_id, aid) if t <= due]
        if not on_time:
            continue
        t, copy = on_time[-1]
        found[i] = Late(job.student_id, aid, submitted, due, t, copy, _graded_before(store, job, copy))
    return found


def for_cli(option: str, path, jobs, out, secret, limits) -> dict:
    """``find`` for the grade command: the course as ``gradebook.record_for_cli`` finds it
    (``option``: --gradebook), the resume records of ``out``. ``{}`` when nothing is recorded."""
    from autograder.grading.resume import Store
    from autograder.nbgrader_glue import gradebook
    if option == "none":
        return {}
    course = gradebook.find_course(path)
    if option != "auto":
        course = gradebook.load_course(Path(course.root) if course else Path.cwd(), db_url=option)
    if course is None:
        return {}
    try:
        return find(course, jobs, Store(out, secret, limits))
    except Exception as exc:  # the late-work note must never stop a class run
        import sys
        print(f"late work: not checked ({type(exc).__name__}: {exc})", file=sys.stderr)
        return {}




def mark(results, found: dict) -> None:
    """Put each ``Late``'s note first in its result's notes (``found``: ``{index: Late}`` of ``find``)."""
    for i, late in found.items():
        if late.note() not in results[i].notes:
            results[i].notes.insert(0, late.note())
