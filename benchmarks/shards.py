"""Benchmark: one class run against the same class in N shards side by side, and the merge. Prints; asserts nothing.

    python benchmarks/shards.py [--students 20] [--shards 2] [--jobs 2]

Builds a submitted/ tree (``grade_class.build_class``: every exercise per student, cycling
through the reference, the stubs and the realistic mistakes) and times, each as the command
line an instructor runs (a new process, interpreter start-up and preflight included):

1. one run: ``python -m autograder grade submitted/ --jobs J --gradebook none``;
2. N shard processes started together on this machine, each ``--shard K/N --jobs max(1, J // N)``
   (the same cores in all: on one machine shards only add start-up costs; the figure says how
   much, and a cluster gives each shard cores of its own);
3. the merge of the N shard folders (``python -m autograder merge``), alone.

The figures to expect on a cluster: a shard's time is about (its notebooks / J) x the time of
one notebook, plus its start-up; the class's time is that of the slowest shard plus the merge,
which grows with the number of notebooks (it writes every report) but not with N.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grade_class import build_class  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _run(args, env):
    return subprocess.Popen([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait(procs):
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"a run failed ({p.returncode}): {err[-2000:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2, help="workers of the single run (split among the shards)")
    args = parser.parse_args()
    env = {**os.environ, "COURSE_SECRET": "benchmark-shards"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        build_class(tmp / "submitted", args.students)
        notebooks = len(list((tmp / "submitted").glob("*/*/*.ipynb")))
        print(f"class: {args.students} students, {notebooks} notebooks; load before: {os.getloadavg()[0]:.2f}")

        t0 = time.perf_counter()
        _wait([_run(["grade", tmp / "submitted", "--out", tmp / "single", "--jobs", args.jobs, "--quiet",
                     "--gradebook", "none"], env)])
        single = time.perf_counter() - t0
        print(f"one run, --jobs {args.jobs}: {single:.1f} s")

        per_shard = max(1, args.jobs // args.shards)
        t0 = time.perf_counter()
        _wait([_run(["grade", tmp / "submitted", "--shard", f"{k}/{args.shards}", "--out", tmp / f"shard-{k}",
                     "--jobs", per_shard, "--quiet"], env) for k in range(1, args.shards + 1)])
        sharded = time.perf_counter() - t0
        print(f"{args.shards} shards side by side, --jobs {per_shard} each: {sharded:.1f} s "
              f"({sharded / single:.2f}x the one run)")

        t0 = time.perf_counter()
        _wait([_run(["merge", *(tmp / f"shard-{k}" for k in range(1, args.shards + 1)), "--out", tmp / "merged",
                     "--gradebook", "none", "--quiet"], env)])
        merged = time.perf_counter() - t0
        print(f"merge of {args.shards} shards: {merged:.1f} s ({merged / notebooks * 1000:.0f} ms a notebook)")
        same = (tmp / "merged" / "grades.csv").read_bytes() == (tmp / "single" / "grades.csv").read_bytes()
        print(f"merged grades.csv equal to the one run's: {same}; load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
