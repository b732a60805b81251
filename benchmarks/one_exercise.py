"""Benchmark: one exercise's reference notebook graded through a warm sandbox, split by step.
Prints figures; asserts nothing.

    python benchmarks/one_exercise.py [--exercise sampling] [--rounds 10]

Grades the reference notebook (``demo.fill.filled_notebook``) ``--rounds`` times in one warm
sandbox (``warm.StudentSandbox``, started and given time to import before timing) after an
untimed round (the grader's first-use costs), and prints per notebook:

* wall seconds and the grader's CPU seconds (``getrusage`` of this process);
* the sandbox's CPU seconds: every notebook's forked child and the fork server, measured with
  ``getrusage`` of reaped children once the sandbox is closed, less the same for a sandbox
  started, given the same time and closed without grading (its start and imports);
* the child's CPU seconds, from what each answer reports (``cpu_seconds``: ``process_time`` of
  the child while it handled the request; the fork of each notebook's child and its end are
  not in it), split into running the notebook's cells (``init``, ``run_to``) and answering the
  checks' requests (``call``, ``probe``, ...), with the number of exchanges of each kind and
  the wall seconds the grader waited for them.
"""
import argparse
import os
import resource
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover
from autograder.grading.workers import grade_job
from autograder.sandbox.limits import Limits
from autograder.submission.exchange import Exchange

SECRET = b"benchmark-secret"


def own_cpu():
    """CPU seconds (user + system) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def reaped_cpu():
    """CPU seconds (user + system) of this process's reaped descendants so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def idle_sandbox_cpu(rounds=3):
    """Mean CPU seconds of a warm sandbox started, left 3 s, and closed without grading."""
    from autograder.sandbox.warm import StudentSandbox
    k0 = reaped_cpu()
    for _ in range(rounds):
        with StudentSandbox(Limits()):
            time.sleep(3.0)
    return (reaped_cpu() - k0) / rounds


class Tally:
    """Exchanges by op: count, wall seconds waited, child CPU seconds reported."""

    def __init__(self):
        self.count, self.wall, self.cpu = defaultdict(int), defaultdict(float), defaultdict(float)

    def install(self):
        original = Exchange._exchange
        tally = self

        def timed(sub, message, seconds, more=None):
            op = message.get("op")
            if message.get("times"):
                op = f"{op} x{message['times']}"
            lines = []  # every answer line of a repeated call (each reports its own CPU seconds)

            def seen(answer):
                lines.append(answer)
                return more(answer)
            t0 = time.perf_counter()
            answer = original(sub, message, seconds, None if more is None else seen)
            tally.count[op] += 1
            tally.wall[op] += time.perf_counter() - t0
            for line in lines[:-1] if lines and lines[-1] is answer else lines:
                if isinstance(line.get("cpu_seconds"), float):
                    tally.cpu[op] += line["cpu_seconds"]
            if isinstance(answer, dict) and isinstance(answer.get("cpu_seconds"), float):
                tally.cpu[op] += answer["cpu_seconds"]
            return answer
        Exchange._exchange = timed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="sampling")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # as in the grading workers
    from autograder.checks import plugin
    from autograder.sandbox.warm import StudentSandbox
    plugin.keep_sessions()
    exercise = EXERCISES[args.exercise]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s000" / exercise.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(exercise), folder / exercise.notebook)
        job = discover(tmp)[0]
        with StudentSandbox(Limits()) as box:  # first-use costs, untimed
            result, failed = grade_job(job, SECRET, Limits(), box)
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()[0]:.2f}; "
              f"{exercise.name} reference: {result.score:g} of {result.max_score:g} points"
              f"{' (grader failure)' if failed else ''}")
        idle = idle_sandbox_cpu()
        tally = Tally()
        tally.install()
        k0 = reaped_cpu()
        with StudentSandbox(Limits()) as box:
            time.sleep(3.0)  # started ahead, as a class run's spare is
            c0, t0 = own_cpu(), time.perf_counter()
            for _ in range(args.rounds):
                grade_job(job, SECRET, Limits(), box)
            wall, grader = time.perf_counter() - t0, own_cpu() - c0
        sandbox = reaped_cpu() - k0 - idle
        n = args.rounds
        print(f"per notebook (mean of {n}): {wall / n:.3f} s wall; CPU: grader {grader / n:.3f} s, "
              f"sandbox {sandbox / n:.3f} s (its start, {idle:.3f} CPU s, left out), in all {(grader + sandbox) / n:.3f} s")
        cells = ("init", "run_to")
        for label, ops in (("cells", [o for o in tally.count if o in cells]),
                           ("checks' requests", [o for o in tally.count if o not in cells])):
            print(f"  {label}: child {sum(tally.cpu[o] for o in ops) / n:.3f} CPU s, "
                  f"waited {sum(tally.wall[o] for o in ops) / n:.3f} s")
            for o in sorted(ops, key=lambda o: -tally.wall[o]):
                print(f"    {o:14s} {tally.count[o] / n:7.1f} exchanges, child {tally.cpu[o] / n:.3f} CPU s, "
                      f"waited {tally.wall[o] / n:.3f} s")


if __name__ == "__main__":
    main()
