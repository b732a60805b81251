"""``python -m autograder grade PATH [--out DIR]``: grade notebooks and write the reports.

Each notebook is graded in a worker process from a pool (``--jobs``, default: one per
core); each worker runs the student's code in its own child process (``client.py``) and
the hidden checks with pytest (``plugin.py``). A submission that crashes, hangs or is
not a notebook costs only its own points: its results.json is written all the same.

Exit status: 0 when every notebook was graded (whatever the scores), 1 when the grader
itself failed on some notebook (a defect to report), 2 on bad usage, 3 when the sandbox
for student code cannot start here (nothing was run; ``--unconfined`` overrides).
"""
import argparse
import os
import sys
import time
from pathlib import Path

from . import report
from .discover import discover
from .grade import grade_all
from .sandbox import Limits
from .seeds import SECRET_FILE, load_secret


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade notebook submissions.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade one notebook, one submission folder, or nbgrader's submitted/ tree")
    g.add_argument("path", help="an .ipynb file, submitted/<student>/<assignment>/, or submitted/")
    g.add_argument("--out", default="graded", help="where results.json files and grades.csv go (default: graded/)")
    g.add_argument("--student", help="student id for a lone notebook (default: its file name)")
    g.add_argument("--assignment", help="exercise name, when it cannot be told from the file names")
    g.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="notebooks graded at once (default: cores)")
    g.add_argument("--secret-file", help=f"course secret for the randomized cases (default: $COURSE_SECRET or {SECRET_FILE.name})")
    g.add_argument("--call-timeout", type=float, default=Limits.call_seconds,
                   help="seconds one call into student code may take (default: %(default)s)")
    g.add_argument("--quiet", action="store_true", help="print only the class summary, not every table")
    g.add_argument("--unconfined", action="store_true",
                   help="run student code WITHOUT the sandbox (only where bubblewrap cannot run; "
                        "recorded in every results.json and grades.csv)")
    args = parser.parse_args(argv)

    try:
        jobs = discover(args.path, student=args.student, assignment=args.assignment)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if not jobs:
        parser.error(f"no notebooks found under {args.path}")
    if args.student is not None and (not args.student or "/" in args.student or "\\" in args.student
                                     or args.student in (".", "..")):
        parser.error(f"--student {args.student!r}: a student id cannot be a path")
    existed = args.secret_file or os.environ.get("COURSE_SECRET") or SECRET_FILE.exists()
    try:
        secret = load_secret(args.secret_file, create=True)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if not existed:
        print(f"created a new course secret in {SECRET_FILE}; keep it to regrade with the same cases",
              file=sys.stderr)
    limits = Limits(call_seconds=args.call_timeout, confine=not args.unconfined)
    if not args.unconfined:  # fail closed: no student code runs outside the sandbox unless asked
        from .confinement import check_available
        reason = check_available()
        if reason:
            print(f"cannot grade: the sandbox for student code is not available here: {reason}\n"
                  "Fix that, or grade with --unconfined (student code then runs as this user, "
                  "with resource limits only; see README).", file=sys.stderr)
            return 3
    else:
        print("warning: --unconfined: student code runs without the sandbox", file=sys.stderr)
    t0 = time.perf_counter()

    def progress(i, r):
        print(f"graded {r.student_id}/{r.assignment_id}/{r.notebook}: {r.score:g}/{r.max_score:g} "
              f"({r.seconds:.1f} s)", file=sys.stderr)

    results, failures = grade_all(jobs, secret, limits, max(1, args.jobs), progress=progress)
    out = Path(args.out)
    for r in results:
        report.write_results(r, out)
        if not args.quiet:
            print(report.table(r))
    csv_path = report.write_grades_csv(results, out / "grades.csv")
    print(f"graded {len(results)} notebook(s) of {len({r.student_id for r in results})} student(s) "
          f"in {time.perf_counter() - t0:.1f} s; results in {out}/, class table in {csv_path}")
    if failures:
        print(f"the grader failed on {failures} notebook(s); see 'grader error' in their results", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
