"""``python -m autograder grade PATH [--out DIR]``: grade notebooks and write the reports.

Each notebook is graded in a worker process from a pool (``--jobs``, default: one per
core); each worker runs the student's code in its own child process (``client.py``) and
the hidden checks with pytest (``plugin.py``). A submission that crashes, hangs or is
not a notebook costs only its own points: its results.json is written all the same.
Orchestration is in ``grade.grade_all``; this module parses arguments and prints. A class run
ends with the staff's class report (``class_report.py``: class.html and two CSVs in OUT), which
``python -m autograder report GRADED_DIR`` writes again from results.json files already there.

Before grading, ``preflight`` checks what the checks need (tiktoken's cache, the course
secret, the sandbox) and stops with exit status 3 instead of charging every student. A run
started again over the same ``--out`` skips notebooks already graded with unchanged content
(``resume.py``; ``--fresh`` regrades everything). Output is safe on any console: text that
cannot be encoded is shown as escapes, files are UTF-8.

Exit status: 0 when every notebook was graded (whatever the scores), 1 when the grader
itself failed on some notebook (see OUT/grader-errors.log) or a grade could not be recorded
in nbgrader's gradebook (``gradebook.py``), 2 on bad usage, 3 when a preflight check failed
(nothing was graded: tiktoken's cache, the course secret, or the sandbox for student code
cannot start here; ``--unconfined`` overrides the last; or the gradebook's points differ from
the checks', ``points_guard.py``). Grading part of a class keeps the other rows of grades.csv
(``regrade.py``); a late resubmission that replaced an on-time one is named (``late.py``).
"""
import argparse
import os
import sys
import time
from pathlib import Path

from . import class_report, gradebook, html_report, identical, preflight, regrade, report
from .discover import discover
from .grade import grade_all
from .sandbox import Limits
from .seeds import SECRET_FILE, load_secret, new_secret

PREFLIGHT_FAILED = 3


def _safe_console():
    """Never crash printing: characters the console cannot show become escapes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


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
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
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


def main(argv=None):
    _safe_console()
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade notebook submissions.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade one notebook, one submission folder, or nbgrader's submitted/ tree")
    g.add_argument("path", help="an .ipynb file, submitted/<student>/<assignment>/, or submitted/")
    g.add_argument("--out", default="graded", help="where results.json files and grades.csv go (default: graded/)")
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
                        "(see autograder/limits.py; default: %(default)s)")
    g.add_argument("--quiet", action="store_true", help="print only the class summary, not every table")
    g.add_argument("--gradebook", default="auto", metavar="URL", help=gradebook.OPTION_HELP)  # nbgrader (gradebook.py)
    g.add_argument("--unconfined", action="store_true",
                   help="run student code WITHOUT the sandbox (only where bubblewrap cannot run; "
                        "recorded in every results.json and grades.csv)")
    g.add_argument("--confinement", choices=("auto", "bubblewrap", "setuid"), default="auto",
                   help="confinement level of student code: auto (default) tries bubblewrap, then the "
                        "setuid level (grading as root, e.g. in a container); see docs/containers.md")
    # -- gradescope: build an autograder zip (autograder/gradescope.py) --
    from . import gradescope
    gradescope.add_build_arguments(sub.add_parser("gradescope", help="build ASSIGNMENT's Gradescope autograder zip"))
    # -- new: start an exercise folder from the template (autograder/new.py) --
    n = sub.add_parser("new", help="write exercises/NAME/ from a template: a tiny exercise that builds and grades")
    n.add_argument("name", help="the exercise's name (a lowercase identifier, e.g. layer_norm)")
    n.add_argument("--title", help="the notebook's title")
    n.add_argument("--summary", help="one line for README's exercise table (default: the title)")
    n.add_argument("--no-build", action="store_true", help="only write the folder (build later)")
    # -- report: the class report from results already written (autograder/class_report.py) --
    class_report.add_arguments(sub.add_parser("report", help="write class.html and its CSVs from GRADED_DIR's "
                                                             "results.json files (ours or Gradescope's)"))
    from . import manual_score  # a grader's score from the command line (autograder/manual_score.py)
    manual_score.add_arguments(sub.add_parser("score", help="give (or --clear) a manual score on one grade cell"))
    args = parser.parse_args(argv)
    if args.command == "score":
        return manual_score.command(args)
    if args.command == "gradescope":
        return gradescope.build_command(args, parser)
    if args.command == "report":
        return class_report.command(args)
    # -- end gradescope, report --
    if args.command == "new":
        from . import new
        return new.main([args.name] + (["--title", args.title] if args.title else [])
                        + (["--summary", args.summary] if args.summary else [])
                        + (["--no-build"] if args.no_build else []))

    try:
        jobs = discover(args.path, student=args.student, assignment=args.assignment)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if not jobs:
        parser.error(f"no notebooks found under {args.path}")
    if args.student is not None and (not args.student or "/" in args.student or "\\" in args.student
                                     or args.student in (".", "..")):
        parser.error(f"--student {args.student!r}: a student id cannot be a path")
    from .points_guard import check_for_cli  # points changed mid-term: stop before grading anything
    mismatch = check_for_cli(args.gradebook, args.path, jobs)
    if mismatch:
        print("cannot grade: the gradebook and the checks give different points\n" + "\n".join(mismatch),
              file=sys.stderr)
        return PREFLIGHT_FAILED
    limits = Limits(call_seconds=args.call_timeout, call_cpu_seconds=args.call_cpu_timeout,
                    confine=not args.unconfined)
    try:
        secret = _secret(args, parser)
        level = preflight.run(jobs, confined=limits.confine, level=args.confinement)
    except preflight.PreflightError as exc:
        print(f"cannot grade: {exc}", file=sys.stderr)
        return PREFLIGHT_FAILED
    if level is not None:
        from dataclasses import replace
        limits = replace(limits, level=level)  # every worker uses the level checked here
    if args.unconfined:
        print("warning: --unconfined: student code runs without the sandbox", file=sys.stderr)
    t0 = time.perf_counter()
    out = Path(args.out)
    progress = _Progress(len(jobs), args.quiet)
    from . import late  # a late resubmission that replaced an on-time one: found before its record is replaced
    late_found = late.for_cli(args.gradebook, args.path, jobs, out, secret, limits)
    try:
        results, failures = grade_all(jobs, secret, limits, max(1, args.jobs), progress=progress,
                                      out=out, resume=not args.fresh)
    finally:
        progress.close()
    # Recorded first: the gradebook's late penalties and manual overrides go into the reports and grades.csv.
    totals = {}
    late.mark(results, late_found)
    recorded = gradebook.record_for_cli(args.gradebook, args.path, jobs, results, totals)  # nbgrader (gradebook.py)
    for i, found in sorted(late_found.items()):
        print(found.line(totals.get((results[i].student_id, results[i].assignment_id))))
    for r in results:
        report.write_results(r, out)
        html_report.write_html(r, out)
        if not args.quiet:
            print(report.table(r))
    # After the students' own reports: the flag is for the instructor (grades.csv, identical.csv).
    note_path, flagged = identical.flag(jobs, results, out)
    previous = regrade.read_table(out / "grades.csv")  # rows of students not in this run are kept
    csv_path = report.write_grades_csv(results, out / "grades.csv", totals)
    for line in regrade.summary_lines(*regrade.merge(previous, csv_path)):
        print(line)
    if flagged:
        print(f"{len(flagged)} notebook(s) identical to another student's or hard-linked: listed in {note_path} "
              "(flagged only; their points are unchanged)")
    class_report.write_after_run(out)  # class.html and its CSVs, for staff
    reused = f" ({progress.reused} unchanged since the last run, not regraded)" if progress.reused else ""
    print(f"graded {len(results)} notebook(s) of {len({r.student_id for r in results})} student(s) "
          f"in {time.perf_counter() - t0:.1f} s{reused}; results in {out}/, class table in {csv_path}")
    if failures:
        print(f"the grader failed on {failures} notebook(s): 'grader error' in their results, tracebacks "
              f"in {out / 'grader-errors.log'}", file=sys.stderr)
    return 1 if failures or not recorded else 0


if __name__ == "__main__":
    sys.exit(main())
