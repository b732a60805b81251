"""Benchmark: near-copies alone (``reports/near_copies.find``) on the synthetic class of
``benchmarks/load_class.py``: wall time and peak memory of the comparison, per class size. Asserts
nothing.

    python benchmarks/near_copies_scale.py [--students 146,1429] [--distinct]

The class is ``after_grading.py``'s (``load_class.build`` without the hostile notebooks; with
``--distinct``, ``after_grading.make_distinct``: no two students of an assignment hand in the same
code). ``find`` runs in a child process over the class's notebooks (each student's notebook of each
assignment, as the grading command gives them after grading), and reports its own time, the
child's resident memory before ``find`` (imports done) and its peak during ``find`` (``VmHWM`` of
``/proc/self/status``, reset through ``/proc/self/clear_refs`` just before), and what
``near_copies.json`` says was compared. Run it with another checkout's ``autograder`` first on ``PYTHONPATH`` to measure that
one's near-copies on the same class.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from after_grading import make_distinct  # noqa: E402
from load_class import build  # noqa: E402

CHILD = """
import json, sys, time
from pathlib import Path
from types import SimpleNamespace
import copydetect, nbformat
from autograder.grading.discover import discover
from autograder.reports import near_copies
root = Path(sys.argv[1])
jobs = discover(root / "submitted")
rows = [SimpleNamespace(student_id=j.student_id, assignment_id=j.exercise.assignment, notebook=j.path.name)
        for j in jobs]
def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size (VmHWM) starts again from the resident size now
before = status("VmRSS")
t0 = time.perf_counter()
path = near_copies.find(jobs, rows, root)
seconds = time.perf_counter() - t0
after = status("VmHWM")
data = json.loads(path.read_text(encoding="utf-8"))
items = sum(len(v) for v in data["assignments"].values())
print(json.dumps({"seconds": seconds, "rss_before": before * 1024, "rss_after": after * 1024,
                  "bytes": path.stat().st_size, "items": items, "compared": data.get("compared", {})}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default="146,1429", help="class sizes in students, comma-separated")
    parser.add_argument("--distinct", action="store_true", help="no two students hand in the same code")
    args = parser.parse_args()
    import autograder
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; autograder from "
          f"{Path(autograder.__file__).parent}; load average {os.getloadavg()[0]:.1f}")
    for students in [int(s) for s in args.students.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            expect = build(root / "submitted", students)
            for key in [k for k in expect if k[0].startswith("zz_hostile_")]:
                shutil.rmtree(root / "submitted" / key[0], ignore_errors=True)
            if args.distinct:
                make_distinct(root / "submitted")
            proc = subprocess.run([sys.executable, "-c", CHILD, str(root)], capture_output=True, text=True)
            if proc.returncode:
                print(proc.stderr[-2000:])
                return 1
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            compared = sum(c.get("compared", 0) for c in got["compared"].values())
            left = sum(c.get("not compared", 0) for c in got["compared"].values())
            print(f"{students} students{' (distinct codes)' if args.distinct else ''}: find {got['seconds']:.1f} s, "
                  f"peak {got['rss_after'] / 2 ** 20:.1f} MiB ({got['rss_before'] / 2 ** 20:.1f} MiB resident before find), "
                  f"near_copies.json {got['bytes'] / 2 ** 20:.1f} MiB, {got['items']} items; "
                  f"comparisons {compared or '(not counted)'}, pairs of codes not compared {left}; "
                  f"load average now {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
