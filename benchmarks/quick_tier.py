"""Benchmark: how long does the quick tier take? Prints figures; asserts nothing.

    python benchmarks/quick_tier.py [--durations N] [pytest args ...]

Runs the quick tier (plain ``python -m pytest``: every test not marked ``slow``) once, in a
fresh interpreter from the repository root, and prints its wall time, pytest's summary line,
the machine's load average before and after (``os.getloadavg``: the machine may be shared, and
a loaded machine inflates the figure) and the ``N`` slowest tests (pytest's ``--durations``).
The target is at most 2 minutes on a quiet machine (``docs/development.md``); record the
figure with its load in ``docs/benchmarks.md``.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(durations: int = 40, extra: tuple = ()) -> dict:
    """Run the quick tier once.

    Args:
        durations: how many of the slowest tests pytest lists (``--durations``).
        extra: more pytest arguments (e.g. ``("tests/course/test_build.py",)``).
    Returns:
        ``{"seconds": float wall time, "returncode": int, "summary": pytest's last line (str),
        "slowest": [str lines of --durations], "failed": [pytest's FAILED/ERROR lines],
        "load_before": (1, 5, 15 min), "load_after": ...}``.
    """
    load_before = os.getloadavg()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", f"--durations={durations}", *extra],
                          cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = proc.stdout.splitlines()
    summary = next((line for line in reversed(lines) if line.strip()), "")
    try:
        first = next(i for i, line in enumerate(lines) if "slowest" in line and "durations" in line) + 1
    except StopIteration:
        first = len(lines)
    slowest = [line for line in lines[first:] if line.strip() and line[0].isdigit()]
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return {"seconds": seconds, "returncode": proc.returncode, "summary": summary, "slowest": slowest,
            "failed": failed,
            "load_before": load_before, "load_after": os.getloadavg()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--durations", type=int, default=40, help="slowest tests to list (default 40)")
    args, extra = parser.parse_known_args(argv)
    result = run(args.durations, tuple(extra))
    print("\n".join(result["slowest"]))
    if result["failed"]:
        print("\n" + "\n".join(result["failed"]))
    print(f"\nquick tier: {result['seconds']:.0f} s ({result['seconds'] / 60:.1f} min); {result['summary']}")
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(
        *result["load_before"], *result["load_after"]))
    return result["returncode"]


if __name__ == "__main__":
    sys.exit(main())
