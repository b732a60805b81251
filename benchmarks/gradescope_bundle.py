"""Benchmark: how big is the Gradescope zip, and how long do setup and run_autograder take, per
confinement level? Prints figures.

    python benchmarks/gradescope_bundle.py [--assignment attention] [--runs 5] [--podman]

Builds the assignment's zip (``autograder.gradescope.bundle.build_bundle``, with a throwaway
secret), prints its size, and for each confinement level (``autograder/sandbox/levels.py``:
bubblewrap, setuid; forced with ``AUTOGRADER_CONFINEMENT``) plays Gradescope's container in a
temporary folder (unpack, run setup.sh against this environment with no package index, copy
run_autograder to the root) and runs run_autograder ``--runs`` times on the reference
notebook, printing setup.sh's time, the time of each run (the whole script: interpreter
start, watchdog, level check, grading) and the median. With ``--podman`` it also times the
real container of ``tests/gradescope/test_container.py`` (Debian 12, Podman's defaults, where only the
setuid level starts): setup.sh there (a warm image: packages already installed) and
run_autograder. Asserts nothing.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.gradescope import bundle as gradescope


def play(zip_path, infos, work, exercise, level, runs):
    """Play the container in ``work`` at confinement ``level``; print setup and run times."""
    root = work / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as zf:
        for info in infos:
            zf.extract(info, root / "source")
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    env = {k: v for k, v in os.environ.items() if k != "COURSE_SECRET"}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, PIP_NO_INDEX="1",
               AUTOGRADER_CONFINEMENT=level)
    t0 = time.perf_counter()
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True)
    print(f"[{level}] setup.sh (dependencies already installed): {time.perf_counter() - t0:.2f} s, "
          f"exit {setup.returncode}")
    if setup.returncode:
        print(setup.stdout, setup.stderr)
        return
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    nbformat.write(filled_notebook(exercise), root / "submission" / exercise.notebook)
    (root / "submission_metadata.json").write_text('{"users": [{"sid": "bench-1", "email": "", "id": 1}]}')
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
        print(f"[{level}] run_autograder #{i + 1}: {times[-1]:.2f} s ({last})")
    print(f"[{level}] run_autograder on one {exercise.notebook}: median {statistics.median(times):.2f} s, "
          f"min {min(times):.2f} s, max {max(times):.2f} s over {len(times)} runs")


def podman_figures(exercise, work, runs):
    """Time setup.sh and run_autograder in the real container of tests/gradescope/test_container.py."""
    import secrets
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from test_container import container_session
    work.mkdir(parents=True)
    t0 = time.perf_counter()
    session = container_session(work)
    run = session.__enter__()
    print(f"[podman, setuid] image with setup.sh done: {time.perf_counter() - t0:.2f} s in all "
          f"(root file system and base image cached); setup.sh itself: {run.setup_seconds:.2f} s")
    times = []
    try:
        for i in range(runs):
            t0 = time.perf_counter()
            results, _, _ = run(f"bench{i}-{secrets.token_hex(2)}", filled_notebook(exercise))
            times.append(time.perf_counter() - t0)
            print(f"[podman, setuid] run_autograder #{i + 1}: {times[-1]:.2f} s "
                  f"({results['score']:g} points, {results['extra_data'].get('confinement_level')})")
    finally:
        session.__exit__(None, None, None)
    print(f"[podman, setuid] run_autograder (a new container each): median {statistics.median(times):.2f} s "
          f"over {len(times)} runs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="attention", choices=list(EXERCISES))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--podman", action="store_true", help="also time the real Debian 12 container (slow)")
    args = parser.parse_args()
    exercise = EXERCISES[args.assignment]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        zip_path = gradescope.build_bundle(exercise.name, tmp / "build", b"benchmark-secret")
        build_s = time.perf_counter() - t0
        with zipfile.ZipFile(zip_path) as zf:
            infos = zf.infolist()
        unpacked = sum(i.file_size for i in infos)
        print(f"{zip_path.name}: {zip_path.stat().st_size / 1024 ** 2:.2f} MB compressed, "
              f"{unpacked / 1024 ** 2:.2f} MB unpacked, {len(infos)} files, built in {build_s:.2f} s")

        for level in ("bubblewrap", "setuid"):
            play(zip_path, infos, tmp / level, exercise, level, args.runs)
        if args.podman:
            podman_figures(exercise, tmp / "podman", args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
