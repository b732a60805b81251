"""``python -m autograder SUBCOMMAND``: the grader's command line, a table of subcommands (``COMMANDS``).

``grade PATH [--out DIR]`` grades notebooks and writes the reports.

Each notebook is graded in a worker process from a pool (``--jobs``, default: one per
core); each worker runs the student's code in its own child process (``submission/remote.py``) and
the hidden checks with pytest (``checks/plugin.py``). A submission that crashes, hangs or is
not a notebook costs only its own points: its results.json is written all the same.
The class run is ``grading/class_run.py`` (its stages, ``STAGES``); each subcommand here is a small
function that turns its arguments into a call. A class run
ends with the staff's class report (``reports/class_report.py``: class.html and two CSVs in OUT), which
``python -m autograder report GRADED_DIR`` writes again from results.json files already there.

Before grading, ``preflight`` checks what the checks need (tiktoken's cache, the course
secret, the sandbox) and stops with exit status 3 instead of charging every student. A run
started again over the same ``--out`` skips notebooks already graded with unchanged content
(``grading/resume.py``; ``--fresh`` regrades everything). Output is safe on any console: text that
cannot be encoded is shown as escapes, files are UTF-8.

``--shard K/N --out DIR`` grades only shard K of N of the class, split by student, and writes
results and a manifest into DIR instead of the class's files; ``merge`` checks that the shards
form the whole class and writes those files once (``grading/outputs.write_class_outputs``, the
code a single run uses); ``slurm`` and ``k8s-job`` run the shards on a cluster (``cluster/``, docs/cluster.md).
A shard exits 0 once every one of its notebooks has a result (grader failures are counted in
its manifest and reported by the merge, so the merge job still runs).

Exit status: 0 when every notebook was graded (whatever the scores), 1 when the grader
itself failed on some notebook (see OUT/grader-errors.log) or a grade could not be recorded
in nbgrader's gradebook (``nbgrader_glue/gradebook.py``) or the class report could not be written
(grades.csv is written; the message says why), 2 on bad usage, 3 when a preflight check failed
(nothing was graded: tiktoken's cache, the course secret, or the sandbox for student code
cannot start here; ``--unconfined`` overrides the last; or the gradebook's points differ from
the checks', ``nbgrader_glue/points_guard.py``). Grading part of a class keeps the other rows of
grades.csv (``grading/regrade.py``); a late resubmission that replaced an on-time one is named
(``grading/late.py``).
"""

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Callable

from autograder.core.registry import SECRET_FILE

PREFLIGHT_FAILED = 3


@dataclasses.dataclass(frozen=True)
class Subcommand:
    """One subcommand: its one line of ``--help``, ``arguments(parser)`` adding its arguments (called only
    when it is the one run, so that the modules of the others are not imported: ``grade`` starts without
    nbformat, numpy or pytest), and ``run(args, parser)`` returning the exit status. ``own_arguments``:
    it parses its own (``run(argv)``; ``python -m autograder demo --help`` shows them)."""
    help: str
    run: Callable
    arguments: Callable | None = None
    own_arguments: bool = False


def _safe_console():
    """Never crash printing: characters the console cannot show become escapes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


# -- grade -----------------------------------------------------------------------------------------
def _grade_arguments(g):
    from autograder.nbgrader_glue.gradebook import OPTION_HELP
    from autograder.sandbox.levels import CHOICES as CONFINEMENT_CHOICES
    from autograder.sandbox.limits import Limits
    g.add_argument("path", help="an .ipynb file, submitted/<student>/<assignment>/, or submitted/")
    g.add_argument("--out", help="where results.json files and grades.csv go (default: graded/; with --shard, "
                                 "the shard's own folder, required)")
    g.add_argument("--shard", metavar="K/N", help="grade only shard K of N, split by student (see docs/cluster.md); "
                                                 "writes results and a manifest for `merge`, no reports")
    g.add_argument("--student", help="student id for a lone notebook (default: its file name)")
    g.add_argument("--assignment", help="exercise name, when it cannot be told from the file names")
    g.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="notebooks graded at once (default: cores)")
    g.add_argument("--secret-file", help=f"course secret for the randomized cases (default: $COURSE_SECRET or {SECRET_FILE.name})")
    g.add_argument("--new-secret", action="store_true",
                   help=f"create a new course secret in {SECRET_FILE.name} first (only for a new course)")
    g.add_argument("--fresh", action="store_true",
                   help="regrade every notebook, even those already graded in --out with unchanged content")
    g.add_argument("--call-timeout", type=float, default=Limits.call_seconds,
                   help="seconds one call into student code may take (default: %(default)s)")
    g.add_argument("--call-cpu-timeout", type=float, default=Limits.call_cpu_seconds,
                   help="CPU seconds one call into student code may use, measured per function "
                        "(see autograder/sandbox/limits.py; default: %(default)s)")
    g.add_argument("--quiet", action="store_true", help="print only the class summary, not every table")
    g.add_argument("--gradebook", default="auto", metavar="URL", help=OPTION_HELP)  # nbgrader (gradebook.py)
    g.add_argument("--unconfined", action="store_true",
                   help="run student code WITHOUT the sandbox (only where bubblewrap cannot run; "
                        "recorded in every results.json and grades.csv)")
    g.add_argument("--confinement", choices=CONFINEMENT_CHOICES, default="auto",
                   help="confinement level of student code: auto (default) tries bubblewrap, then the "
                        "setuid level (grading as root, e.g. in a container); see docs/containers.md")
    g.add_argument("--roster", help="roster.csv: its students who submitted nothing are listed as 'not submitted' "
                                    "(default: roster.csv in the course directory, when there is one)")


def _run_options(args, parser):
    """The ``class_run.RunOptions`` of ``grade``'s arguments (usage errors exit here, status 2)."""
    from autograder.grading.class_run import RunOptions
    shard = None
    if args.shard is not None:
        from autograder.grading import shards
        try:
            shard = shards.parse_spec(args.shard)
        except ValueError as exc:
            parser.error(str(exc))
        if args.out is None:
            parser.error("--shard needs --out: the shard's own folder (each shard writes to another)")
    if args.student is not None and (not args.student or "/" in args.student or "\\" in args.student
                                     or args.student in (".", "..")):
        parser.error(f"--student {args.student!r}: a student id cannot be a path")
    return RunOptions(out=Path(args.out or "graded"), workers=args.jobs, confinement=args.confinement,
                      resume=not args.fresh, path=args.path, student=args.student, assignment=args.assignment,
                      secret_file=args.secret_file, gradebook=args.gradebook, roster=args.roster, shard=shard,
                      progress=True, report=True, quiet=args.quiet)


def _new_secret(args, parser):
    """``--new-secret``: a new course secret, only where there is none."""
    from autograder.checks.seeds import new_secret
    if args.secret_file or os.environ.get("COURSE_SECRET") or SECRET_FILE.exists():
        parser.error("--new-secret: a course secret exists already; remove it first if you really "
                     "want other randomized cases (and so other grades)")
    new_secret(SECRET_FILE)
    print(f"created a new course secret in {SECRET_FILE}; keep it to regrade with the same cases", file=sys.stderr)


def _grade(args, parser) -> int:
    """``grade PATH``: a class run (``grading/class_run.py``: find, preflight, grade, record, write, report)."""
    from autograder.grading.class_run import ClassRun, UsageError, grade_class
    from autograder.grading.preflight import PreflightError
    from autograder.sandbox.limits import Limits
    options = _run_options(args, parser)
    limits = Limits(call_seconds=args.call_timeout, call_cpu_seconds=args.call_cpu_timeout,
                    confine=not args.unconfined)
    if args.unconfined:
        print("warning: --unconfined: student code runs without the sandbox", file=sys.stderr)
    if args.new_secret:
        _new_secret(args, parser)
    run = ClassRun(options, limits)
    try:
        grade_class(run)
    except UsageError as exc:
        parser.error(str(exc))
    except PreflightError as exc:
        print(f"cannot grade: {exc}", file=sys.stderr)
        return PREFLIGHT_FAILED
    except _report_not_written() as exc:  # graded and grades.csv written, but no class report
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return run.exit_status


def _report_not_written():
    """``class_report.ReportNotWritten``, imported when an exception is being matched (the class
    report's module is imported after grading, not before)."""
    from autograder.reports.class_report import ReportNotWritten
    return ReportNotWritten


# -- the others: each hands its arguments to its module ---------------------------------------------
def _caches(argv):
    """``caches``: fill tiktoken's cache and matplotlib's font list, compile the project's bytecode,
    keep the released notebooks' markdown made inert for the feedback notebooks (``scripts/setup.sh``
    runs it)."""
    from autograder.sandbox import bytecode, matplotlib_cache, tiktoken_cache
    argparse.ArgumentParser(prog="python -m autograder caches", description=_caches.__doc__.split(": ", 1)[1]).parse_args(argv)
    bytecode.compile_project()  # the grade command's preflight compiles the child's part too
    status = max(tiktoken_cache.main(), matplotlib_cache.main())  # both, whichever fails
    try:  # an extra: without it the first grade command makes the same texts inert itself
        from autograder.core.registry import EXERCISES
        from autograder.nbgrader_glue.inert import keep_released
        keep_released([e.release_notebook for e in EXERCISES.values()])
    except Exception as exc:  # noqa: BLE001
        print(f"the released markdown was not made inert ahead ({type(exc).__name__}: {exc}); "
              "the first grade command does it", file=sys.stderr)
    return status


def _demo(argv):
    from autograder.demo.run import main
    return main(argv)


def _container(argv):
    from autograder.gradescope.container import main
    return main(argv)


def _build_arguments(parser):
    from autograder.course import build
    build.add_arguments(parser)


def _build(args, parser):
    from autograder.course import build
    return build.command(args)


def _gradescope_arguments(parser):
    from autograder.gradescope import bundle
    bundle.add_build_arguments(parser)


def _gradescope(args, parser):
    from autograder.gradescope import bundle
    return bundle.build_command(args, parser)


def _new_arguments(n):
    n.add_argument("name", help="the exercise's name (a lowercase identifier, e.g. layer_norm)")
    n.add_argument("--title", help="the notebook's title")
    n.add_argument("--summary", help="one line for README's exercise table (default: the title)")
    n.add_argument("--no-build", action="store_true", help="only write the folder (build later)")


def _new(args, parser):
    from autograder.course import scaffold
    return scaffold.main([args.name] + (["--title", args.title] if args.title else [])
                         + (["--summary", args.summary] if args.summary else [])
                         + (["--no-build"] if args.no_build else []))


def _report_arguments(parser):
    from autograder.reports import class_report
    class_report.add_arguments(parser)


def _report(args, parser):
    from autograder.reports import class_report
    return class_report.command(args)


def _merge_arguments(parser):
    from autograder.cluster import merge
    merge.add_arguments(parser)


def _merge(args, parser):
    from autograder.cluster import merge
    return merge.command(args, parser)


def _slurm_arguments(parser):
    from autograder.cluster import slurm
    slurm.add_arguments(parser)


def _slurm(args, parser):
    from autograder.cluster import slurm
    return slurm.command(args, parser)


def _k8s_arguments(parser):
    from autograder.cluster import k8s
    k8s.add_arguments(parser)


def _k8s(args, parser):
    from autograder.cluster import k8s
    return k8s.command(args, parser)


def _lms_arguments(parser):
    from autograder.lms import command
    command.add_lms_arguments(parser)


def _roster_arguments(parser):
    from autograder.lms import command
    command.add_roster_arguments(parser)


def _lms(args, parser):
    from autograder.lms import command
    return command.run(args)


def _score_arguments(parser):
    from autograder.nbgrader_glue import manual_score
    manual_score.add_arguments(parser)


def _score(args, parser):
    from autograder.nbgrader_glue import manual_score
    return manual_score.command(args)


COMMANDS = {
    "demo": Subcommand("a simulated class, graded end to end (its own --help)", _demo, own_arguments=True),
    "container": Subcommand("Gradescope's container runtime: run, check-requirements, check-setup "
                            "(what the zip's setup.sh and run_autograder call)", _container, own_arguments=True),
    "caches": Subcommand("fill tiktoken's cache and matplotlib's font list", _caches, own_arguments=True),
    "build": Subcommand("generate notebooks, solutions, release copies and the generated pages from "
                        "exercises/ (--check: only report drift)", _build, _build_arguments),
    "grade": Subcommand("grade one notebook, one submission folder, or nbgrader's submitted/ tree",
                        _grade, _grade_arguments),
    "gradescope": Subcommand("build ASSIGNMENT's Gradescope autograder zip", _gradescope, _gradescope_arguments),
    "new": Subcommand("write exercises/NAME/ from a template: a tiny exercise that builds and grades",
                      _new, _new_arguments),
    "report": Subcommand("write class.html and its CSVs from GRADED_DIR's results.json files (ours or "
                         "Gradescope's)", _report, _report_arguments),
    "merge": Subcommand("check that shard outputs form the whole class, then write what a single class run "
                        "writes", _merge, _merge_arguments),
    "slurm": Subcommand("grade a class on a Slurm cluster: a job array of shards, then a merge job",
                        _slurm, _slurm_arguments),
    "k8s-job": Subcommand("write a Kubernetes Indexed Job (shards) and a merge Job", _k8s, _k8s_arguments),
    "lms": Subcommand("write a Canvas, Moodle, Brightspace or Blackboard grade import file from GRADED_DIR, "
                      "or (lms items) a starting items file", _lms, _lms_arguments),
    "roster": Subcommand("check roster.csv, or load its students into nbgrader's gradebook", _lms, _roster_arguments),
    "score": Subcommand("give (or --clear) a manual score on one grade cell", _score, _score_arguments),
}


def main(argv=None):
    """``python -m autograder SUBCOMMAND ...``: the one entry point of the grader (see the module docstring
    and ``--help``); returns the exit status."""
    _safe_console()
    argv = sys.argv[1:] if argv is None else list(argv)
    wanted = COMMANDS.get(argv[0]) if argv else None
    if wanted is not None and wanted.own_arguments:
        return wanted.run(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade notebook submissions, "
                                     "build the course, and the rest of the grader's commands.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, add_help=not command.own_arguments)
        if command is wanted and command.arguments is not None:
            command.arguments(p)
    args = parser.parse_args(argv)
    return COMMANDS[args.command].run(args, parser)
