"""``python -m autograder demo``: a simulated class, end to end through nbgrader.

1. Builds a throwaway nbgrader course under ``demo-class/`` (git-ignored) from ``source/``
   and releases every assignment to a throwaway exchange (``generate_assignment``,
   ``release_assignment``).
2. Each student of ``students.STUDENTS`` fetches every assignment, fills it in (the reference,
   the stubs, or their own code with planted mistakes, ``styles``) and submits it through the
   exchange.
3. The instructor collects, grades ``submitted/`` with the autograder, records the scores in the
   course's SQLite gradebook (``gradebook.db``, with ``autograded/`` copies formgrader shows;
   ``course/nbgrader_config.py`` holds the course's settings, so nbgrader's own commands work
   there afterwards), prints the class table, and writes per-student feedback (feedback.txt,
   report.html) next to each results.json.
4. The class has a roster (``roster.csv`` here, copied into the course directory): ``fay`` is on
   it and hands in nothing, so grades.csv and the class report list her as not submitted. The
   roster and ``lms_items.csv`` (the LMS's item names, maxima and ids, made up; "Tokens (BPE)"
   is worth 100 in the LMS, so its grades are rescaled) give ``graded/lms/canvas.csv``,
   ``moodle.csv``, moodle.xml, ``brightspace.csv`` and blackboard.xls
   (``autograder.lms``); fay is left out of them (nothing she holds in an LMS is touched).
5. After the class table, one line says that every planted mistake is named in its student's
   feedback, or which are not and what masks them (``masked_mistakes``).

Never touches ``source/`` or ``assignments/``. Takes well under two minutes on two cores.
"""
import argparse
import contextlib
import io
import shutil
import sys
import time
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.course.build import venv_on_path
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.demo.students import HOSTILE, REFERENCE, STUBS, STUDENTS, role
from autograder.demo.styles import imports, style

COURSE_ID = "demo"
ROSTER = Path(__file__).with_name("roster.csv")
LMS_ITEMS = Path(__file__).with_name("lms_items.csv")


def _config(course_root, exchange, student=None, assignment_dir=None):
    from traitlets.config import Config
    config = Config()
    config.CourseDirectory.root = str(course_root)
    config.CourseDirectory.course_id = COURSE_ID
    config.CourseDirectory.include = ["*.ipynb"]
    config.CourseDirectory.db_url = f"sqlite:///{course_root}/gradebook.db"
    config.Exchange.root = str(exchange)
    config.ExchangeCollect.check_owner = False  # every simulated student is the same OS user
    if student:
        config.CourseDirectory.student_id = student
    if assignment_dir:
        config.Exchange.assignment_dir = str(assignment_dir)
    return config


def _check(result, what):
    if not result.get("success", False):
        raise RuntimeError(f"nbgrader {what} failed:\n{result.get('log', '')}\n{result.get('error', '')}")


def _exchange_app(kind, config):
    """Run one student-side exchange step (fetch or submit) in this process."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory
    factory = ExchangeFactory(config=config)
    app = getattr(factory, kind)(coursedir=CourseDirectory(config=config),
                                 authenticator=Authenticator(config=config), config=config)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        app.start()


def submission_for(student, exercise, mistakes_by_id):
    """The notebook ``student`` hands in for ``exercise`` (see ``students.STUDENTS``): the
    reference, the stubs, or their own code (``styles.style``) with their planted mistakes.

    An exercise with no style of theirs (a new one: ``styles/<name>.py`` not written yet) is the
    reference with their mistakes, as ``run`` says.

    Raises:
        KeyError: ``students.py`` names an unknown mistake, or a function is in neither the
            student's style nor their mistakes (it would silently be the reference).
    """
    plan = STUDENTS[student]
    if plan == STUBS:
        return filled_notebook(exercise, stubs=exercise.functions)
    if plan == REFERENCE:
        return filled_notebook(exercise)
    replacements = style(student, exercise)
    for mistake_id in plan:
        if mistake_id not in mistakes_by_id:
            raise KeyError(f"students.py names an unknown mistake {mistake_id!r}")
        m = mistakes_by_id[mistake_id]
        if m.exercise == exercise.name:   # the student's imports above the function stay
            kept = imports(replacements.get(m.function, ""))
            replacements[m.function] = (kept + "\n" if kept else "") + m.code.lstrip("\n")
    if student == "eve":
        replacements.update(HOSTILE.get(exercise.name, {}))
    missing = [f for f in exercise.functions if f not in replacements]
    if missing and style(student, exercise):
        raise KeyError(f"{student} writes no {', '.join(missing)} of {exercise.name} (styles/{exercise.name}.py)")
    return filled_notebook(exercise, replacements)


def run(workdir, jobs=2, quiet=False):
    """Run the whole demo in ``workdir`` (wiped first). Returns the graded results list."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from autograder.grading.class_run import ClassRun, RunOptions, grade_class
    from autograder.grading.discover import discover
    from autograder.lms import command as lms_command
    from autograder.sandbox.limits import Limits

    venv_on_path()
    t0 = time.perf_counter()
    workdir = Path(workdir).resolve()
    if workdir.exists():
        shutil.rmtree(workdir)
    course, exchange = workdir / "course", workdir / "exchange"
    shutil.copytree(PROJECT_ROOT / "source", course / "source")
    exchange.mkdir(parents=True)

    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    # A course directory an instructor can go on with (`nbgrader generate_feedback`, formgrader,
    # `python -m autograder grade submitted/`): the same settings as the in-process config below.
    (course / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821 (nbgrader's config loader provides it)\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        "c.CourseDirectory.include = ['*.ipynb']\n"
        f"c.CourseDirectory.db_url = {f'sqlite:///{course}/gradebook.db'!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        "c.ExchangeCollect.check_owner = False  # every simulated student is the same unix user\n",
        encoding="utf-8")
    config = _config(course, exchange)
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    for name in EXERCISES:
        _check(api.generate_assignment(name), f"generate_assignment {name}")
        _check(api.release_assignment(name), f"release_assignment {name}")
    say(f"released {len(EXERCISES)} assignments to {exchange} ({time.perf_counter() - t0:.1f} s)")

    mistakes_by_id = {m.id: m for m in all_mistakes()}
    for student in STUDENTS:
        home = workdir / "students" / student
        home.mkdir(parents=True)
        for exercise in EXERCISES.values():
            student_config = _config(home, exchange, student, home)
            student_config.CourseDirectory.assignment_id = exercise.assignment
            _exchange_app("FetchAssignment", student_config)
            nb_path = home / exercise.assignment / exercise.notebook
            nbformat.write(submission_for(student, exercise, mistakes_by_id), nb_path)
            _exchange_app("Submit", student_config)
    say(f"{len(STUDENTS)} students fetched and submitted ({time.perf_counter() - t0:.1f} s):")
    for student in STUDENTS:
        say(f"  {student}: {role(student)}")
    for name, exercise in EXERCISES.items():
        plain = [s for s, plan in STUDENTS.items() if plan not in (REFERENCE, STUBS) and not style(s, exercise)]
        if plain:
            say(f"  note: {', '.join(plain)} have no code of their own for {name} (autograder/demo/styles/"
                f"{name}.py): they hand in the reference there, so the near-copies list names them")

    for name in EXERCISES:
        _check(api.collect(name), f"collect {name}")
    submitted = course / "submitted"
    say(f"collected into {submitted} ({time.perf_counter() - t0:.1f} s)")

    secret = b"demo-class-secret"  # the demo's own; a real term uses .course_secret
    jobs_list = discover(submitted)
    out = workdir / "graded"
    shutil.copy(ROSTER, course / "roster.csv")  # where `python -m autograder grade submitted/` finds it
    # The one entry of every class run (its stages: the preflight first, then grading, the course's
    # SQLite gradebook and the reports), as `python -m autograder grade submitted/` runs it.
    options = RunOptions(out=out, workers=jobs, resume=False, path=submitted, gradebook="auto",
                         roster=str(course / "roster.csv"), say=say)
    run = grade_class(ClassRun(options, Limits(), secret=secret, jobs=jobs_list))
    results, failures, csv_path = run.results, run.failures, run.csv_path
    for kind in lms_command.LMS:  # the LMS import files (docs/lms.md)
        paths, table = lms_command.write_lms_file(kind, out, course / "roster.csv", items_path=LMS_ITEMS,
                                                  say=lambda text: None)
        say(lms_command.summary(kind, paths, table))
    if not quiet:
        print()
        print(class_table(results))
        print()
        print(planted_report(results, mistakes_by_id))
        print(f"\nresults.json, feedback.txt and report.html per student in {out}/<assignment>/<student>/; "
              f"class table in {csv_path}")
        print(f"demo finished in {time.perf_counter() - t0:.1f} s")
    if failures:
        raise RuntimeError(f"the grader failed on {failures} notebook(s)")
    return results


def masked_mistakes(results, mistakes_by_id):
    """The planted mistakes no feedback names: ``[(student, mistake id, what masks it)]``.

    A planted mistake is named when a failed check of its student's notebook says its phrase
    (``Mistake.feedback``); else "what masks it" is the feedback of the first failed check of its
    function (an endless loop, a crash, another mistake), or "every check of <function> passed"."""
    by = {(r.student_id, r.assignment_id): r for r in results}
    masked = []
    for student, plan in STUDENTS.items():
        if plan in (REFERENCE, STUBS):
            continue
        for mistake_id in plan:
            m = mistakes_by_id[mistake_id]
            result = by.get((student, m.exercise))
            failed = [c for c in (result.checks if result else []) if c.score < c.max_score]
            if not any(m.feedback in c.output for c in failed):
                own = [c for c in failed if c.function == m.function]
                why = own[0].output.splitlines()[0][:160] if own else f"every check of {m.function} passed"
                masked.append((student, mistake_id, why))
    return masked


def planted_report(results, mistakes_by_id):
    """One line when every planted mistake is named in its student's feedback; else one line
    per masked mistake saying by what (``masked_mistakes``)."""
    planted = sum(len(p) for p in STUDENTS.values() if p not in (REFERENCE, STUBS))
    masked = masked_mistakes(results, mistakes_by_id)
    if not masked:
        return f"planted mistakes: all {planted} named in their students' feedback"
    lines = [f"planted mistakes: {planted - len(masked)} of {planted} named; masked:"]
    lines += [f"  {student}'s {mistake_id}, by: {why}" for student, mistake_id, why in masked]
    return "\n".join(lines)


def class_table(results):
    """Students down, assignments across, points as earned/max."""
    names = list(EXERCISES)
    by = {(r.student_id, r.assignment_id): r for r in results}
    students = sorted({r.student_id for r in results})
    width = max(len(n) for n in names) + 2
    lines = ["student  " + "".join(f"{n:>{width}}" for n in names) + f"{'total':>{width}}"]
    for s in students:
        cells, total, top = [], 0.0, 0.0
        for n in names:
            r = by.get((s, n))
            if r is None:
                cells.append(f"{'-':>{width}}")
                continue
            total, top = total + r.score, top + r.max_score
            cells.append(f"{f'{r.score:g}/{r.max_score:g}':>{width}}")
        lines.append(f"{s:<9}" + "".join(cells) + f"{f'{total:g}/{top:g}':>{width}}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder demo", description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default=str(PROJECT_ROOT / "demo-class"), help="work folder (wiped)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once")
    args = parser.parse_args(argv)
    from autograder.grading.preflight import PreflightError
    try:
        run(args.dir, jobs=args.jobs)
    except PreflightError as exc:
        print(f"cannot grade: {exc}", file=sys.stderr)
        return 3  # as python -m autograder grade (cli.PREFLIGHT_FAILED)
    return 0

