"""Benchmark: where the CPU time of a class goes. Prints figures; asserts nothing.

    python benchmarks/cpu_accounting.py [--students 12]

Grades a class built as ``benchmarks/load_class.py`` builds it (its hostile notebooks left
out) in this process, one warm sandbox per student (``warm.StudentSandbox``), and splits the
CPU seconds (user + system) into: the grader (this process: pytest, the checks, the
reference computations, decoding answers) and the sandboxes (the fork server's start, its
imports, and every notebook's forked process), measured with ``getrusage`` as each
sandbox is closed and reaped. Also the CPU of one fork server start alone (numpy only, and
with pyplot, tiktoken or both loaded for a notebook that needs them: ``sandbox/needs.py``),
and each exercise's mean wall time per notebook. On a machine with N cores a class cannot be graded
faster than (its CPU seconds) / N.
"""
import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_class import build  # noqa: E402

from autograder.grading.discover import discover  # noqa: E402
from autograder.grading.workers import grade_job  # noqa: E402
from autograder.sandbox.limits import Limits
from autograder.sandbox.matplotlib_cache import prefill  # noqa: E402
from autograder.sandbox.warm import StudentSandbox  # noqa: E402

SECRET = b"benchmark-secret"


def cpu():
    """``(this process's CPU seconds, its reaped descendants' CPU seconds)``."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def start_cpu(load=(), rounds=3):
    """Mean CPU seconds ``(in the sandbox, in the grader)`` of one fork server start that then
    imports the optional groups ``load`` (``child/forkserver.py``'s OPTIONAL) for one child,
    which exits at once; the sandbox is closed and reaped before the next."""
    own0, kids0 = cpu()
    for _ in range(rounds):
        with StudentSandbox(Limits()) as box:
            time.sleep(2.0)  # its fork server imports meanwhile
            if load:
                r, w = os.pipe()
                child = box.spawn((r, w), load)
                os.close(r)
                os.close(w)  # the child reads an empty setup line and exits
                child.end(5.0)
    own1, kids1 = cpu()
    return (kids1 - kids0) / rounds, (own1 - own0) / rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=12)
    args = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # as in the grading workers (pool.py)
    from autograder.checks import plugin
    plugin.keep_sessions()  # as a grading worker does (grade._grade_student_in_worker)
    prefill()
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "submitted", args.students)
        jobs = [j for j in discover(Path(tmp) / "submitted") if not j.student_id.startswith("zz_")]
        with StudentSandbox(Limits()) as box:  # the grader's first-use costs, not counted
            for job in jobs[:6]:
                grade_job(job, SECRET, Limits(), box)
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
              f"load average {os.getloadavg()[0]:.1f}")
        for load in ((), ("matplotlib",), ("tiktoken",), ("matplotlib", "tiktoken")):
            server, grader = start_cpu(load)
            what = " and ".join({"matplotlib": "pyplot", "tiktoken": "tiktoken with its encoding"}[g] for g in load)
            print(f"one fork server start (interpreter, numpy, the child's code{', then ' + what if what else ''}): "
                  f"{server:.3f} CPU s in the sandbox, {grader:.3f} in the grader")
            if not load:
                plain = server
        server = plain  # what a student whose notebooks need neither pays (the optional loads come on top)
        students = {}
        for job in jobs:
            students.setdefault(job.student_id, []).append(job)
        own0, kids0 = cpu()
        t0 = time.perf_counter()
        walls = {}
        for student_jobs in students.values():
            with StudentSandbox(Limits()) as box:
                for job in student_jobs:
                    t = time.perf_counter()
                    grade_job(job, SECRET, Limits(), box)
                    walls.setdefault(job.exercise.name, []).append(time.perf_counter() - t)
        own1, kids1 = cpu()
        n, wall = len(jobs), time.perf_counter() - t0
        sandboxes = kids1 - kids0
        notebooks = sandboxes - server * len(students)
        print(f"{n} notebooks of {len(students)} students in {wall:.1f} s of wall time, one after another")
        print(f"  grader: {own1 - own0:.1f} CPU s ({(own1 - own0) / n:.3f} a notebook)")
        print(f"  sandboxes: {sandboxes:.1f} CPU s: {len(students)} fork server starts (about "
              f"{server * len(students):.1f}) and the notebooks' processes (about {notebooks:.1f}, "
              f"{notebooks / n:.3f} a notebook)")
        print(f"  in all {(own1 - own0 + sandboxes) / n:.3f} CPU s a notebook")
        for name, values in walls.items():
            print(f"  {name:18s} {sum(values) / len(values):.3f} s a notebook (wall, mean of {len(values)})")


if __name__ == "__main__":
    main()
