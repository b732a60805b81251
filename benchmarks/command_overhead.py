"""Benchmark: the grading command's own time, before the first notebook and after the last result.

    python benchmarks/command_overhead.py [--students 4] [--jobs 1] [--rounds 1] [--profile DIR]

Builds the class of ``benchmarks/vs_nbgrader.py --classes honest`` (``grade_class.build_class``:
``--students`` students, each handing in every exercise) in a temporary folder, outside any
nbgrader course directory (so no gradebook), and runs the real command on it in a child process,
``python -m autograder grade SUBMITTED --out OUT --jobs N --fresh``, with nothing else in between.
Reads the command's progress lines on stderr as they come (a worker hands back a student's
results together) and prints, for each round:

* until the first notebook started: the time from the command's start until the first student's
  results came back, less the grading times of that student's notebooks
  (``execution_time`` in their results.json, i.e. ``NotebookResult.seconds``, which starts before
  the notebook is read and its child forked): interpreter start, imports, preflight, the worker's
  start and the first sandbox's;
* the students' notebooks (first results to last results);
* after the last results: until the command exited (gradebook, results.json, students' reports,
  identical flags, near-copies, grades.csv, class report, the workers' and sandboxes' shutdown);
* CPU seconds: the command's own (its ``ru_utime + ru_stime``, printed by a wrapper at exit) and
  with everything it started (``wait4``'s rusage), and the load average before and after.

With ``--profile DIR`` the command runs under cProfile (``DIR/main.prof``; slower, figures not
comparable). Asserts nothing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grade_class import build_class  # noqa: E402

WRAPPER = ("import resource, sys\n"
           "from autograder.cli import main\n"
           "try:\n"
           "    status = main(sys.argv[1:])\n"
           "finally:\n"
           "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
           "    print(f'main-cpu {u.ru_utime + u.ru_stime:.3f}', file=sys.stderr)\n"
           "sys.exit(status)\n")
PROFILED = ("import cProfile, sys\n"
            "from autograder import cli\n"
            "status = 0\n"
            "cProfile.run('status = cli.main(sys.argv[2:])', sys.argv[1])\n"
            "sys.exit(status)\n")
PROGRESS = re.compile(r"^\[(\d+)/(\d+),")


def one_round(submitted: Path, out: Path, jobs: int, profile: Path | None) -> dict:
    """Run the command once on ``submitted``; returns its timings (seconds) and CPU seconds."""
    if profile is not None:
        cmd = [sys.executable, "-c", PROFILED, str(profile / "main.prof")]
    else:
        cmd = [sys.executable, "-c", WRAPPER]
    cmd += ["grade", str(submitted), "--out", str(out), "--jobs", str(jobs), "--fresh"]
    load = os.getloadavg()[0]
    marks, main_cpu, other = [], None, []
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        now = time.perf_counter()
        if PROGRESS.match(line):
            marks.append((now, line))
        elif line.startswith("main-cpu "):
            main_cpu = float(line.split()[1])
        else:
            other.append(line.rstrip())
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.perf_counter()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the command failed ({proc.returncode}):\n" + "\n".join(other[-20:]))
    import json
    first_student = re.search(r"\] (\S+?)/", marks[0][1]).group(1)
    first_times = [json.loads(p.read_text(encoding="utf-8"))["execution_time"]
                   for p in out.glob(f"*/{first_student}/results.json")]
    first_back = marks[0][0] - t0
    return {"load": load, "load_after": os.getloadavg()[0], "wall": end - t0, "first_back": first_back,
            "first_own": sum(first_times), "before_first": first_back - sum(first_times),
            "grading": marks[-1][0] - marks[0][0], "after": end - marks[-1][0], "notebooks": len(marks),
            "main_cpu": main_cpu, "cpu": usage.ru_utime + usage.ru_stime}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--profile", type=Path, help="run the command under cProfile, writing DIR/main.prof")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        submitted = Path(tmp) / "submitted"
        build_class(submitted, args.students)
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
              f"python -m autograder grade --jobs {args.jobs} --fresh on {args.students} students")
        for k in range(args.rounds):
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
            r = one_round(submitted, Path(tmp) / f"graded-{k}", args.jobs, args.profile)
            print(f"round {k + 1}: load {r['load']:.1f} -> {r['load_after']:.1f}; {r['notebooks']} notebooks, "
                  f"wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s (the command's own process {r['main_cpu'] or 0:.2f} s)")
            print(f"  start -> first notebook: {r['before_first']:.2f} s (first results back at "
                  f"{r['first_back']:.2f} s, less that student's {r['first_own']:.2f} s of notebooks); "
                  f"first -> last results: {r['grading']:.2f} s; after the last results: {r['after']:.2f} s")


if __name__ == "__main__":
    main()
