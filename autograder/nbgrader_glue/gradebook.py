"""Put the grade of record into nbgrader's gradebook, and the feedback where nbgrader finds it.

``python -m autograder grade submitted/`` run in an nbgrader course directory (or with
``--gradebook URL``) calls ``record_for_cli`` after grading. For every graded notebook it

1. writes the scores with nbgrader's own models (``nbgrader.api``; the rows its ``Gradebook`` API
   writes, ``scores.py``): the student
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

The whole class is recorded through one ``nbgrader.api.Gradebook`` (``open_gradebook``): the scores
and late penalties written with nbgrader's models (``scores.py``: the rows nbgrader's API writes, without
its three commits a notebook), the released cells read once for the class (``release.py``). ``record``
commits once every ``BATCH`` notebooks, then writes that batch's feedback notebooks: a feedback
notebook never shows a grade the gradebook has not committed (and the log gives a batch's late
penalties before its feedback warnings). When the database fails within a batch,
the batch is rolled back and its notebooks are recorded again one transaction each, so only the failing
notebook is lost (as when each notebook had its own commit; their late-penalty lines are then logged
twice). A crash or Ctrl-C mid-way leaves every earlier batch committed with its feedback notebooks, and
nothing of the batch under way (or its scores without all its feedback notebooks, when it comes while
they are written); running the command again records them. Any database nbgrader's ``db_url`` takes works
(SQLite by default; a PostgreSQL server for graders sharing one gradebook, with the pinned ``psycopg2-binary``).

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

from autograder.nbgrader_glue.feedback import log, nbgrader_modules, write_feedback_notebook
from autograder.nbgrader_glue.inert import keep_shared
from autograder.nbgrader_glue.scores import RecordError, write_scores

__all__ = ["RecordError", "find_course", "load_course", "open_gradebook", "record", "record_for_cli",
           "record_scores", "stale_override_lines"]
BATCH = 25  # notebooks recorded between two commits of ``record``

CONFIG_FILE = "nbgrader_config.py"
OPTION_HELP = ("nbgrader gradebook to record the grades in: a database URL (sqlite:///path/gradebook.db), "
               "'none', or 'auto' (default): the course's gradebook when PATH is in a course directory's "
               "submitted/ folder (one with nbgrader_config.py)")


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


def open_gradebook(course):
    """One ``nbgrader.api.Gradebook`` on the course's ``db_url`` (SQLite, PostgreSQL, ...), for
    ``record_scores``, ``assign_late_penalty`` and the feedback notebooks of a whole class: nbgrader
    builds an engine and checks every table each time one is opened, which cost more than the
    recording itself when each notebook opened its own. Close it (``with``) when done."""
    _, api, _, _ = nbgrader_modules()
    with quiet_sqlalchemy():
        return api.Gradebook(course.db_url, course.course_id)


def record_scores(course, result, submission_dir, gb=None, releases=None):
    """Write one notebook's scores into the gradebook (step 1 of the module docstring) and commit.

    Args:
        course: ``CourseDirectory`` (``db_url``, ``course_id``, late-penalty config).
        result: ``vocabulary.NotebookResult`` of a known exercise.
        submission_dir: the folder the notebook came from (for its ``timestamp.txt``).
        gb: an open ``nbgrader.api.Gradebook`` (``open_gradebook``) to record through; ``None``
            opens one for this notebook alone. On failure its session is rolled back.
        releases: ``release.Releases`` of ``gb`` (``None``: read for this notebook).
    Returns:
        ``(warnings, totals)``: a list of ``str`` (functions without a grade cell, points
        that differ) and the submission's ``Totals`` after recording (with its overrides).
    Raises:
        RecordError: the assignment or notebook is not in the gradebook.
    """
    from autograder.nbgrader_glue.release import Releases
    if gb is None:
        with open_gradebook(course) as own:
            return record_scores(course, result, submission_dir, own)
    try:
        with quiet_sqlalchemy():
            written = write_scores(gb, course, result, submission_dir, releases or Releases(gb))
            gb.db.commit()
        return written
    except BaseException:
        gb.db.rollback()  # PostgreSQL refuses every later statement of a failed transaction
        raise


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
    from autograder.nbgrader_glue.release import Releases
    releases, recorded, problems, batch = Releases(gb), 0, [], []
    for job, result in graded:
        if job.exercise is None:
            where = f"{result.student_id}/{result.assignment_id}"
            batch.append((job, result, [f"{where}: {job.path.name} not recorded ({job.problem})"]))
        else:
            batch.append((job, result, None))
        if len(batch) == BATCH:
            recorded += _record_batch(course, batch, totals, gb, releases, problems)
            batch = []
    recorded += _record_batch(course, batch, totals, gb, releases, problems)
    keep_shared()  # the markdown the class shares, made inert once for the next run too
    return recorded, problems


def _record_batch(course, batch, totals, gb, releases, problems):
    """Record ``batch`` (``[(job, result, problems or None)]``) in one transaction, then write its feedback
    notebooks; returns how many were recorded and adds the messages to ``problems``, in the batch's
    order. When the database fails anywhere in the batch, it is rolled back and every notebook of
    the batch is recorded again in a transaction of its own, so only the failing one is lost."""
    written = {}
    try:
        with quiet_sqlalchemy():
            for i, (job, result, trouble) in enumerate(batch):
                if trouble is None:
                    written[i] = _scores_or_error(course, result, job, gb, releases)
            gb.db.commit()
    except Exception:
        _rollback(gb)
        written = {}
        for i, (job, result, trouble) in enumerate(batch):
            if trouble is None:
                try:
                    written[i] = _scores_or_error(course, result, job, gb, releases)
                    with quiet_sqlalchemy():
                        gb.db.commit()
                except Exception as exc:  # database locked, disk full ...: keep going with the class
                    _rollback(gb)
                    written[i] = f"{type(exc).__name__}: {exc}"
    recorded = 0
    for i, (job, result, trouble) in enumerate(batch):
        where = f"{result.student_id}/{result.assignment_id}"
        if trouble is not None:
            problems += trouble
            continue
        if isinstance(written[i], str):
            problems.append(f"{where}: not recorded: {written[i]}")
            continue
        warnings, counted = written[i]
        problems += [f"{where}: {w}" for w in warnings]
        try:
            result.notes.extend(n for n in counted.notes() if n not in result.notes)
            if totals is not None:
                totals[(result.student_id, result.assignment_id)] = counted
            write_feedback_notebook(course, result, job.path, counted, gb, releases)  # headline: the grade of record
            recorded += 1
        except Exception as exc:  # disk full ...: keep going with the class
            problems.append(f"{where}: not recorded: {type(exc).__name__}: {exc}")
    return recorded


def _rollback(gb):
    """Roll ``gb``'s session back; a connection that cannot even do that is left to fail the next
    notebook, which is then reported (``record`` never raises for one notebook's trouble)."""
    try:
        gb.db.rollback()
    except Exception:  # noqa: BLE001
        pass


def _scores_or_error(course, result, job, gb, releases):
    """``write_scores``' ``(warnings, totals)``, or the ``RecordError``'s message (nothing written)."""
    with quiet_sqlalchemy():
        try:
            return write_scores(gb, course, result, job.path.parent, releases)
        except RecordError as exc:
            return str(exc)


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
