"""``python -m autograder grade PATH [--out DIR]``: grade notebooks and write the reports.

Each notebook is graded in a worker process from a pool (``--jobs``, default: one per
core); each worker runs the student's code in its own child process (``submission/remote.py``) and
the hidden checks with pytest (``checks/plugin.py``). A submission that crashes, hangs or is
not a notebook costs only its own points: its results.json is written all the same.
Orchestration is in ``class_run.grade_all``; this module parses arguments and prints. A class run
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
import os
import sys
import time
from pathlib import Path

from autograder.checks.seeds import SECRET_FILE, load_secret, new_secret
from autograder.grading import preflight
from autograder.grading.class_run import grade_class
from autograder.grading.discover import discover
from autograder.nbgrader_glue import gradebook
from autograder.reports import console as report
from autograder.sandbox.levels import CHOICES as CONFINEMENT_CHOICES
from autograder.sandbox.limits import Limits

PREFLIGHT_FAILED = 3


def _safe_console():
    """Never crash printing: characters the console cannot show become escapes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


def _students(results) -> int:
    """How many students ``results`` (a ``stream.Results``) are of, read from its rows alone."""
    return len({r.student_id for r in results.rows() if r is not None})


def _secret(args, parser):
    """The course secret; a new one only with --new-secret (else exit via PreflightError)."""
    if args.new_secret:
        if args.secret_file or os.environ.get("COURSE_SECRET") or SECRET_FILE.exists():
            parser.error("--new-secret: a course secret exists already; remove it first if you really "
                         "want other randomized cases (and so other grades)")
        new_secret(SECRET_FILE)
        print(f"created a new course secret in {SECRET_FILE}; keep it to regrade with the same cases",
              file=sys.stderr)
    try:
        return load_secret(args.secret_file, create=False)
    except FileNotFoundError as exc:
        raise preflight.PreflightError(f"{exc}. Grading needs the course secret the term started with "
                                       "(other secret, other randomized cases, other grades): restore "
                                       f"{SECRET_FILE.name} or set $COURSE_SECRET; for a new course, "
                                       "pass --new-secret once") from None


class _Progress:
    """Count, rate and ETA: a rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, total, quiet):
        self.total, self.quiet, self.done, self.reused = total, quiet, 0, 0
        self.t0 = time.perf_counter()
        self.bar = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            self.bar = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
                                TimeRemainingColumn(), console=Console(file=sys.stderr), transient=False)
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

    def close(self):
        if self.bar is not None:
            self.bar.stop()


def _caches(argv):
    """``caches``: fill tiktoken's cache and matplotlib's font list, compile the project's bytecode
    (``scripts/setup.sh`` runs it)."""
    from autograder.sandbox import bytecode, matplotlib_cache, tiktoken_cache
    argparse.ArgumentParser(prog="python -m autograder caches", description=_caches.__doc__.split(": ", 1)[1]).parse_args(argv)
    bytecode.compile_project()  # the grade command's preflight compiles the child's part too
    return max(tiktoken_cache.main(), matplotlib_cache.main())  # both, whichever fails


def _demo(argv):
    from autograder.demo.run import main as demo_main
    return demo_main(argv)


def _container(argv):
    from autograder.gradescope.container import main as container_main
    return container_main(argv)


def _report_not_written():
    """``class_report.ReportNotWritten``, imported when an exception is being matched (the class
    report's module is imported after grading, not before)."""
    from autograder.reports.class_report import ReportNotWritten
    return ReportNotWritten


# Subcommands that parse their own arguments (``python -m autograder demo --help`` shows theirs).
PASS_THROUGH = {"demo": _demo, "container": _container, "caches": _caches}


def main(argv=None):
    """``python -m autograder SUBCOMMAND ...``: the one entry point of the grader (see the module docstring
    and ``--help``); returns the exit status."""
    _safe_console()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in PASS_THROUGH:
        return PASS_THROUGH[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade notebook submissions, "
                                     "build the course, and the rest of the grader's commands.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="a simulated class, graded end to end (its own --help)", add_help=False)
    sub.add_parser("container", help="Gradescope's container runtime: run, check-requirements, check-setup "
                                     "(what the zip's setup.sh and run_autograder call)", add_help=False)
    sub.add_parser("caches", help="fill tiktoken's cache and matplotlib's font list", add_help=False)
    # A subcommand's own arguments come from its module; the modules of the others (nbformat,
    # numpy, pytest behind some) are not imported: `grade` starts without them.
    wanted = argv[0] if argv else None
    b = sub.add_parser("build", help="generate notebooks, solutions, release copies and the "
                                     "generated pages from exercises/ (--check: only report drift)")
    if wanted == "build":
        from autograder.course import build
        build.add_arguments(b)
    g = sub.add_parser("grade", help="grade one notebook, one submission folder, or nbgrader's submitted/ tree")
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
    g.add_argument("--gradebook", default="auto", metavar="URL", help=gradebook.OPTION_HELP)  # nbgrader (gradebook.py)
    g.add_argument("--unconfined", action="store_true",
                   help="run student code WITHOUT the sandbox (only where bubblewrap cannot run; "
                        "recorded in every results.json and grades.csv)")
    g.add_argument("--confinement", choices=CONFINEMENT_CHOICES, default="auto",
                   help="confinement level of student code: auto (default) tries bubblewrap, then the "
                        "setuid level (grading as root, e.g. in a container); see docs/containers.md")
    # -- gradescope: build an autograder zip (autograder/gradescope/bundle.py) --
    gs = sub.add_parser("gradescope", help="build ASSIGNMENT's Gradescope autograder zip")
    if wanted == "gradescope":
        from autograder.gradescope import bundle as gradescope
        gradescope.add_build_arguments(gs)
    # -- new: start an exercise folder from the template (autograder/course/scaffold.py) --
    n = sub.add_parser("new", help="write exercises/NAME/ from a template: a tiny exercise that builds and grades")
    n.add_argument("name", help="the exercise's name (a lowercase identifier, e.g. layer_norm)")
    n.add_argument("--title", help="the notebook's title")
    n.add_argument("--summary", help="one line for README's exercise table (default: the title)")
    n.add_argument("--no-build", action="store_true", help="only write the folder (build later)")
    # -- report: the class report from results already written (autograder/reports/class_report.py) --
    rep = sub.add_parser("report", help="write class.html and its CSVs from GRADED_DIR's "
                                      "results.json files (ours or Gradescope's)")
    if wanted == "report":
        from autograder.reports import class_report
        class_report.add_arguments(rep)
    # -- merge, slurm, k8s-job: a class graded in shards (autograder/cluster/) --
    from autograder.cluster import k8s, merge, slurm
    merge.add_arguments(sub.add_parser("merge", help="check that shard outputs form the whole class, then write "
                                                     "what a single class run writes"))
    slurm.add_arguments(sub.add_parser("slurm", help="grade a class on a Slurm cluster: a job array of shards, "
                                                     "then a merge job"))
    k8s.add_arguments(sub.add_parser("k8s-job", help="write a Kubernetes Indexed Job (shards) and a merge Job"))
    # -- lms, roster: LMS import files and the course roster (autograder/lms/) --
    from autograder.lms import command as lms_command
    lms_command.add_parsers(sub)
    g.add_argument("--roster", help="roster.csv: its students who submitted nothing are listed as 'not submitted' "
                                    "(default: roster.csv in the course directory, when there is one)")
    # -- score: a grader's score on one grade cell, from the command line (nbgrader_glue/manual_score.py) --
    from autograder.nbgrader_glue import manual_score
    manual_score.add_arguments(sub.add_parser("score", help="give (or --clear) a manual score on one grade cell"))
    args = parser.parse_args(argv)
    if args.command in ("merge", "slurm", "k8s-job"):
        return {"merge": merge, "slurm": slurm, "k8s-job": k8s}[args.command].command(args, parser)
    if args.command in ("lms", "roster"):
        return lms_command.run(args)
    if args.command == "score":
        return manual_score.command(args)
    if args.command == "gradescope":
        return gradescope.build_command(args, parser)
    if args.command == "report":
        return class_report.command(args)
    if args.command == "build":
        return build.command(args)
    # -- end gradescope, report --
    if args.command == "new":
        from autograder.course import scaffold
        return scaffold.main([args.name] + (["--title", args.title] if args.title else [])
                        + (["--summary", args.summary] if args.summary else [])
                        + (["--no-build"] if args.no_build else []))

    shard_spec = None
    if args.shard is not None:
        from autograder.cluster import shards
        try:
            shard_spec = shards.parse_spec(args.shard)
        except ValueError as exc:
            parser.error(str(exc))
        if args.out is None:
            parser.error("--shard needs --out: the shard's own folder (each shard writes to another)")
    try:
        jobs = discover(args.path, student=args.student, assignment=args.assignment)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if not jobs:
        parser.error(f"no notebooks found under {args.path}")
    if args.student is not None and (not args.student or "/" in args.student or "\\" in args.student
                                     or args.student in (".", "..")):
        parser.error(f"--student {args.student!r}: a student id cannot be a path")
    try:
        roster = lms_command.roster_for_run(args.roster, args.path)  # checked before anything is graded
    except ValueError as exc:
        parser.error(str(exc))
    from autograder.nbgrader_glue.points_guard import (
        check_for_cli,  # points changed mid-term: stop before grading anything
    )
    mismatch = check_for_cli(args.gradebook, args.path, jobs)
    if mismatch:
        print("cannot grade: the gradebook and the checks give different points\n" + "\n".join(mismatch),
              file=sys.stderr)
        return PREFLIGHT_FAILED
    limits = Limits(call_seconds=args.call_timeout, call_cpu_seconds=args.call_cpu_timeout,
                    confine=not args.unconfined)
    if args.unconfined:
        print("warning: --unconfined: student code runs without the sandbox", file=sys.stderr)
    t0 = time.perf_counter()
    out = Path(args.out or "graded")
    try:
        secret = _secret(args, parser)
    except preflight.PreflightError as exc:
        print(f"cannot grade: {exc}", file=sys.stderr)
        return PREFLIGHT_FAILED
    shard = None
    if shard_spec is not None:
        class_jobs, jobs = jobs, shards.select(jobs, *shard_spec)
        shard = shards.ShardRun(out, *shard_spec, args.path, class_jobs, jobs, secret, limits, args.confinement)
        shard.start()
    progress = _Progress(len(jobs), args.quiet)
    from autograder.grading import (
        late,  # a late resubmission that replaced an on-time one: found before its record is replaced
    )
    # Found after the preflight (its limits, with the confinement level, key the resume records
    # that hold an on-time copy's earlier score) and before those records are replaced.
    late_found = lambda limits: late.for_cli(args.gradebook, args.path, jobs, out, secret, limits)  # noqa: E731
    try:
        # Recorded before the reports: the gradebook's late penalties and manual overrides go into them.
        run = grade_class(jobs, secret, limits, args.jobs, out, level=args.confinement, progress=progress,
                          resume=not args.fresh, outputs=shard is None, roster=roster, late_found=late_found,
                          gradebook=lambda results, totals: gradebook.record_for_cli(  # nbgrader (gradebook.py)
                              args.gradebook, args.path, jobs, results, totals))
    except preflight.PreflightError as exc:
        print(f"cannot grade: {exc}", file=sys.stderr)
        return PREFLIGHT_FAILED
    except _report_not_written() as exc:  # graded and grades.csv written, but no class report
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        progress.close()
    if shard is not None:  # one shard of a class: results and manifest only (cluster/shards.py)
        shard.finish(run.results, run.failures, progress.reused, level=run.level or "unconfined")
        print(f"shard {args.shard}: {len(run.results)} notebook(s) of {_students(run.results)} "
              f"student(s) in {time.perf_counter() - t0:.1f} s ({len(run.results) - progress.reused} graded, "
              f"{progress.reused} recorded by an earlier run); manifest {shard.path} (next: python -m autograder merge)")
        if run.failures:
            print(f"the grader failed on {run.failures} notebook(s): tracebacks in {out / 'grader-errors.log'}",
                  file=sys.stderr)
        return 0  # complete: the merge writes the class's files and reports grader failures
    results, failures, csv_path, flagged, note_path = (run.results, run.failures, run.csv_path, run.flagged,
                                                       run.note_path)
    if not args.quiet:
        for r in results:
            print(report.table(r))
    if flagged:
        print(f"{len(flagged)} notebook(s) identical to another student's or hard-linked: listed in {note_path} "
              "(flagged only; their points are unchanged)")
    reused = f" ({progress.reused} unchanged since the last run, not regraded)" if progress.reused else ""
    print(f"graded {len(results)} notebook(s) of {_students(results)} student(s) "
          f"in {time.perf_counter() - t0:.1f} s{reused}; results in {out}/, class table in {csv_path}")
    if failures:
        print(f"the grader failed on {failures} notebook(s): 'grader error' in their results, tracebacks "
              f"in {out / 'grader-errors.log'}", file=sys.stderr)
    return 1 if failures or not run.recorded else 0

