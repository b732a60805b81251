"""Benchmark: how long does each visible check cell take? Prints figures; asserts nothing.

    python benchmarks/visible_checks.py [NAME ...]

Executes each exercise's solution notebook (``source/<name>/<name>.ipynb``) top to bottom
with nbclient in a temporary folder, as a student's "Run All" would, and prints the time of
every visible check cell (nbgrader grade_id ``visible_<function>``) and of the summary cell,
from the kernel's own execution timestamps (``execute_input`` to ``execute_reply``), and
the slowest of them. The target is under 1 s per cell.
"""
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.core.registry import EXERCISES


def _seconds(cell):
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    parse = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def run(name):
    """Execute one solution notebook; returns ``[(grade_id, seconds)]`` of its visible cells."""
    exercise = EXERCISES[name]
    nb = nbformat.read(exercise.source_notebook, as_version=4)
    with tempfile.TemporaryDirectory(prefix=f"visible-{name}-") as tmp:
        env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
               "COURSE_SECRET": os.environ.get("COURSE_SECRET", "benchmark-secret"),
               "MPLCONFIGDIR": str(Path(tmp) / "mpl"), "MPLBACKEND": "agg"}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            t0 = time.perf_counter()
            NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=True,
                           resources={"metadata": {"path": tmp}}).execute()
            total = time.perf_counter() - t0
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    timed = [(c.metadata["nbgrader"]["grade_id"], _seconds(c)) for c in nb.cells
             if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("visible_")
             and c.metadata["nbgrader"]["grade_id"] != "visible_checker"]
    return timed, total


def main(names):
    slowest = ("", 0.0)
    for name in names or list(EXERCISES):
        timed, total = run(name)
        print(f"{name}: whole notebook {total:.1f} s")
        for grade_id, seconds in timed:
            print(f"    {grade_id:<32} {seconds * 1000:8.1f} ms")
            if seconds > slowest[1]:
                slowest = (f"{name}/{grade_id}", seconds)
    print(f"slowest visible check cell: {slowest[0]} {slowest[1] * 1000:.1f} ms (target: under 1000 ms)")


if __name__ == "__main__":
    main(sys.argv[1:])
