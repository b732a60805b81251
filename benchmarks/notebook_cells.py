"""Benchmark: how long does each cell of a solution notebook take? Prints figures; asserts nothing.

    python benchmarks/notebook_cells.py [NAME ...]     # default: every exercise

Runs each exercise's source notebook (reference solutions filled in) top to bottom with
nbclient, as an instructor or a student doing Restart & Run All would, and prints the time of
every code cell with its kind: ``solution``, ``hidden`` (a hidden-test cell, run in the
kernel as under ``nbgrader autograde``), ``demo`` (an instructor demo, skipped when grading)
or ``visible`` (a self-check or plot). The target for visible cells is under 1 s each.
"""
import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.core.registry import EXERCISES, find
from autograder.course.build import DEMO_TAG


def kind(cell):
    meta = cell.metadata.get("nbgrader", {})
    if DEMO_TAG in cell.metadata.get("tags", []):
        return "demo"
    if meta.get("grade"):
        return "hidden"
    return "solution" if meta.get("solution") else "visible"


def seconds(cell):
    """Wall time of one executed cell, from the timestamps nbclient records."""
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    return (datetime.fromisoformat(end.replace("Z", "+00:00"))
            - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="exercises (default: all)")
    args = parser.parse_args()
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    os.environ.setdefault("COURSE_SECRET", "benchmark")
    for name in args.names or list(EXERCISES):
        exercise = find(name)
        nb = nbformat.read(exercise.source_notebook, as_version=4)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            NotebookClient(nb, timeout=300, kernel_name="python3",
                           resources={"metadata": {"path": tmp}}).execute()
            total = time.perf_counter() - t0
        cells = [(i, kind(c), seconds(c), c.source.splitlines()[0] if c.source else "")
                 for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        print(f"{name}: {total:.1f} s in all (kernel start included)")
        for i, what, s, first in cells:
            print(f"  cell {i:2d}  {what:8}  {s:6.3f} s  {first[:60]}")
        visible = [s for _, what, s, _ in cells if what == "visible"]
        print(f"  slowest visible cell: {max(visible):.3f} s; instructor demos: "
              f"{sum(s for _, what, s, _ in cells if what == 'demo'):.1f} s")


if __name__ == "__main__":
    main()
