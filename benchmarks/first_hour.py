"""Benchmark: README's first command on a checkout that has never been set up. Prints figures;
asserts nothing.

    python benchmarks/first_hour.py [--keep]

Clones this repository's committed ``HEAD`` into a temporary folder (``git clone``: no
``.venv``, no caches, no course secret, no ``demo-class/``), runs ``bash scripts/demo.sh`` there
with pip's own cache off (``PIP_NO_CACHE_DIR=1``: a new machine has none), and prints when each
line of its output came (seconds since the start), how long setting up took (up to setup's
"setup done" line), how long the demo took after it, the whole command's wall time, the size of
the ``.venv`` it made, the CPU and core count, and the load average before and after
(``os.getloadavg``: a shared machine inflates every figure). System packages (bubblewrap,
chromium ...) are installed only when missing, so on a machine that has them their time is not in
the figure. The clone is removed at the end unless ``--keep``. Record the figures with their load in
``docs/benchmarks.md``; ``docs/development.md`` ("The first hour of a new instructor") rounds them.
"""
import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _size_mb(folder: Path) -> float:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
        except OSError:
            pass
    return total / 1e6


def run(keep: bool = False) -> dict:
    """Clone ``HEAD`` and run ``bash scripts/demo.sh`` in the clone once.

    Returns:
        ``{"lines": [(seconds, line)], "setup_s": float or None, "total_s": float,
        "returncode": int, "venv_mb": float, "load_before": (1, 5, 15 min), "load_after": ...,
        "clone": str path (removed unless keep)}``.
    """
    folder = Path(tempfile.mkdtemp(prefix="first-hour-"))
    clone = folder / "course"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_NO_CACHE_DIR"] = "1"
    load_before = os.getloadavg()
    lines, setup_s = [], None
    start = time.perf_counter()
    proc = subprocess.Popen(["bash", "scripts/demo.sh"], cwd=clone, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for line in proc.stdout:
        now = time.perf_counter() - start
        lines.append((now, line.rstrip("\n")))
        if line.startswith("setup done") and setup_s is None:
            setup_s = now
    returncode = proc.wait()
    total = time.perf_counter() - start
    result = {"lines": lines, "setup_s": setup_s, "total_s": total, "returncode": returncode,
              "venv_mb": _size_mb(clone / ".venv"), "load_before": load_before,
              "load_after": os.getloadavg(), "clone": str(clone)}
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    args = parser.parse_args(argv)
    print(f"machine: {_cpu()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    r = run(keep=args.keep)
    for seconds, line in r["lines"]:
        print(f"{seconds:7.1f}  {line}")
    setup = r["setup_s"]
    print(f"\nbash scripts/demo.sh on a fresh clone: {r['total_s']:.1f} s wall (exit {r['returncode']})")
    if setup is not None:
        print(f"  setting up (scripts/setup.sh): {setup:.1f} s; the demo after it: {r['total_s'] - setup:.1f} s")
    print(f"  .venv: {r['venv_mb']:.0f} MB")
    print("  load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(
        *r["load_before"], *r["load_after"]))
    if args.keep:
        print(f"  clone kept in {r['clone']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
