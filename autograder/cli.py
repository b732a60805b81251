"""``python -m autograder grade PATH [--out DIR]``: grade notebooks and write the reports.

Each notebook is graded in a worker process from a pool (``--jobs``, default: one per
core); each worker runs the student's code in its own child process (``sandbox.py``) and
the hidden checks with pytest (``plugin.py``). A submission that crashes, hangs or is
not a notebook costs only its own points: its results.json is written all the same.

Exit status: 0 when every notebook was graded (whatever the scores), 1 when the grader
itself failed on some notebook (a defect to report), 2 on bad usage.
"""
import argparse
import concurrent.futures as cf
import multiprocessing
import os
import sys
import time
from pathlib import Path

from . import html_report, report
from .discover import discover
from .grade import NotebookResult, check_metas, grade_notebook
from .plugin import CheckResult
from .sandbox import Limits
from .seeds import SECRET_FILE, load_secret


def _zero_result(job, note):
    checks = []
    if job.exercise is not None:
        checks = [CheckResult(m.function, m.name, 0.0, m.points, note) for m in check_metas(job.exercise)]
    assignment = job.exercise.assignment if job.exercise else (job.path.parent.name or "unknown")
    return NotebookResult(job.student_id, assignment, job.path.name, checks, [note])


def grade_job(job, secret, limits):
    """Grade one ``discover.Job``; never raises. Returns ``(NotebookResult, grader_failed)``."""
    if job.exercise is None:
        return _zero_result(job, job.problem), False
    try:
        result = grade_notebook(job.path, job.exercise, job.student_id, secret, limits)
        if job.ignored:
            result.notes.append(f"graded {job.path.name}; not graded (same exercise): {', '.join(job.ignored)}")
        return result, False
    except Exception as exc:  # a defect of the grader: keep grading the class
        return _zero_result(job, f"grader error, ask your instructor to regrade: "
                                 f"{type(exc).__name__}: {exc}"), True


def grade_all(jobs, secret, limits, workers, progress=None):
    """Grade ``jobs`` on ``workers`` processes.

    Returns:
        ``(results, failures)``: ``NotebookResult`` list in the order of ``jobs``, and the
        number of notebooks on which the grader itself failed.
    """
    results = [None] * len(jobs)
    failures = 0
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            results[i], failed = grade_job(job, secret, limits)
            failures += failed
            if progress:
                progress(i, results[i])
        return results, failures
    # "spawn", not "forkserver": a forkserver listens on a unix socket that a submission
    # could connect to and have an unconfined process forked for it.
    context = multiprocessing.get_context("spawn")

    def run_pool(indices, size):
        """Grade ``indices`` on a pool of ``size``; returns those whose worker died."""
        nonlocal failures
        broken = []
        with cf.ProcessPoolExecutor(max_workers=size, mp_context=context) as pool:
            futures = {pool.submit(grade_job, jobs[i], secret, limits): i for i in indices}
            for future in cf.as_completed(futures):
                i = futures[future]
                try:
                    results[i], failed = future.result()
                except Exception:  # the worker process died (BrokenProcessPool)
                    broken.append(i)
                    continue
                failures += failed
                if progress:
                    progress(i, results[i])
        return sorted(broken)

    # A dead worker takes its whole pool down: rerun what was left, each notebook in a
    # pool of its own, so only the notebook that kills its worker loses its points.
    for i in run_pool(range(len(jobs)), workers):
        if run_pool([i], 1):
            results[i] = _zero_result(jobs[i], "your notebook could not be run: grading it "
                                               "killed the grader's worker process")
            if progress:
                progress(i, results[i])
    return results, failures


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
    limits = Limits(call_seconds=args.call_timeout)
    t0 = time.perf_counter()

    def progress(i, r):
        print(f"graded {r.student_id}/{r.assignment_id}/{r.notebook}: {r.score:g}/{r.max_score:g} "
              f"({r.seconds:.1f} s)", file=sys.stderr)

    results, failures = grade_all(jobs, secret, limits, max(1, args.jobs), progress=progress)
    out = Path(args.out)
    for r in results:
        report.write_results(r, out)
        html_report.write_html(r, out)
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
