"""``python -m autograder score STUDENT ASSIGNMENT CELL POINTS``: a manual score from the command line.

What formgrader does when a grader types a score: nbgrader's gradebook API sets the grade
cell's ``manual_score`` (which then counts instead of the automatic score, in ``nbgrader
export`` and nbgrader's feedback) and clears ``needs_manual_grade`` (the cell is reviewed).
``--clear`` removes the manual score, so the automatic one counts again. The next
``python -m autograder grade`` run shows it in grades.csv's ``manual overrides`` column and
the student's report (``totals.Totals``).

Run it in the course directory (or pass ``--course DIR``). ``CELL`` is the grade cell's id
(``test_attention_row``) or the function's name (``attention_row``). Exit status 0 when the
score was saved, 2 on bad input (unknown student, assignment or cell; points outside
``0..max``), with a message saying which.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m autograder score`` (see ``command``)."""
    parser.add_argument("student", help="the student's id, as in submitted/<student>/")
    parser.add_argument("assignment", help="the assignment's name (e.g. attention)")
    parser.add_argument("cell", help="the grade cell (test_attention_row) or its function (attention_row)")
    parser.add_argument("points", nargs="?", type=float, help="the manual score (0 to the cell's maximum)")
    parser.add_argument("--clear", action="store_true", help="remove the manual score: the automatic one counts")
    parser.add_argument("--course", default=".", help="the course directory (default: the current one)")


def set_manual_score(course, student: str, assignment: str, cell: str, points: float | None) -> tuple:
    """Set (``points``) or clear (``None``) the manual score of one grade cell.

    Args:
        course: nbgrader ``CourseDirectory``.
        student, assignment: ids as in the gradebook. cell: grade id or function name.
        points: the manual score in points (``float``), or ``None`` to clear it.
    Returns:
        ``(cell, max_score, submission_score)``: the grade id, its maximum and the submission's
        total as nbgrader counts it after the change (before any late penalty).
    Raises:
        ValueError: no such student, assignment, notebook submission or cell, or ``points``
            outside ``0..max_score``.
    """
    from nbgrader import api

    from autograder.core.registry import find
    from autograder.nbgrader_glue.gradebook import quiet_sqlalchemy
    grade_id = cell if cell.startswith("test_") else f"test_{cell}"
    try:
        notebook_id = Path(find(assignment).notebook).stem
    except Exception:
        notebook_id = assignment
    with quiet_sqlalchemy(), api.Gradebook(course.db_url, course.course_id) as gb:
        try:
            grade = gb.find_grade(grade_id, notebook_id, assignment, student)
        except api.MissingEntry:
            raise ValueError(f"no grade cell {grade_id} of {student}'s {assignment} in the gradebook "
                             f"{course.db_url} (is {student}'s submission graded? is the cell's name right?)") from None
        if points is not None and not 0 <= points <= grade.max_score:
            raise ValueError(f"{points:g} points: {grade_id} is worth 0 to {grade.max_score:g}")
        grade.manual_score = points
        grade.needs_manual_grade = False
        gb.db.commit()
        return grade_id, float(grade.max_score), float(gb.find_submission(assignment, student).score)


def command(args) -> int:
    """``python -m autograder score``: exit status 0 (saved), 2 (bad input)."""
    from autograder.nbgrader_glue.gradebook import load_course
    if (args.points is None) == (not args.clear):
        print("score: give POINTS, or --clear to remove the manual score", file=sys.stderr)
        return 2
    course = load_course(args.course)
    try:
        cell, top, total = set_manual_score(course, args.student, args.assignment, args.cell,
                                            None if args.clear else args.points)
    except ValueError as exc:
        print(f"score: {exc}", file=sys.stderr)
        return 2
    what = "cleared the manual score of" if args.clear else f"manual score {args.points:g} of {top:g} on"
    print(f"{what} {args.student}/{args.assignment} {cell}; the gradebook's total is now {total:g} (before any "
          "late penalty). The next `python -m autograder grade` run shows it in grades.csv and the student's "
          "report; `nbgrader generate_feedback` puts it in nbgrader's feedback")
    return 0
