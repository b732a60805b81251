"""Benchmark: time and size of the class report for a large class. Prints figures; asserts nothing.

    python benchmarks/class_report.py [--students 300] [--repeat 3]

Writes a synthetic graded folder into a temporary directory: for every student and every
exercise of the course, a results.json (``outputs.write_results``, as a class run writes
it) and a one-line report.html, with the course's real check names and points
(``declared.check_metas``). Each student fails each check with probability 0.2; a failure of a
function that the demo's mistakes catalogue covers names one of its mistakes (the
catalogue's ``feedback`` phrase), so the mistakes table has many rows of many students.
Then times ``class_report.write_all`` (reading every results.json, writing class.html and
the two CSVs) and prints the size of class.html. Target: under 5 s for 300 students.
"""
import argparse
import random
import tempfile
import time
from pathlib import Path

from autograder.checks.declared import check_metas
from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.demo.mistakes import all_mistakes
from autograder.grading.outputs import write_results
from autograder.reports.class_report import write_all


def synthetic_class(out, students, seed=0, fail_rate=0.2):
    """Write ``students`` x every exercise results.json (+ report.html) under ``out``.

    Returns: the number of results.json files written."""
    rng = random.Random(seed)
    named = {}
    for m in all_mistakes():
        named.setdefault((m.exercise, m.function), []).append(m.feedback)
    written = 0
    for i in range(students):
        student = f"s{i:04d}"
        for name, exercise in EXERCISES.items():
            checks = []
            for meta in check_metas(exercise):
                if rng.random() >= fail_rate:
                    checks.append(CheckResult(meta.function, meta.name, meta.points, meta.points, ""))
                    continue
                choices = named.get((name, meta.function), [])
                mistakes = [rng.choice(choices)] if choices and rng.random() < 0.7 else []
                checks.append(CheckResult(meta.function, meta.name, 0.0, meta.points, "wrong",
                                          details={"what": "value", "expected": 1, "got": 2, "mistakes": mistakes}))
            result = NotebookResult(student, exercise.assignment, exercise.notebook, checks, seconds=1.0)
            path = write_results(result, out)
            path.with_name("report.html").write_text("<!DOCTYPE html><p>report</p>\n", encoding="utf-8")
            written += 1
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="class-report-") as tmp:
        graded = Path(tmp) / "graded"
        t0 = time.perf_counter()
        files = synthetic_class(graded, args.students)
        print(f"wrote {files} results.json files ({args.students} students x {len(EXERCISES)} assignments) "
              f"in {time.perf_counter() - t0:.1f} s")
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            written = write_all(graded)
            times.append(time.perf_counter() - t0)
        size = written["html"].stat().st_size
        print(f"class report: best {min(times):.2f} s, worst {max(times):.2f} s over {args.repeat} runs "
              f"(target: under 5 s)")
        print(f"class.html: {size / 1e6:.2f} MB; class_checks.csv: {written['checks'].stat().st_size / 1e3:.1f} kB; "
              f"class_mistakes.csv: {written['mistakes'].stat().st_size / 1e3:.1f} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
