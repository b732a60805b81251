"""Benchmark: where does grading one notebook spend its time? Prints a profile; asserts nothing.

    python benchmarks/profile_grading.py [--rounds 2] [--top 15] [--no-perf]

1. ``python -X importtime`` of the child (``child.main`` with numpy), the floor every cold
   notebook pays: the imports that take longest, self and cumulative microseconds.
2. cProfile of ``workers.grade_job`` in this process over one reference student's notebooks
   (one per exercise, ``--rounds`` times): the functions with the most cumulative time.
   The child's own work shows up as time waiting in ``select``.
3. ``perf stat`` (when ``perf`` is installed and allowed) of one child start: task-clock,
   context switches, page faults.

Also prints, for the same notebooks, the mean wall time per notebook cold (one sandbox per
notebook, ``grade_job``) and warm (one sandbox per student, ``warm.StudentSandbox``; with its
start counted, and started ahead as a class run's spare is), against the
interpreter-plus-numpy floor (``python -I -c "import numpy"``).
"""
import argparse
import cProfile
import io
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover
from autograder.grading.workers import grade_job
from autograder.sandbox.limits import Limits

SECRET = b"benchmark-secret"
CHILD = Path(__file__).resolve().parent.parent / "autograder"


def floor_seconds(rounds=5):
    """Median wall seconds of ``python -I -c "import numpy"`` (the interpreter-plus-numpy floor)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "import numpy"], check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def importtime(top):
    code = f"import sys; sys.path.insert(0, {str(CHILD)!r}); import child.main, child.server, numpy"
    err = subprocess.run([sys.executable, "-I", "-X", "importtime", "-c", code],
                         capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), int(m.group(1)), m.group(4), len(m.group(3))))
    total = max((r[0] for r in rows if r[3] == 1), default=0)
    print(f"## python -X importtime of the child (child.main, child.server, numpy): "
          f"{sum(r[0] for r in rows if r[3] == 1) / 1000:.0f} ms of imports, top {top} by cumulative time")
    print("```")
    print(f"{'cumulative us':>14} {'self us':>9}  module")
    for cum, self_, name, _depth in sorted(rows, key=lambda r: -r[0])[:top]:
        print(f"{cum:>14} {self_:>9}  {name}")
    print("```")
    return total


def class_jobs(root):
    for exercise in EXERCISES.values():
        folder = Path(root) / "s000" / exercise.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(exercise), folder / exercise.notebook)
    return discover(root)


def _relative(text):
    """``text`` without this machine's paths: site-packages/..., <stdlib>/..., the project as ./
    (docs/benchmarks.md shows the profile; the build machine's folders mean nothing to a reader)."""
    import site
    import sysconfig
    for folder, shown in [*[(p, "site-packages") for p in site.getsitepackages()],
                          (sysconfig.get_paths()["stdlib"], "<stdlib>"), (str(PROJECT_ROOT), ".")]:
        text = text.replace(str(folder).rstrip("/") + "/", shown + "/")
    return text


def profile_cold(jobs, rounds, top):
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for _ in range(rounds):
        for job in jobs:
            grade_job(job, SECRET, Limits())
    prof.disable()
    wall = (time.perf_counter() - t0) / (rounds * len(jobs))
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    text = out.getvalue()
    start = text.find("   ncalls")
    print(f"## cProfile of grade_job, one sandbox per notebook ({rounds} x {len(jobs)} reference notebooks), "
          f"top {top} by cumulative time")
    print("```")
    print(_relative(text[start:]).rstrip())
    print("```")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    text = out.getvalue()
    print(f"## the same, top {top} by own time (``select``: waiting for the child)")
    print("```")
    print(_relative(text[text.find("   ncalls"):]).rstrip())
    print("```")
    return wall


def warm_seconds(jobs, rounds):
    """Mean wall seconds a notebook through a warm sandbox: ``(with the sandbox's start,
    steady state)``. The first counts each round's fork server start (its imports) in the
    round, as one student graded alone would pay; the second is what a class run pays per
    notebook once the spare sandbox is started ahead (``spare.WorkerSandboxes.for_student``): each round's
    sandbox is started and given a few seconds to import before the round is timed. An
    untimed round first pays the grader's own first-use costs (imports, reference set-up,
    collecting the checks: one kept pytest session per exercise, as in a grading worker)."""
    from autograder.checks import plugin
    from autograder.sandbox.warm import StudentSandbox
    plugin.keep_sessions()  # as a grading worker does: one pytest session per exercise
    with StudentSandbox(Limits()) as box:
        for job in jobs:
            grade_job(job, SECRET, Limits(), box)
    t0 = time.perf_counter()
    for _ in range(rounds):
        with StudentSandbox(Limits()) as box:
            for job in jobs:
                grade_job(job, SECRET, Limits(), box)
    cold_start = (time.perf_counter() - t0) / (rounds * len(jobs))
    steady = 0.0
    for _ in range(rounds):
        with StudentSandbox(Limits()) as box:
            time.sleep(3.0)  # started ahead, as the spare is
            t0 = time.perf_counter()
            for job in jobs:
                grade_job(job, SECRET, Limits(), box)
            steady += time.perf_counter() - t0
    return cold_start, steady / (rounds * len(jobs))


def perf_stat():
    if shutil.which("perf") is None:
        print("perf: not installed")
        return
    code = f"import sys; sys.path.insert(0, {str(CHILD)!r}); import child.main, child.server, numpy"
    proc = subprocess.run(["perf", "stat", "-e", "task-clock,context-switches,page-faults", "--",
                           sys.executable, "-I", "-c", code], capture_output=True, text=True)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "Performance counter" not in ln]
    print("## perf stat of one child start (interpreter, numpy, child code)")
    print("```")
    print("\n".join(lines) if proc.returncode == 0 else f"perf stat failed: {proc.stderr.strip()[:300]}")
    print("```")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-perf", action="store_true")
    parser.add_argument("--no-warm", action="store_true")
    args = parser.parse_args()
    importtime(args.top)
    if not args.no_perf:
        perf_stat()
    with tempfile.TemporaryDirectory() as tmp:
        jobs = class_jobs(tmp)
        cold = profile_cold(jobs, args.rounds, args.top)
        floor = floor_seconds()
        print(f"floor (python -I -c 'import numpy'): {floor:.3f} s")
        print(f"cold, one sandbox per notebook (under cProfile): {cold:.3f} s a notebook = {cold / floor:.1f}x the floor")
        if not args.no_warm:
            started, steady = warm_seconds(jobs, args.rounds)
            print(f"warm, one sandbox per student, its start counted: {started:.3f} s a notebook = "
                  f"{started / floor:.1f}x the floor")
            print(f"warm, sandbox started ahead (a class run's spare): {steady:.3f} s a notebook = "
                  f"{steady / floor:.2f}x the floor")


if __name__ == "__main__":
    main()
