"""Benchmark: a class of about 1,000 notebooks, hostile ones among them, graded by the real
command, then graded again with that command killed (SIGKILL) halfway and started again.
Prints figures and what differs; asserts nothing (exit status 1 when a grade is not as
expected or the resumed run differs).

    python benchmarks/load_class.py [--students 170] [--jobs 2] [--no-kill]

The class (``build``): ``--students`` students hand in every exercise, cycling through
the reference, the reference in the honest styles of the parity corpus (functions defined
in loops, magics, ``%``-formatting, ``if __name__ == "__main__"`` ...), the untouched stubs
and every catalogued mistake. Six more students each hand in one hostile attention notebook
whose ``causal_mask`` does one of: allocate memory without end, fork without end, create
files without end (inodes), loop forever, print without end, kill its own process.

Run 1: ``python -m autograder grade submitted --jobs N --out out1 --quiet --gradebook none`` (the
command an instructor types, as a new process, but without nbgrader's gradebook; started as
``python -c RUN``, which runs the same ``cli.main`` and then tells its own peak); wall time, and
the peak resident memory (VmHWM) of the grading command (as it told it; also as it stood when the
pass after grading began, sampled) and of its largest worker, sampled from /proc. Grades are as expected when every notebook
of a plan gets the same points as every other notebook of that plan (the same code, other
students' seeds), references get full marks, a mistake loses points only in the checks of
its own function, and a hostile notebook loses the points of ``causal_mask`` (and perhaps of
``attention_matrix``, which calls it) and no others.

Run 2: the same command on a fresh ``out2``, killed with SIGKILL (its whole process group:
the grading command, its workers, their sandboxes) once half the notebooks are recorded,
then started again: the results must equal run 1's check by check, the second start must
regrade exactly the notebooks not recorded before the kill (nothing lost, nothing twice).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.corpus import STYLES
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes

HONEST_STYLES = [("loop_definitions",), ("magics", "percent_formatting"), ("docstring_questions",),
                 ("guarded_main",), ("conditional_definitions", "magics")]

HOSTILE = {
    "memory": "def causal_mask(T):\n    hoard = []\n    while True:\n        hoard.append(bytearray(256 * 1024 ** 2))\n",
    "fork": "import os\ndef causal_mask(T):\n    while True:\n        os.fork()\n",
    "inodes": ("import os\ndef causal_mask(T):\n    i = 0\n    while True:\n"
               "        open(f'/tmp/f{i}', 'w').close()\n        i += 1\n"),
    "hang": "def causal_mask(T):\n    while True:\n        pass\n",
    "output": "def causal_mask(T):\n    while True:\n        print('x' * 65536)\n",
    "crash": "import os, signal\ndef causal_mask(T):\n    os.kill(os.getpid(), signal.SIGSEGV)\n",
}


# Graded functions whose reference calls the hostile one: they run the hostile code too.
CALLERS = {"causal_mask": {"attention_matrix"}}


def plans():
    """The plans students cycle through: ("reference", styles), ("stubs",), ("mistake", Mistake)."""
    return ([("reference", ())] + [("reference", s) for s in HONEST_STYLES] + [("stubs",)]
            + [("mistake", m) for m in all_mistakes()])


def plan_name(plan):
    if plan[0] == "reference":
        return "reference" + "".join(f"+{s}" for s in plan[1])
    return "stubs" if plan[0] == "stubs" else f"mistake {plan[1].id}"


def build(root, students):
    """Write the class under ``root``; returns ``{(student, assignment): (plan name, function
    that must lose points or None, "full"/"some"/"any")}``."""
    expect = {}
    cycle = plans()
    cache = {}
    for i in range(students):
        plan = cycle[i % len(cycle)]
        for exercise in EXERCISES.values():
            key = (plan_name(plan), exercise.name)
            if key not in cache:
                if plan[0] == "stubs":
                    nb, rule = filled_notebook(exercise, stubs=exercise.functions), (None, "any")
                elif plan[0] == "mistake" and plan[1].exercise == exercise.name:
                    nb, rule = filled_notebook(exercise, {plan[1].function: plan[1].code}), (plan[1].function, "some")
                else:
                    nb = filled_notebook(exercise)
                    for style in (plan[1] if plan[0] == "reference" else ()):
                        STYLES[style](nb, exercise)
                    rule = (None, "full")
                cache[key] = (nbformat.writes(nb), rule)
            text, rule = cache[key]
            folder = Path(root) / f"s{i:03d}" / exercise.assignment
            folder.mkdir(parents=True)
            (folder / exercise.notebook).write_text(text, encoding="utf-8")
            expect[(f"s{i:03d}", exercise.assignment)] = (key[0],) + rule
    attention = EXERCISES["attention"]
    for kind, code in HOSTILE.items():
        folder = Path(root) / f"zz_hostile_{kind}" / attention.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(attention, {"causal_mask": code}), folder / attention.notebook)
        expect[(f"zz_hostile_{kind}", attention.assignment)] = (f"hostile {kind}", "causal_mask", "hostile")
    return expect


# The grading command as ``python -c RUN grade ...``: ``cli.main``, as ``python -m autograder`` runs
# it, then its own peak resident memory (VmHWM) on stderr as it ends ("peak_kib N"). Sampled from
# /proc every half second, the peak of the last half second (the report stage) is missed: 109.6
# MiB sampled where the command's own was 114 (1,028 notebooks, 2026-12-07).
RUN = ("import sys\nfrom autograder.cli import main\nstatus = main(sys.argv[1:])\n"
       "hwm = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')]\n"
       "print(f'peak_kib {hwm[0]}', file=sys.stderr)\n"
       "sys.exit(status)\n")


def _vmhwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        return 0


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _outputs_begun(out):
    """Whether the pass after grading has begun: a results.json is under ``out`` (the write_outputs stage)."""
    return next(Path(out).glob("*/*/results.json"), None) is not None


def grade(submitted, out, jobs, kill_at=None, phases=None):
    """Run the grading command; returns ``(seconds, grader peak bytes, worker peak bytes,
    stdout, killed)``. With ``kill_at`` (a number of notebooks), SIGKILL its process group
    once that many notebooks are recorded in ``out/.resume``. ``phases`` (a dict) gets
    ``"grading"``: the command's peak (VmHWM) when the pass after grading began, to within a
    sample (the peak of grading and recording; the whole run's peak is the second value)."""
    cmd = [sys.executable, "-c", RUN, "grade", str(submitted), "--out", str(out),
           "--jobs", str(jobs), "--quiet", "--gradebook", "none"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    grader_peak = worker_peak = 0
    killed = False
    while proc.poll() is None:
        grader_peak = max(grader_peak, _vmhwm(proc.pid))
        if phases is not None and "grading" not in phases and _outputs_begun(out):
            phases["grading"] = grader_peak
        for child in _children(proc.pid):
            worker_peak = max(worker_peak, _vmhwm(child))
        if kill_at is not None and len(list((Path(out) / ".resume").glob("*.json"))) >= kill_at:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            proc.wait()
            break
        time.sleep(0.5)
    output = proc.stdout.read()
    told = [int(line.split()[1]) * 1024 for line in output.splitlines() if line.startswith("peak_kib ")]
    grader_peak = max([grader_peak, *told])  # the command's own, when it ended by itself
    output = "".join(line + "\n" for line in output.splitlines() if not line.startswith("peak_kib "))
    return time.perf_counter() - t0, grader_peak, worker_peak, output, killed


def read_results(out):
    """``{(student, assignment): [(check name, score, max, feedback)]}`` from ``out/<assignment>/<student>/results.json``."""
    found = {}
    for path in Path(out).glob("*/*/results.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        found[(path.parent.name, path.parent.parent.name)] = [
            (t.get("name"), t.get("score"), t.get("max_score"), t.get("output", "")) for t in data.get("tests", [])]
    return found


def check_expected(results, expect):
    """Lines describing every notebook whose grade is not as expected (empty: all are)."""
    wrong = []
    by_plan = {}
    for key, (plan, function, rule) in expect.items():
        checks = results.get(key)
        if checks is None:
            wrong.append(f"{key}: no results.json")
            continue
        lost = {name.split(":")[0] for name, score, top, _ in checks if score < top}
        full = not lost
        if rule == "full" and not full:
            wrong.append(f"{key} ({plan}): lost points in {sorted(lost)}")
        if rule == "some" and lost != {function}:
            wrong.append(f"{key} ({plan}): lost points in {sorted(lost)}, expected only in {function}")
        if rule == "hostile" and not ({function} <= lost <= {function} | CALLERS.get(function, set())):
            wrong.append(f"{key} ({plan}): lost points in {sorted(lost)}, expected {function} "
                         f"(and perhaps its callers {sorted(CALLERS.get(function, ()))})")
        points = [(name, score) for name, score, _, _ in checks]
        if rule != "hostile":
            first = by_plan.setdefault((plan, key[1]), (key, points))
            if first[1] != points:
                wrong.append(f"{key} ({plan}): points differ from {first[0]} of the same plan")
    return wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=170)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-kill", action="store_true", help="skip the killed-and-resumed run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        expect = build(tmp / "submitted", args.students)
        n = len(expect)
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; load average "
              f"{os.getloadavg()[0]:.1f}; class: {args.students} students x {len(EXERCISES)} exercises + "
              f"{len(HOSTILE)} hostile = {n} notebooks; --jobs {args.jobs}")
        phases = {}
        seconds, grader_peak, worker_peak, output, _ = grade(tmp / "submitted", tmp / "out1", args.jobs,
                                                             phases=phases)
        last = output.strip().splitlines()[-1] if output.strip() else ""
        grading = f"{phases['grading'] / 2 ** 20:.1f} MiB" if "grading" in phases else "not seen"
        print(f"run 1: {seconds:.1f} s wall ({seconds / n:.3f} s a notebook; {n / seconds * 60:.0f} a minute); "
              f"peak memory: grading command {grader_peak / 2 ** 20:.1f} MiB (through grading and recording: "
              f"{grading}), largest worker {worker_peak / 2 ** 20:.0f} MiB")
        print(f"  its summary: {last}")
        first = read_results(tmp / "out1")
        wrong = check_expected(first, expect)
        print(f"  grades as expected: {n - len(wrong)} of {n}")
        for line in wrong[:20]:
            print(f"    {line}")
        status = 1 if wrong else 0
        if not args.no_kill:
            s1, _, _, _, killed = grade(tmp / "submitted", tmp / "out2", args.jobs, kill_at=n // 2)
            recorded = len(list((tmp / "out2" / ".resume").glob("*.json")))
            s2, _, _, output2, _ = grade(tmp / "submitted", tmp / "out2", args.jobs)
            m = re.search(r"\((\d+) unchanged since the last run", output2)
            reused = int(m.group(1)) if m else 0
            second = read_results(tmp / "out2")
            differ = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
            points = [k for k in differ if [c[:3] for c in first.get(k, [])] != [c[:3] for c in second.get(k, [])]]
            print(f"run 2: killed with SIGKILL after {s1:.1f} s ({'yes' if killed else 'NO: it finished first'}), "
                  f"{recorded} notebooks recorded; started again: {s2:.1f} s, reused {reused}, "
                  f"graded {n - reused}")
            print(f"  nothing lost: {len(second)} of {n} results; nothing graded twice: "
                  f"{'yes' if reused == recorded else 'NO'}; equal to run 1: "
                  f"{'yes' if not differ else f'NO, {len(differ)} differ, e.g. {differ[:3]}'}"
                  f"{f' (points differ on {len(points)})' if differ else ''}")
            for key in differ[:5]:
                for a, b in zip(first.get(key, []), second.get(key, []), strict=False):
                    if a != b:
                        print(f"    {key}: {a} / {b}")
            if differ or reused != recorded or len(second) != n:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
