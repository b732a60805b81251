"""Benchmark: how long does grading a class take? Prints figures; asserts nothing.

    python benchmarks/grade_class.py [--students 40] [--jobs 2]

Builds a submitted/ tree in a temporary folder with ``--students`` students, each handing
in every exercise (cycling through the reference, the untouched stubs and every realistic
mistake of ``autograder.demo.mistakes``), grades it with ``class_run.grade_class`` (the one entry of a class run) on ``--jobs``
workers, and prints the wall time, notebooks per second, the slowest notebooks, and the time
a class of 300 would take at that rate.
"""
import argparse
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.grading.class_run import ClassRun, RunOptions, grade_class
from autograder.grading.discover import discover
from autograder.sandbox.limits import Limits


def build_class(root, students):
    plans = ["reference", "stubs"] + all_mistakes()
    for i in range(students):
        plan = plans[i % len(plans)]
        for exercise in EXERCISES.values():
            if plan == "stubs":
                nb = filled_notebook(exercise, stubs=exercise.functions)
            elif plan == "reference" or plan.exercise != exercise.name:
                nb = filled_notebook(exercise)
            else:
                nb = filled_notebook(exercise, {plan.function: plan.code})
            folder = Path(root) / f"s{i:03d}" / exercise.assignment
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / exercise.notebook)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        build_class(tmp, args.students)
        jobs = discover(tmp)
        t0 = time.perf_counter()
        options = RunOptions(out=Path(tmp) / "graded", workers=args.jobs, resume=False)
        run = grade_class(ClassRun(options, Limits(), secret=b"benchmark", jobs=jobs))
        results, failures = run.results, run.failures  # the timing includes the preflight and the reports
        wall = time.perf_counter() - t0
    n = len(results)
    print(f"notebooks graded: {n} ({args.students} students x {len(EXERCISES)} exercises), workers: {args.jobs}")
    print(f"wall time: {wall:.1f} s; {n / wall:.2f} notebooks/s; grader failures: {failures}")
    per = sorted(results, key=lambda r: -r.seconds)
    print("per-notebook seconds (inside a worker): median "
          f"{per[len(per) // 2].seconds:.2f}, max {per[0].seconds:.2f} ({per[0].student_id}/{per[0].assignment_id})")
    for name in EXERCISES:
        times = sorted(r.seconds for r in results if r.assignment_id == name)
        print(f"  {name:<18} median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")
    print(f"projected for 300 students x {len(EXERCISES)} exercises: {300 * len(EXERCISES) / (n / wall) / 60:.1f} min")


if __name__ == "__main__":
    main()
