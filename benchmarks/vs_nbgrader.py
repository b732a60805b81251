"""Benchmark: one class graded by serial ``nbgrader autograde`` and by this grader, in one run.

    python benchmarks/vs_nbgrader.py [--students 16] [--jobs 1 2] [--corpus]

Builds a ``submitted/`` tree (``--students`` students, each handing in every exercise,
cycling through the reference, the untouched stubs and every catalogued mistake, as
``benchmarks/grade_class.py`` does; with ``--corpus``, the parity corpus of
``autograder/demo/corpus.py`` instead), grades it with ``nbgrader autograde`` in one process
(one kernel per notebook, the way ``nbgrader autograde <assignment>`` runs), then with
``grade_all`` (what ``python -m autograder grade`` runs) at each ``--jobs``, with full
execution of every notebook. Prints both wall times, their ratio, the CPU seconds each used
(this process and everything it started: less sensitive than wall time to other work on a
shared machine), and on how many notebooks the points per function agree. Asserts nothing.
"""
import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grade_class import build_class  # noqa: E402

from autograder.demo.corpus import corpus, nbgrader_autograde, write_submissions  # noqa: E402
from autograder.discover import discover  # noqa: E402
from autograder.exercises import EXERCISES  # noqa: E402
from autograder.grade import grade_all  # noqa: E402
from autograder.sandbox import Limits  # noqa: E402

SECRET = b"benchmark-secret"


def cpu_seconds():
    """User + system CPU seconds of this process and of its finished descendants."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _by_function(result):
    points = {}
    for c in result.checks:
        points[c.function] = points.get(c.function, 0.0) + c.score
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--corpus", action="store_true", help="grade the parity corpus instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.corpus:
            entries = corpus()
            write_submissions(tmp / "nbgrader-submitted", entries, nbgrader=True)
            write_submissions(tmp / "submitted", entries)
            what = f"the parity corpus ({len(entries)} hand-ins)"
        else:
            build_class(tmp / "submitted", args.students)
            what = f"{args.students} students x {len(EXERCISES)} exercises"
        nbgrader_tree = tmp / ("nbgrader-submitted" if args.corpus else "submitted")
        c0 = cpu_seconds()
        theirs, nbgrader_seconds = nbgrader_autograde(tmp / "nbgrader", nbgrader_tree, SECRET)
        nbgrader_cpu = cpu_seconds() - c0  # (generate_assignment included: a few seconds)
        n = len(theirs)
        print(f"class: {what}, {n} notebooks")
        print(f"nbgrader autograde, serial: {nbgrader_seconds:.1f} s ({nbgrader_seconds / n:.2f} s a notebook), "
              f"{nbgrader_cpu:.1f} CPU s")
        for jobs in args.jobs:
            t0, c0 = time.perf_counter(), cpu_seconds()
            results, failures = grade_all(discover(tmp / "submitted"), SECRET, Limits(), jobs)
            ours_seconds, ours_cpu = time.perf_counter() - t0, cpu_seconds() - c0
            agree = sum(_by_function(r) == theirs.get((r.student_id, r.assignment_id)) for r in results)
            print(f"python -m autograder grade --jobs {jobs}: {ours_seconds:.1f} s "
                  f"({ours_seconds / len(results):.2f} s a notebook); nbgrader / this = "
                  f"{nbgrader_seconds / ours_seconds:.1f}x; {ours_cpu:.1f} CPU s "
                  f"({nbgrader_cpu / ours_cpu:.1f}x less); same points per function on {agree} of "
                  f"{len(results)} notebooks; grader failures: {failures}")


if __name__ == "__main__":
    main()
