"""Put the grade of record into nbgrader's gradebook, and the feedback where nbgrader finds it.

``python -m autograder grade submitted/`` run in an nbgrader course directory (or with
``--gradebook URL``) calls ``record_for_cli`` after grading. For every graded notebook it

1. writes the scores through nbgrader's own API (``nbgrader.api.Gradebook``): the student
   and the submission (with the time in the submission's ``timestamp.txt``) are created if
   needed, and each contract function's points become the ``auto_score`` of the grade cell
   of its hidden test, ``test_<function>`` (see ``course/build.py``). ``manual_score`` is never
   touched, so a grader's override in formgrader still wins, as in ``nbgrader autograde``.
   Late penalties are then assigned as nbgrader's ``AssignLatePenalties`` does, with its plugin
   (the course's ``LateSubmissionPlugin`` settings). What the gradebook then makes of the submission
   (``Totals``: raw score with manual scores, late penalty, final score as ``nbgrader
   export`` computes it, and every manual override) goes back to the caller, for
   ``grades.csv``, and into the result's notes (``manual overrides: ...``, ``late: ...``),
   so the student's report says why its total differs from the checks' points. A manual
   score given before the automatic score changed (a resubmission, collected with
   ``nbgrader collect --update``) is *stale*: it is kept, flagged for review in formgrader
   (``needs_manual_grade``) until a grader saves it again, and the grade command names the
   student, notebook and cell;
2. writes ``autograded/<student>/<assignment>/<notebook>.ipynb``, which formgrader shows and
   ``nbgrader generate_feedback`` turns into the HTML students fetch: the submission cleaned
   by nbgrader's own sanitizing preprocessors (outputs cleared, kernelspec, locked and
   deleted grade cells restored from the gradebook), a first cell holding the grader's
   report (``student.render_fragment``) and, under each hidden-test cell, that function's
   checks and messages. ``timestamp.txt`` and ``submission_secret.txt`` are copied beside it,
   as ``nbgrader autograde`` does (``release_feedback`` needs both).

The whole class is recorded through one ``nbgrader.api.Gradebook`` (``open_gradebook``): scores,
late penalties and the source cells the feedback notebooks restore, one commit per notebook, so a
notebook that fails is rolled back alone. Any database nbgrader's ``db_url`` takes works (SQLite by
default; a PostgreSQL server for graders sharing one gradebook, with the pinned ``psycopg2-binary``).

So ``nbgrader export``, formgrader and nbgrader's feedback show the points of
``graded/grades.csv``; ``nbgrader autograde`` is optional (run it before the grader if at
all: its in-kernel scores are replaced by these).

nbgrader is imported on first use only (it takes seconds): ``python -m autograder grade``
outside a course directory does not pay for it.
"""
import contextlib
import logging
import sys
import warnings as warnings_module
from pathlib import Path

from autograder.nbgrader_glue.feedback import (
    log,
    nbgrader_modules,
    student_logger,
    write_feedback_notebook,
)
from autograder.nbgrader_glue.totals import Override, Totals

CONFIG_FILE = "nbgrader_config.py"
OPTION_HELP = ("nbgrader gradebook to record the grades in: a database URL (sqlite:///path/gradebook.db), "
               "'none', or 'auto' (default): the course's gradebook when PATH is in a course directory's "
               "submitted/ folder (one with nbgrader_config.py)")


class RecordError(Exception):
    """A grade could not be recorded (the gradebook lacks the assignment, or cannot be written)."""


def load_course(root, db_url=None):
    """nbgrader's ``CourseDirectory`` configured from ``root/nbgrader_config.py``.

    Args:
        root: the course directory (``str`` or ``Path``).
        db_url: gradebook URL overriding the config's (default: the config's, or
            nbgrader's ``sqlite:///<root>/gradebook.db``).
    Returns:
        ``nbgrader.coursedir.CourseDirectory``; its ``config`` is the whole loaded config.
    """
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader
    root = Path(root).resolve()
    try:
        config = PyFileConfigLoader(CONFIG_FILE, str(root)).load_config()
    except ConfigFileNotFound:
        config = Config()
    if "root" not in config.CourseDirectory:
        config.CourseDirectory.root = str(root)
    if db_url:
        config.CourseDirectory.db_url = db_url
    return CourseDirectory(config=config)


def find_course(path):
    """The course whose ``submitted/`` folder holds ``path``, or ``None``.

    A course directory is a folder with ``nbgrader_config.py`` whose submitted directory
    (nbgrader's default name, ``submitted``) is ``path`` or one of its parents.
    """
    path = Path(path).resolve()
    for folder in [path, *path.parents]:
        if folder.name == "submitted" and (folder.parent / CONFIG_FILE).is_file():
            course = load_course(folder.parent)
            if Path(course.format_path(course.submitted_directory, ".", ".")).resolve() == folder:
                return course
    return None


def _per_function(result):
    """``{function: (earned, available)}`` of a ``NotebookResult``'s checks."""
    points = {}
    for c in result.checks:
        earned, available = points.get(c.function, (0.0, 0.0))
        points[c.function] = (earned + c.score, available + c.max_score)
    return points


def open_gradebook(course):
    """One ``nbgrader.api.Gradebook`` on the course's ``db_url`` (SQLite, PostgreSQL, ...), for
    ``record_scores``, ``assign_late_penalty`` and the feedback notebooks of a whole class: nbgrader
    builds an engine and checks every table each time one is opened, which cost more than the
    recording itself when each notebook opened its own. Close it (``with``) when done."""
    _, api, _, _ = nbgrader_modules()
    with quiet_sqlalchemy():
        return api.Gradebook(course.db_url, course.course_id)


def record_scores(course, result, submission_dir, gb=None):
    """Write one notebook's scores into the gradebook (step 1 of the module docstring).

    Args:
        course: ``CourseDirectory`` (``db_url``, ``course_id``, late-penalty config).
        result: ``vocabulary.NotebookResult`` of a known exercise.
        submission_dir: the folder the notebook came from (for its ``timestamp.txt``).
        gb: an open ``nbgrader.api.Gradebook`` (``open_gradebook``) to record through; ``None``
            opens one for this notebook alone. On failure its session is rolled back.
    Returns:
        ``(warnings, totals)``: a list of ``str`` (functions without a grade cell, points
        that differ) and the submission's ``Totals`` after recording (with its overrides).
    Raises:
        RecordError: the assignment or notebook is not in the gradebook.
    """
    if gb is None:
        with open_gradebook(course) as own:
            return record_scores(course, result, submission_dir, own)
    try:
        with quiet_sqlalchemy():
            return _record_scores(gb, course, result, submission_dir)
    except BaseException:
        gb.db.rollback()  # PostgreSQL refuses every later statement of a failed transaction
        raise


def _record_scores(gb, course, result, submission_dir):
    _, api, _, _ = nbgrader_modules()
    from autograder.core.registry import find
    aid, sid = result.assignment_id, result.student_id
    notebook_id = Path(find(aid).notebook).stem
    warnings = []
    try:
        source = gb.find_notebook(notebook_id, aid)
    except api.MissingEntry:
        raise RecordError(f"the gradebook has no notebook {notebook_id!r} in assignment {aid!r}: "
                          f"run `nbgrader generate_assignment {aid}` in the course directory first") from None
    points = _per_function(result)
    differ = [f"{g.name} is worth {g.max_score:g} in the gradebook but {points[g.name[5:]][1]:g} in the checks"
              for g in source.grade_cells if g.name.startswith("test_")
              and g.name[5:] in points and abs(g.max_score - points[g.name[5:]][1]) > 1e-9]
    if differ:  # never more points than the maximum (points_guard.py; docs/instructor.md)
        raise RecordError("; ".join(differ) + ": not recorded; run `nbgrader generate_assignment "
                          f"{aid}` first (docs/instructor.md, 'Changing points during a term')")
    gb.update_or_create_student(sid)
    try:
        timestamp = course.get_existing_timestamp(str(submission_dir))
    except Exception as exc:  # nbgrader cannot parse it
        timestamp = None
        warnings.append(f"timestamp.txt not understood ({type(exc).__name__}: {exc}): no submission time")
    gb.update_or_create_submission(aid, sid, **({"timestamp": timestamp} if timestamp else {}))
    recorded, overrides = set(), []
    for grade in gb.find_submission_notebook(notebook_id, aid, sid).grades:
        function = grade.name.removeprefix("test_")
        if not grade.name.startswith("test_") or function not in points:
            continue  # a cell the autograder does not grade (e.g. a written answer)
        earned, available = points[function]
        previous = grade.auto_score
        grade.auto_score = earned
        # As nbgrader's SaveAutoGrades, a grader's manual score stays. It is flagged for review
        # (formgrader clears the flag when a grader saves a score) only when the automatic score
        # changed under it, or it was flagged before and nobody has looked since.
        if grade.manual_score is not None:
            stale = bool(grade.needs_manual_grade) or previous is None or abs(previous - earned) > 1e-9
            overrides.append(Override(result.notebook, grade.name, float(grade.manual_score), earned,
                                      previous, stale))
            grade.needs_manual_grade = stale
        else:
            grade.needs_manual_grade = False
        recorded.add(function)
    gb.db.commit()  # and expired: the late penalty reads the new scores as the database sums them
    assign_late_penalty(gb, course, aid, sid, notebook_id)
    gb.db.commit()
    for function in sorted(set(points) - recorded):
        warnings.append(f"no grade cell test_{function} in the gradebook: its points are not recorded there")
    submission = gb.find_submission(aid, sid)
    totals = Totals(float(submission.score), float(submission.late_submission_penalty or 0.0),
                    float(submission.max_score), overrides)
    return warnings, totals


def assign_late_penalty(gb, course, aid, sid, notebook_id):
    """What nbgrader's ``AssignLatePenalties`` preprocessor does for one submitted notebook, through
    the open gradebook ``gb`` instead of one of its own (nbgrader 0.9's steps, its plugin and its
    clamping): the penalty is reset, then, when the submission is late, the course's
    ``LateSubmissionPlugin`` (``AssignLatePenalties.plugin_class``) gives it from the notebook's
    score and the seconds late, clamped to ``[0, score]``. Not committed."""
    _, _, preprocessors, _ = nbgrader_modules()
    step = preprocessors.AssignLatePenalties(parent=course, log=student_logger(sid, aid))
    step.init_plugin()
    assignment = gb.find_submission(aid, sid)
    notebook = gb.find_submission_notebook(notebook_id, aid, sid)
    notebook.late_submission_penalty = None
    if assignment.total_seconds_late > 0:
        step.log.warning("{} is {} seconds late".format(assignment, assignment.total_seconds_late))
        penalty = step.plugin_inst.late_submission_penalty(sid, notebook.score, assignment.total_seconds_late)
        step.log.warning("Late submission penalty: {}".format(penalty))
        if penalty is not None:
            notebook.late_submission_penalty = step._check_late_penalty(notebook, penalty)


@contextlib.contextmanager
def quiet_sqlalchemy():
    """Hide SQLAlchemy 2.1's "not in session" SAWarning, which nbgrader's add_submission
    triggers on every new submission (harmless; ``nbgrader autograde`` prints it too)."""
    from sqlalchemy.exc import SAWarning
    with warnings_module.catch_warnings():
        warnings_module.simplefilter("ignore", SAWarning)
        yield


def record(course, graded, totals=None):
    """Record every graded notebook: scores into the gradebook, feedback notebooks into autograded/.

    Each result gets the notes of its ``Totals`` (manual overrides, late penalty) before its
    feedback notebook is written, so the student's report says why the gradebook's total
    differs from the checks' points.

    Args:
        course: ``CourseDirectory``.
        graded: iterable of ``(vocabulary.Job, vocabulary.NotebookResult)``.
        totals: optional ``dict`` to fill: ``{(student_id, assignment_id): Totals}`` of
            every recorded notebook.
    Returns:
        ``(recorded, problems)``: how many notebooks were recorded, and messages (``str``)
        for those that were not (or only in part). Never raises for one notebook's trouble.
    """
    with open_gradebook(course) as gb:
        return _record_all(course, graded, totals, gb)


def _record_all(course, graded, totals, gb):
    recorded, problems = 0, []
    for job, result in graded:
        where = f"{result.student_id}/{result.assignment_id}"
        if job.exercise is None:
            problems.append(f"{where}: {job.path.name} not recorded ({job.problem})")
            continue
        try:
            warnings, counted = record_scores(course, result, job.path.parent, gb)
            problems += [f"{where}: {w}" for w in warnings]
            result.notes.extend(n for n in counted.notes() if n not in result.notes)
            if totals is not None:
                totals[(result.student_id, result.assignment_id)] = counted
            write_feedback_notebook(course, result, job.path, counted, gb)  # headline: the grade of record
            recorded += 1
        except RecordError as exc:
            problems.append(f"{where}: not recorded: {exc}")
        except Exception as exc:  # database locked, disk full ...: keep going with the class
            problems.append(f"{where}: not recorded: {type(exc).__name__}: {exc}")
    return recorded, problems


class _Where(logging.Formatter):
    def format(self, record):
        where = getattr(record, "where", None)
        return f"gradebook: {where + ': ' if where else ''}{record.getMessage()}"


def stale_override_lines(totals):
    """The grade command's lines for stale manual overrides: student, assignment, notebook and
    cell, the kept manual score and what to do. ``totals``: ``{(student, assignment): Totals}``."""
    lines = []
    for (sid, aid), t in sorted(totals.items()):
        for o in t.overrides:
            if o.stale:
                lines.append(f"gradebook: {sid}/{aid}: {o.notebook}, cell {o.cell}: the manual score {o.manual:g} "
                             f"was given before the automatic score changed (now {o.automatic:g}"
                             + (f", was {o.previous:g}" if o.previous is not None
                                and abs(o.previous - o.automatic) > 1e-9 else
                                ": it changed in an earlier run, and nobody has reviewed the cell since")
                             + "); it is kept, "
                             f"as nbgrader does, so the gradebook total is {t.raw:g}, not the checks' "
                             "points. Review it in formgrader (save it again, or clear it and regrade)")
    return lines


def record_for_cli(option, path, jobs, results, totals=None):
    """``python -m autograder grade --gradebook OPTION``: record ``results`` where ``OPTION`` says.

    Args:
        option: "auto" (the course's gradebook when ``path`` is in a course's submitted/
            folder, else nothing), "none", or a database URL (course settings from the
            course found as for "auto", else from the current directory's
            ``nbgrader_config.py``).
        path: the PATH that was graded.
        jobs, results: the ``vocabulary.Job`` list and the ``NotebookResult`` list, in order.
        totals: optional ``dict`` filled as ``record`` does (for grades.csv). Stale manual
            overrides are printed (``stale_override_lines``) but are no failure.
    Returns:
        ``True`` when there was nothing to record or everything was recorded; ``False``
        (after printing why to stderr) otherwise.
    """
    # one result read at a time (``results`` may be a ``stream.Results``, which reads each from disk)
    return record_pairs_for_cli(option, path, zip(jobs, results, strict=False), totals)


def record_pairs_for_cli(option, path, graded, totals=None):
    """``record_for_cli`` of ``graded``, an iterable of ``(vocabulary.Job, NotebookResult)`` in any
    order, taken one at a time as it is recorded (``grading/record_ahead.py`` hands them in as
    the workers grade them). Same options, lines printed and answer as ``record_for_cli``."""
    if option == "none":
        return True
    course = find_course(path)
    if option != "auto":
        course = load_course(Path(course.root) if course else Path.cwd(), db_url=option)
    if course is None:
        return True
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_Where())
        log.addHandler(handler)
        log.setLevel(logging.WARNING)
        log.propagate = False
    db_file = course.db_url.removeprefix("sqlite:///") if course.db_url.startswith("sqlite:///") else None
    if db_file is not None and not Path(db_file).is_file():
        print(f"gradebook: no gradebook at {db_file}: run `nbgrader generate_assignment <name>` in "
              f"{course.root} first (or pass --gradebook none); grades not recorded", file=sys.stderr)
        return False
    problems: list = []
    if option == "auto":  # ids as nbgrader's layout gives them, not a lone notebook's file name
        submitted = Path(course.format_path(course.submitted_directory, ".", ".")).resolve()

        def laid_out(pairs):
            for j, r in pairs:
                if j.path.resolve().parent == submitted / r.student_id / r.assignment_id:
                    yield j, r
                else:
                    problems.append(f"{r.student_id}/{r.assignment_id}: {j.path} is not in {submitted}/<student>/"
                                    "<assignment>/ of that student and assignment (pass --student): not recorded")
        graded = laid_out(graded)
    totals = {} if totals is None else totals
    recorded, more = record(course, graded, totals)
    problems += more
    for line in stale_override_lines(totals):
        print(line, file=sys.stderr)
    for problem in problems:
        print(f"gradebook: {problem}", file=sys.stderr)
    print(f"recorded {recorded} notebook(s) in the gradebook {course.db_url}; feedback notebooks in "
          f"{course.format_path(course.autograded_directory, '.', '.').rstrip('/.')}/ "
          "(next: nbgrader generate_feedback)")
    return not problems
