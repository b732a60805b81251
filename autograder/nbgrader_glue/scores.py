"""One notebook's scores written through nbgrader's models, in the open gradebook's transaction.

What ``Gradebook.update_or_create_student``, ``update_or_create_submission`` (``add_submission``: the
submission mirrors every notebook and cell of the assignment), setting each grade's ``auto_score``, and
``AssignLatePenalties`` write, the same rows and values, with nbgrader's own models and column
expressions (``SubmittedNotebook.score``, ``SubmittedAssignment.score`` ...), but flushed, not
committed: nbgrader's API commits three times a notebook, and on a shared disk each commit (an
fsync) costs more than all the rest. The caller commits (``gradebook.record_scores`` at once,
``gradebook.record`` once a batch). The released notebook's cells come from its ``release.Release``,
read once for the class, instead of a query (or one a cell) for every notebook.
"""
from __future__ import annotations

from pathlib import Path

from autograder.nbgrader_glue.feedback import nbgrader_modules, student_logger
from autograder.nbgrader_glue.totals import Override, Totals


class RecordError(Exception):
    """A grade could not be recorded (the gradebook lacks the assignment, or cannot be written)."""


def per_function(result):
    """``{function: (earned, available)}`` of a ``NotebookResult``'s checks."""
    points = {}
    for c in result.checks:
        earned, available = points.get(c.function, (0.0, 0.0))
        points[c.function] = (earned + c.score, available + c.max_score)
    return points


def _release(releases, notebook_id, aid):
    _, api, _, _ = nbgrader_modules()
    try:
        return releases.get(notebook_id, aid)
    except api.MissingEntry:
        raise RecordError(f"the gradebook has no notebook {notebook_id!r} in assignment {aid!r}: "
                          f"run `nbgrader generate_assignment {aid}` in the course directory first") from None


def _student(gb, sid):
    """``update_or_create_student(sid)`` without its commit: the ``Student`` row."""
    _, api, _, _ = nbgrader_modules()
    if gb.authenticator:
        gb.authenticator.add_student_to_course(sid, gb.course_id)
    student = gb.db.get(api.Student, sid)
    if student is None:
        student = api.Student(id=sid)
        gb.db.add(student)
    return student


def _submission(gb, release, student, timestamp, scores):
    """``update_or_create_submission`` without its commits: the existing submission (its timestamp
    updated when one is given), or a new one (``_new_submission``). Returns ``(submission, submitted
    notebook of release, new)``."""
    _, api, _, utils = nbgrader_modules()
    submission = gb.db.query(api.SubmittedAssignment).filter(
        api.SubmittedAssignment.assignment_id == release.assignment_key,
        api.SubmittedAssignment.student_id == student.id).one_or_none()
    if submission is None:
        return (*_new_submission(gb, release, student, utils.parse_utc(timestamp) if timestamp else None, scores),
                True)
    if timestamp:
        submission.timestamp = utils.parse_utc(timestamp)
    notebook = gb.db.query(api.SubmittedNotebook).filter(
        api.SubmittedNotebook.assignment_id == submission.id,
        api.SubmittedNotebook.notebook_id == release.notebook_key).one_or_none()
    if notebook is None:
        raise api.MissingEntry(f"No such submitted notebook: {release.assignment}/{release.name} for {student.id}")
    return submission, notebook, False


def _new_submission(gb, release, student, timestamp, scores):
    """The rows ``add_submission`` adds (the submission; for every notebook of the assignment a
    submitted notebook, a ``Grade`` for each grade and task cell, a ``Comment`` for each solution and
    task cell, in its order), inserted with nbgrader's models a table at a time, each grade of
    ``release``'s notebook with the score ``scores`` gives it by cell id (``auto_score``, and
    ``needs_manual_grade`` cleared, as recording it afterwards would; no score: nbgrader's defaults).
    Returns the new ``(SubmittedAssignment, SubmittedNotebook)``."""
    from sqlalchemy import insert
    _, api, _, _ = nbgrader_modules()
    key = api.new_uuid()
    gb.db.execute(insert(api.SubmittedAssignment), [{"id": key, "assignment_id": release.assignment_key,
                                                     "student_id": student.id, "timestamp": timestamp}])
    notebooks, grades, comments, mine = [], [], [], None
    for notebook_key, grade_ids, solution_ids, task_ids in release.mirrored:
        nb_key = api.new_uuid()
        notebooks.append({"id": nb_key, "notebook_id": notebook_key, "assignment_id": key})
        for cell_id in grade_ids + task_ids:
            earned = scores(cell_id) if notebook_key == release.notebook_key else None
            grades.append({"id": api.new_uuid(), "cell_id": cell_id, "notebook_id": nb_key, "auto_score": earned,
                           "needs_manual_grade": earned is None})
        comments += [{"id": api.new_uuid(), "cell_id": cell_id, "notebook_id": nb_key}
                     for cell_id in solution_ids + task_ids]
        if notebook_key == release.notebook_key:
            mine = nb_key
    for model, rows in ((api.SubmittedNotebook, notebooks), (api.Grade, grades), (api.Comment, comments)):
        if rows:
            gb.db.execute(insert(model), rows)
    return gb.db.get(api.SubmittedAssignment, key), gb.db.get(api.SubmittedNotebook, mine)


def write_scores(gb, course, result, submission_dir, releases):
    """Write one notebook's scores, student, submission and late penalty into ``gb``'s open
    transaction (flushed, not committed; ``gradebook.record_scores`` says what is written).

    Args:
        gb: an open ``nbgrader.api.Gradebook``.
        course: ``CourseDirectory`` (late-penalty config, ``timestamp.txt``'s format).
        result: ``vocabulary.NotebookResult`` of a known exercise.
        submission_dir: the folder the notebook came from (for its ``timestamp.txt``).
        releases: ``release.Releases`` of ``gb``.
    Returns:
        ``(warnings, totals)`` as ``gradebook.record_scores``.
    Raises:
        RecordError: the notebook is not in the gradebook, or its points differ from the checks'
            (raised before anything is written).
    """
    from autograder.core.registry import find
    aid, sid = result.assignment_id, result.student_id
    notebook_id = Path(find(aid).notebook).stem
    release = _release(releases, notebook_id, aid)
    points = per_function(result)
    differ = [f"{g.name} is worth {g.max_score:g} in the gradebook but {points[g.name[5:]][1]:g} in the checks"
              for g in release.grade_cells if g.name.startswith("test_")
              and g.name[5:] in points and abs(g.max_score - points[g.name[5:]][1]) > 1e-9]
    if differ:  # never more points than the maximum (points_guard.py; docs/instructor.md)
        raise RecordError("; ".join(differ) + ": not recorded; run `nbgrader generate_assignment "
                          f"{aid}` first (docs/instructor.md, 'Changing points during a term')")
    warnings = []
    student = _student(gb, sid)
    try:
        timestamp = course.get_existing_timestamp(str(submission_dir))
    except Exception as exc:  # nbgrader cannot parse it
        timestamp = None
        warnings.append(f"timestamp.txt not understood ({type(exc).__name__}: {exc}): no submission time")
    names = release.cell_names()

    def graded(cell_id):  # the points the checks give this cell, or None (not a cell of theirs)
        name = names.get(cell_id, "")
        return points[name[5:]][0] if name.startswith("test_") and name[5:] in points else None

    submission, notebook, new = _submission(gb, release, student, timestamp, graded)
    recorded = {names[c.id][5:] for c in release.grade_cells + release.task_cells if graded(c.id) is not None} \
        if new else set()
    overrides = []
    for grade in [] if new else notebook.grades:
        name = names.get(grade.cell_id) or grade.name
        function = name.removeprefix("test_")
        if not name.startswith("test_") or function not in points:
            continue  # a cell the autograder does not grade (e.g. a written answer)
        earned, available = points[function]
        previous = grade.auto_score
        grade.auto_score = earned
        # As nbgrader's SaveAutoGrades, a grader's manual score stays. It is flagged for review
        # (formgrader clears the flag when a grader saves a score) only when the automatic score
        # changed under it, or it was flagged before and nobody has looked since.
        if grade.manual_score is not None:
            stale = bool(grade.needs_manual_grade) or previous is None or abs(previous - earned) > 1e-9
            overrides.append(Override(result.notebook, name, float(grade.manual_score), earned, previous, stale))
            grade.needs_manual_grade = stale
        else:
            grade.needs_manual_grade = False
        recorded.add(function)
    assign_late_penalty(gb, course, sid, aid, submission, notebook)  # flushes, to sum the new scores
    for function in sorted(set(points) - recorded):
        warnings.append(f"no grade cell test_{function} in the gradebook: its points are not recorded there")
    return warnings, totals_of(gb, submission, overrides)


def totals_of(gb, submission, overrides):
    """The submission's ``Totals`` as the database counts them now (nbgrader's column expressions;
    the session's changes are flushed first)."""
    _, api, _, _ = nbgrader_modules()
    A = api.SubmittedAssignment
    gb.db.flush()  # a new submission has its id from then on
    raw, late, top = gb.db.query(A.score, A.late_submission_penalty, A.max_score).filter(A.id == submission.id).one()
    return Totals(float(raw), float(late or 0.0), float(top), overrides)


def assign_late_penalty(gb, course, sid, aid, submission, notebook):
    """What nbgrader's ``AssignLatePenalties`` preprocessor does for one submitted notebook, on the
    ``SubmittedAssignment`` and ``SubmittedNotebook`` rows of the open gradebook ``gb`` (nbgrader 0.9's steps,
    its plugin and its clamping): the penalty is reset, then, when the submission is late, the
    course's ``LateSubmissionPlugin`` (``AssignLatePenalties.plugin_class``) gives it from the
    notebook's score and the seconds late, clamped to ``[0, score]``. Not committed."""
    notebook.late_submission_penalty = None
    if submission.total_seconds_late > 0:
        _, _, preprocessors, _ = nbgrader_modules()
        step = preprocessors.AssignLatePenalties(parent=course, log=student_logger(sid, aid))
        step.init_plugin()
        gb.db.flush()
        gb.db.expire(notebook, ["score"])  # summed again by the database, after this run's scores
        step.log.warning("{} is {} seconds late".format(submission, submission.total_seconds_late))
        penalty = step.plugin_inst.late_submission_penalty(sid, notebook.score, submission.total_seconds_late)
        step.log.warning("Late submission penalty: {}".format(penalty))
        if penalty is not None:
            notebook.late_submission_penalty = step._check_late_penalty(notebook, penalty)
