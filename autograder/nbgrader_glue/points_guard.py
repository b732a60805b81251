"""Points changed mid-term: refuse to grade when the gradebook and the checks disagree.

The points of a function live in two places: its checks (``exercises/<name>/checks.py``,
``@check(..., points=N)``) and the grade cell ``test_<function>`` that ``nbgrader
generate_assignment`` recorded in nbgrader's gradebook (its ``max_score``). When someone
changes the checks' points after the release and regrades, recording would give a cell more
(or fewer) points than its maximum: ``nbgrader export`` would then say "3 of 1".

``mismatches(course, exercises)`` compares the two for every exercise about to be graded;
``check_for_cli`` runs it before anything is graded (``python -m autograder grade`` stops with
exit status 3, nothing graded, nothing recorded) and says what to do. ``gradebook.record_scores``
refuses the same mismatch for a single notebook, so no path records more points than the
maximum. docs/instructor.md ("Changing points during a term") is the instructor's side.
"""
from __future__ import annotations

from pathlib import Path

WHAT_TO_DO = ("Nothing was graded or recorded. If the checks' points are the new ones, record them in the "
              "gradebook first: `nbgrader generate_assignment {aid}` in the course directory (it updates the "
              "grade cells' maximum; see docs/instructor.md, 'Changing points during a term'), then grade again. "
              "If the gradebook is right, put the checks' points back in exercises/{aid}/checks.py and rebuild "
              "(python -m autograder build).")


def mismatches(course, exercises) -> list:
    """Grade cells whose gradebook maximum differs from the checks' points.

    Args:
        course: nbgrader ``CourseDirectory`` (``db_url``, ``course_id``).
        exercises: iterable of ``registry.Exercise`` about to be graded.
    Returns:
        list of ``(assignment, cell, gradebook_points, check_points)`` (points as ``float``);
        an exercise not (yet) in the gradebook is skipped (recording says so later).
    """
    from nbgrader import api

    from autograder.checks.declared import points_by_function  # (numpy, pytest: only with a gradebook)
    from autograder.nbgrader_glue.gradebook import quiet_sqlalchemy
    found = []
    with quiet_sqlalchemy(), api.Gradebook(course.db_url, course.course_id) as gb:
        for exercise in exercises:
            points = points_by_function(exercise)
            try:
                notebook = gb.find_notebook(Path(exercise.notebook).stem, exercise.assignment)
            except api.MissingEntry:
                continue
            for cell in notebook.grade_cells:
                function = cell.name.removeprefix("test_")
                if cell.name.startswith("test_") and function in points \
                        and abs(float(cell.max_score) - points[function]) > 1e-9:
                    found.append((exercise.assignment, cell.name, float(cell.max_score), points[function]))
    return found


def describe(found: list) -> list:
    """Lines for the instructor: one per mismatch, then what to do per assignment."""
    lines = [f"{aid}: grade cell {cell} is worth {book:g} point(s) in the gradebook but {checks:g} in the checks"
             for aid, cell, book, checks in found]
    for aid in sorted({f[0] for f in found}):
        lines.append(f"{aid}: " + WHAT_TO_DO.format(aid=aid))
    return lines


def check_for_cli(option: str, path, jobs) -> list:
    """Before grading: the mismatch lines (``describe``) for the gradebook ``option`` and ``path``
    would record into (as ``gradebook.record_for_cli`` finds it), else ``[]`` (nothing to record,
    no gradebook file yet, or every cell agrees)."""
    from autograder.nbgrader_glue import gradebook
    if option == "none":
        return []
    course = gradebook.find_course(path)
    if option != "auto":
        course = gradebook.load_course(Path(course.root) if course else Path.cwd(), db_url=option)
    if course is None:
        return []
    if course.db_url.startswith("sqlite:///") and not Path(course.db_url.removeprefix("sqlite:///")).is_file():
        return []
    exercises = {j.exercise.name: j.exercise for j in jobs if j.exercise is not None}
    return describe(mismatches(course, exercises.values()))
