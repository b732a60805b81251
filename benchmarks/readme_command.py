"""Benchmark: README's grade command, as the instructor runs it, against serial ``nbgrader autograde``.

    python benchmarks/readme_command.py [--students 4] [--jobs 1] [--ci-env] [--nbgrader-seconds S]

Clones this repository (its committed ``HEAD``) into a temporary folder: a fresh clone, with no
``__pycache__``, no ``.cache`` and no gradebook. The clone is the course directory, as README says;
its ``.venv`` is a symbolic link to this venv (a venv is not part of a clone). Outside the timings
it then does what an instructor does before grading: ``python -m autograder caches`` (tiktoken's
file, matplotlib's font list, the project's bytecode; ``scripts/setup.sh`` runs it), ``nbgrader
generate_assignment`` of every exercise (the gradebook) and the class of ``vs_nbgrader.py
--classes honest`` (``grade_class.build_class``: ``--students`` students, each handing in every
exercise) in ``submitted/``.

Then, each a new process in the clone, timed from its start to its exit:

1. first run: ``python -m autograder grade submitted --jobs N``, the grades recorded in the
   clone's gradebook (README's command; run without ``--quiet``, whose progress lines time the
   phases below: ``--quiet`` only stops printing them);
2. second run: the same with ``--fresh`` (every notebook graded again, not reused from run 1),
   the caches and bytecode of run 1 in place;
3. for the sandbox's share: the second run's command with ``--unconfined --gradebook none``.

For runs 1 and 2 it prints the breakdown: start and preflight (from the start until the first
student's results came back, less that student's notebooks' own grading times), the notebooks
(first notebook to last result), the sandbox (the confined run's notebooks' own times, summed,
less run 3's), the gradebook (last result to the command's "recorded ... in the gradebook" line:
nbgrader's import, scores, late penalties, feedback notebooks) and the reports (that line to the
exit: results.json, students' reports, grades.csv, class report). Then serial ``nbgrader
autograde`` of the same class in one run (``demo.corpus.nbgrader_autograde``; or the figure given
with ``--nbgrader-seconds``, from an earlier run on the same machine), the ratios, and as a second
line ``grade_class`` called in this process without a gradebook (``vs_nbgrader.py``'s figure).

``--ci-env`` runs the commands with the environment CI has (``PYTHONDONTWRITEBYTECODE=1``: no
bytecode written, so the second run compiles again what the first did). Asserts nothing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grade_class import build_class  # noqa: E402
from vs_nbgrader import floor_seconds  # noqa: E402

from autograder.core.registry import EXERCISES, PROJECT_ROOT  # noqa: E402

SECRET = b"benchmark-secret"
PROGRESS = re.compile(r"^\[(\d+)/(\d+),.*\] ([^/]+)/")


def make_clone(folder: Path, students: int, env: dict) -> Path:
    """A fresh clone of this repository in ``folder``, made a course as the module docstring says."""
    clone = folder / "course"
    subprocess.run(["git", "clone", "--quiet", str(PROJECT_ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(os.path.realpath(sys.prefix), target_is_directory=True)
    env["PATH"] = f"{clone / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # README: the venv active
    quiet = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    python = str(clone / ".venv" / "bin" / "python")
    subprocess.run([python, "-m", "autograder", "caches"], cwd=clone, env=quiet, check=True,
                   stdout=subprocess.DEVNULL)
    generate = ("import sys\nfrom nbgrader.apps import NbGraderAPI\n"
                "from autograder.nbgrader_glue.gradebook import load_course\n"
                "course = load_course('.')\napi = NbGraderAPI(coursedir=course, config=course.config)\n"
                "for name in sys.argv[1:]:\n    assert api.generate_assignment(name)['success'], name\n")
    subprocess.run([python, "-c", generate, *sorted({e.assignment for e in EXERCISES.values()})], cwd=clone,
                   env=quiet, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    build_class(clone / "submitted", students)
    return clone


def run_command(clone: Path, argv: list, env: dict) -> dict:
    """Run ``python -m autograder grade ...argv`` in ``clone``; its phases' times (see the module docstring)."""
    cmd = [str(clone / ".venv" / "bin" / "python"), "-m", "autograder", "grade", "submitted", *argv]
    marks, recorded, lines = [], [], []
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=clone, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def read(stream):
        for line in stream:
            now = time.perf_counter()
            match = PROGRESS.match(line)
            if match:
                marks.append((now, match.group(3)))
            elif line.startswith("recorded "):
                recorded.append(now)
            lines.append(line.rstrip())
    readers = [threading.Thread(target=read, args=(s,)) for s in (proc.stdout, proc.stderr)]
    for r in readers:
        r.start()
    status = proc.wait()
    end = time.perf_counter()
    for r in readers:
        r.join()
    if status != 0 or not marks:
        raise SystemExit(f"{' '.join(cmd)} failed ({status}):\n" + "\n".join(lines[-20:]))
    out = clone / "graded"
    own = {}
    for path in out.glob("*/*/results.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        own[(path.parent.name, path.parent.parent.name)] = data["execution_time"]
    first_student = marks[0][1]
    first_own = sum(s for (student, _), s in own.items() if student == first_student)
    last = marks[-1][0]
    gradebook_end = recorded[0] if recorded else last
    return {"wall": end - t0, "notebooks": len(marks), "own": sum(own.values()),
            "start": marks[0][0] - t0 - first_own, "grading": last - marks[0][0] + first_own,
            "gradebook": gradebook_end - last, "reports": end - gradebook_end, "recorded": bool(recorded)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--ci-env", action="store_true", help="PYTHONDONTWRITEBYTECODE=1, as CI runs")
    parser.add_argument("--nbgrader-seconds", type=float,
                        help="serial nbgrader's time for this class from an earlier run (skips running it)")
    parser.add_argument("--label", default="loaded shared machine",
                        help="what the machine was doing, printed with the figures")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["COURSE_SECRET"] = SECRET.decode()
    if args.ci_env:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    jobs = ["--jobs", str(args.jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        clone = make_clone(Path(tmp), args.students, env)
        load = os.getloadavg()[0]
        runs = {"first run": run_command(clone, jobs, env),
                "second run (--fresh)": run_command(clone, [*jobs, "--fresh"], env)}
        unconfined = run_command(clone, [*jobs, "--fresh", "--unconfined", "--gradebook", "none"], env)
        n = runs["first run"]["notebooks"]
        if args.nbgrader_seconds is None:
            from autograder.demo.corpus import nbgrader_autograde
            _, nbgrader = nbgrader_autograde(Path(tmp) / "nbgrader", clone / "submitted", SECRET)
        else:
            nbgrader = args.nbgrader_seconds
        floor = floor_seconds()
        from autograder.grading.class_run import ClassRun, RunOptions, grade_class
        from autograder.grading.discover import discover
        from autograder.sandbox.limits import Limits
        t0 = time.perf_counter()
        options = RunOptions(out=Path(tmp) / "in-process", workers=args.jobs, resume=False)
        grade_class(ClassRun(options, Limits(), secret=SECRET, jobs=discover(clone / "submitted")))
        in_process = time.perf_counter() - t0
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; {args.label}; "
          f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
          + ("; PYTHONDONTWRITEBYTECODE=1 (CI's environment)" if env.get("PYTHONDONTWRITEBYTECODE") else ""))
    print(f"class: {args.students} students x {len(EXERCISES)} exercises, honest, {n} notebooks; "
          f"floor (python -I -c 'import numpy') {floor:.3f} s")
    print(f"nbgrader autograde, serial: {nbgrader:.1f} s"
          + (" (given with --nbgrader-seconds)" if args.nbgrader_seconds is not None else ""))
    for name, r in runs.items():
        sandbox = (r["own"] - unconfined["own"]) / n
        print(f"README's command, --jobs {args.jobs}, gradebook {'recorded' if r['recorded'] else 'NOT recorded'}, "
              f"{name}: {r['wall']:.1f} s = {nbgrader / r['wall']:.1f}x nbgrader")
        print(f"  start and preflight {r['start']:.2f} s; notebooks {r['grading']:.2f} s (their own times "
              f"{r['own']:.2f} s, mean {r['own'] / n:.3f} s = {r['own'] / n / floor:.2f}x the floor); sandbox "
              f"{sandbox * 1000:.0f} ms a notebook (against --unconfined); gradebook {r['gradebook']:.2f} s "
              f"({r['gradebook'] / n * 1000:.0f} ms a notebook); reports {r['reports']:.2f} s")
    print(f"  the same --unconfined --gradebook none: {unconfined['wall']:.1f} s (notebooks' own mean "
          f"{unconfined['own'] / n:.3f} s)")
    print(f"grade_class in this process, no gradebook, --jobs {args.jobs}: {in_process:.1f} s = "
          f"{nbgrader / in_process:.1f}x nbgrader (not README's command)")


if __name__ == "__main__":
    main()
