"""Benchmark: the grading command's pass after grading (gradebook, students' reports, identical
flags, near-copies, grades.csv, the class report) on synthetic classes of 119, 1,022 and 10,003
notebooks (17, 146 and 1,429 students): wall time and the command's peak memory. Asserts nothing.

    python benchmarks/after_grading.py [--students 17,146,1429] [--jobs 2] [--distinct]

Each class is the class of ``benchmarks/load_class.py`` (``build``: a notebook per exercise a student,
students cycling through the reference, honest styles, the stubs and every catalogued mistake)
without its hostile notebooks (should a record not match, a notebook would run, and these would
run unconfined: the records are checked before the command starts, and it is not started unless
all match), and every notebook's result is written beforehand as the resume record the
grading command looks for (``grading/resume.Store.save``; synthetic results: full marks for the
reference, the stub's message for the stubs, the failed checks of a mistake's function with its
name and two small grids of values). So the command grades nothing: it finds every notebook
unchanged since "the last run" and spends its time and memory on what follows the grading.

``--distinct``: every notebook's first solution cell gets one more line, a constant of its own
(``CHECK_VALUE = <student number>``), so no two students of an assignment hand in the same code
(copydetect keeps numbers when it normalises code) while every pair of them still shares nearly
all of it: the many-codes case of near-copies (``reports/near_groups.py``).

The command is ``python -m autograder grade submitted --out OUT --quiet --gradebook none
--unconfined`` (unconfined: no student code runs, and the resume records are keyed by the
limits), run in a child process that reports its own peak resident memory when it ends: ``VmHWM``
of ``/proc/self/status`` (the command alone, not any process it started). Not ``ru_maxrss``: on
Linux an exec'd process inherits in it the high-water mark of the process that started it (the
kernel keeps the old image's peak at ``execve``), and this script, having just written the class's
records, is larger at 1,022 notebooks than at 119: ``ru_maxrss`` read 120.9 MiB where the
command's own peak was 111 MiB (2026-12-02).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_class import RUN, build, plans  # noqa: E402  (the benchmark's class, the command telling its peak)

from autograder.checks.declared import check_metas  # noqa: E402
from autograder.core.vocabulary import (
    CheckResult,
    NotebookResult,  # noqa: E402
)
from autograder.grading.discover import discover  # noqa: E402
from autograder.grading.resume import Store  # noqa: E402
from autograder.sandbox.limits import Limits  # noqa: E402


def synthetic_result(job, plan_text: str) -> NotebookResult:
    """A made-up ``NotebookResult`` for ``job`` as its plan (``load_class.plan_name``) would score."""
    exercise = job.exercise
    mistake = next((m for p in plans() if p[0] == "mistake" and f"mistake {p[1].id}" == plan_text
                    for m in [p[1]]), None)
    grid = np.arange(12.0).reshape(3, 4) / 10
    checks = []
    for meta in check_metas(exercise):
        if plan_text == "stubs":
            checks.append(CheckResult(meta.function, meta.name, 0.0, meta.points,
                                      f"{meta.function} still raises NotImplementedError: write its body"))
        elif mistake is not None and mistake.exercise == exercise.name and meta.function == mistake.function:
            text = mistake.label.replace("_", " ")
            checks.append(CheckResult(meta.function, meta.name, 0.0, meta.points,
                                      f"wrong values. That is the value you get when you {text}.",
                                      details={"what": f"{meta.function}(x)", "expected": grid, "got": grid + 0.5,
                                               "mistakes": [text]}))
        else:
            checks.append(CheckResult(meta.function, meta.name, meta.points, meta.points, ""))
    return NotebookResult(job.student_id, exercise.assignment, job.path.name, checks, [], 0.05, set(),
                          [], "unconfined")


def make_distinct(submitted: Path) -> None:
    """Give each notebook under ``submitted`` (``sNNN/assignment/notebook``) a line of its own at the
    end of its first solution cell: ``CHECK_VALUE = NNN``."""
    for path in sorted(submitted.glob("s*/*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        cell = next((c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")), None)
        if cell is not None:
            cell.source = cell.source.rstrip("\n") + f"\n\nCHECK_VALUE = {int(path.parts[-3][1:])}\n"
            nbformat.write(nb, path)


def make_class(root: Path, students: int, secret: bytes, distinct: bool = False):
    """Write the class of ``students`` students (``load_class.build``: a notebook per exercise each,
    the hostile ones left out; ``distinct``: ``make_distinct``) under ``root/submitted`` and a resume
    record for each under ``root/out``; returns the number of notebooks."""
    expect = build(root / "submitted", students)
    for key in [k for k in expect if k[0].startswith("zz_hostile_")]:  # nothing hostile: nothing may run
        shutil.rmtree(root / "submitted" / key[0])
        del expect[key]
    if distinct:
        make_distinct(root / "submitted")
    store = Store(root / "out", secret, Limits(confine=False))
    jobs = discover(root / "submitted")
    for job in jobs:
        store.save(job, synthetic_result(job, expect[(job.student_id, job.exercise.assignment)][0]))
    check_recorded(root, secret, jobs)
    return len(expect)


def check_recorded(root: Path, secret: bytes, jobs) -> None:
    """Stop (``SystemExit``) unless the grading command will find every notebook recorded: a stale
    record (the grader's code changed since it was written) would have the notebook graded for real."""
    store = Store(root / "out", secret, Limits(confine=False))
    stale = [job.path for job in jobs if store.load(job) is None]
    if stale:
        raise SystemExit(f"{len(stale)} resume records do not match (e.g. {stale[0]}): the grader changed? "
                         "Nothing is run.")


def run(root: Path, secret_file: Path, jobs: int):
    """Run the grading command over ``root``; returns ``(seconds, peak bytes, last line)``."""
    cmd = [sys.executable, "-c", RUN, "grade", str(root / "submitted"), "--out", str(root / "out"), "--quiet",
           "--gradebook", "none", "--unconfined", "--jobs", str(jobs), "--secret-file", str(secret_file)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    peak = next((int(line.split()[1]) * 1024 for line in proc.stderr.splitlines() if line.startswith("peak_kib ")),
                0)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-400:]
    return seconds, peak, last, proc.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default="17,146,1429", help="class sizes in students, comma-separated")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--distinct", action="store_true",
                        help="no two students of an assignment hand in the same code (make_distinct)")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f}")
    peaks = {}
    for students in [int(s) for s in args.students.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            secret = os.urandom(32).hex().encode()  # as seeds.load_secret reads a secret file
            (root / "secret").write_bytes(secret)
            t0 = time.perf_counter()
            n = make_class(root, students, secret, args.distinct)
            made = time.perf_counter() - t0
            check_recorded(root, secret, discover(root / "submitted"))  # again, just before the command
            seconds, peak, last, status = run(root, root / "secret", args.jobs)
            peaks[n] = peak
            print(f"{n} notebooks ({students} students; class and records made in {made:.0f} s): "
                  f"{seconds:.1f} s wall, peak memory of the grading command {peak / 2 ** 20:.1f} MiB, "
                  f"exit status {status}; load average now {os.getloadavg()[0]:.1f}")
            print(f"  its summary: {last}")
            near = root / "out" / "near_copies.json"
            if near.is_file():
                with near.open("rb") as f:  # its last lines: what each assignment compared
                    f.seek(max(0, near.stat().st_size - 4000))
                    tail = f.read().decode("utf-8", "replace")
                compared = json.loads("{" + tail[tail.rindex('"compared": {'):]) if '"compared": {' in tail else {}
                print(f"  near_copies.json: {near.stat().st_size / 2 ** 20:.1f} MiB; compared: "
                      + "; ".join(f"{a} {c}" for a, c in compared.get("compared", {}).items()))
    if len(peaks) > 1:
        low = min(peaks)
        for n in sorted(peaks)[1:]:
            print(f"peak at {n} / peak at {low}: {peaks[n] / peaks[low]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
