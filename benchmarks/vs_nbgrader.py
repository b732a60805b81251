"""Benchmark: one class graded by serial ``nbgrader autograde`` and by this grader, in one run.

    python benchmarks/vs_nbgrader.py [--students 16] [--jobs 1 2] [--corpus] [--classes honest hostile]

Builds a ``submitted/`` tree (``--students`` students, each handing in every exercise,
cycling through the reference, the untouched stubs and every catalogued mistake, as
``benchmarks/grade_class.py`` does; with ``--corpus``, the parity corpus of
``autograder/demo/corpus.py`` instead), grades it with ``nbgrader autograde`` in one process
(one kernel per notebook, the way ``nbgrader autograde <assignment>`` runs), then with
``grade_class`` (what ``python -m autograder grade`` runs) at each ``--jobs``, with full
execution of every notebook. Ours runs in this process (its imports already done) and records
no nbgrader gradebook: not the path of README's command (a new process that records the
gradebook), and docs/benchmarks.md labels its figure so. Prints both wall times, their ratio,
the CPU seconds each used (this process and everything it started: less sensitive than wall
time to other work on a shared machine), and on how many notebooks the points per function
agree, naming each notebook where they do not. Asserts nothing.

With ``--classes hostile`` (the default), three more students hand in an attention notebook whose
``causal_mask`` hangs (an endless loop), crashes (kills its own process) or allocates
4 GiB (more than the child's 1 GiB address space; nbgrader's kernel has no such limit, so
the bomb returns nothing afterwards and both graders give it 0). nbgrader autograde stops
with an error on a notebook whose kernel died, so the crash notebook is autograded by it in
a run of its own (its time counted, its points compared when it finishes). ``--classes honest``
grades the class without them (no hang for nbgrader to wait out: the harder comparison);
``--classes honest hostile`` grades both, one after the other, each with its own nbgrader run.
For each run of ours it also prints where the wall time went: until the first student's
results came back (the preflight, the workers' start, that student's notebooks: a worker hands
back a student's results together), the other students, and after the last results (the
gradebook and the reports).

It also prints the interpreter-plus-numpy floor (``python -I -c "import numpy"``, median of
5) and our time per notebook against it: the wall time over all notebooks, and the mean of
the honest notebooks' own grading times (``NotebookResult.seconds``, the hostile ones apart).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grade_class import build_class  # noqa: E402

from autograder.core.registry import EXERCISES  # noqa: E402
from autograder.demo.corpus import corpus, nbgrader_autograde, write_submissions  # noqa: E402
from autograder.grading.class_run import ClassRun, RunOptions, grade_class  # noqa: E402
from autograder.grading.discover import discover  # noqa: E402
from autograder.sandbox.limits import Limits

SECRET = b"benchmark-secret"

HOSTILE = {
    "zz_hang": "def causal_mask(T):\n    while True:\n        pass\n",
    "zz_crash": "import os, signal\ndef causal_mask(T):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    "zz_memory": ("def causal_mask(T):\n    hoard = [bytearray(64 * 1024 ** 2) for _ in range(64)]\n"
                  "    return None\n"),
}


def add_hostile(root):
    """Write the hostile attention notebooks (``HOSTILE``) under ``root``."""
    import nbformat

    from autograder.core.registry import EXERCISES
    from autograder.demo.fill import filled_notebook
    attention = EXERCISES["attention"]
    for student, code in HOSTILE.items():
        folder = Path(root) / student / attention.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(attention, {"causal_mask": code}), folder / attention.notebook)


def floor_seconds(rounds=5):
    """Median wall seconds of ``python -I -c "import numpy"``: the interpreter-plus-numpy floor."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "import numpy"], check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cpu_seconds():
    """User + system CPU seconds of this process and of its finished descendants."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _by_function(result):
    points = {}
    for c in result.checks:
        points[c.function] = points.get(c.function, 0.0) + c.score
    return points


def grade_one_class(tmp, args, hostile):
    """Build one class under ``tmp`` (with the hostile notebooks when ``hostile``), grade it with
    nbgrader and with this grader at each ``args.jobs``, print the figures."""
    tmp.mkdir(parents=True)
    if args.corpus:
        entries = corpus()
        write_submissions(tmp / "nbgrader-submitted", entries, nbgrader=True)
        write_submissions(tmp / "submitted", entries)
        what = f"the parity corpus ({len(entries)} hand-ins)"
    else:
        build_class(tmp / "submitted", args.students)
        what = f"{args.students} students x {len(EXERCISES)} exercises"
    if hostile:
        add_hostile(tmp / "submitted")
        if args.corpus:
            add_hostile(tmp / "nbgrader-submitted")
        what += f" + {len(HOSTILE)} hostile (hang, crash, memory bomb)"
    else:
        what += ", honest (no hang, crash or memory bomb)"
    nbgrader_tree = tmp / ("nbgrader-submitted" if args.corpus else "submitted")
    crash_tree = tmp / "nbgrader-crash"
    if (nbgrader_tree / "zz_crash").is_dir():  # nbgrader's copies: ours keeps every notebook
        shutil.copytree(nbgrader_tree / "zz_crash", crash_tree / "zz_crash")
        shutil.copytree(nbgrader_tree, tmp / "nbgrader-main", ignore=shutil.ignore_patterns("zz_crash"))
        nbgrader_tree = tmp / "nbgrader-main"
    load_before = os.getloadavg()[0]
    c0 = cpu_seconds()
    theirs, nbgrader_seconds = nbgrader_autograde(tmp / "nbgrader", nbgrader_tree, SECRET)
    nbgrader_failed = []
    if crash_tree.is_dir():
        t0 = time.perf_counter()
        try:
            crashed, _ = nbgrader_autograde(tmp / "nbgrader-c", crash_tree, SECRET)
            theirs.update(crashed)
        except RuntimeError as exc:
            nbgrader_failed.append(f"zz_crash ({str(exc)[:120]})")
        nbgrader_seconds += time.perf_counter() - t0  # (its generate_assignment included)
    nbgrader_cpu = cpu_seconds() - c0  # (generate_assignment included: a few seconds)
    n = len(theirs) + len(nbgrader_failed)
    floor = floor_seconds()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
          f"load average {load_before:.1f} before nbgrader, {os.getloadavg()[0]:.1f} after")
    print(f"class: {what}, {n} notebooks")
    if nbgrader_failed:
        print(f"nbgrader autograde stopped with an error on: {', '.join(nbgrader_failed)}")
    print(f"floor (python -I -c 'import numpy'): {floor:.3f} s")
    print(f"nbgrader autograde, serial: {nbgrader_seconds:.1f} s ({nbgrader_seconds / n:.2f} s a notebook), "
          f"{nbgrader_cpu:.1f} CPU s")
    for jobs in args.jobs:
        load_before = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), cpu_seconds()
        options = RunOptions(out=tmp / f"graded-{jobs}", workers=jobs, resume=False)
        run = grade_class(ClassRun(options, Limits(), secret=SECRET, jobs=discover(tmp / "submitted")))
        results, failures = run.results, run.failures
        ours_seconds, ours_cpu = time.perf_counter() - t0, cpu_seconds() - c0
        differ = [f"{r.student_id}/{r.assignment_id} (ours {_by_function(r)}, nbgrader "
                  f"{theirs.get((r.student_id, r.assignment_id), 'no grade')})"
                  for r in results if _by_function(r) != theirs.get((r.student_id, r.assignment_id))]
        per = ours_seconds / len(results)
        print(f"grade_class in this process, no gradebook, --jobs {jobs} (load average {load_before:.1f} before): "
              f"{ours_seconds:.1f} s ({per:.2f} s a notebook = {per / floor:.1f}x the floor); nbgrader / this = "
              f"{nbgrader_seconds / ours_seconds:.1f}x; {ours_cpu:.1f} CPU s "
              f"({nbgrader_cpu / ours_cpu:.1f}x less); same points per function on "
              f"{len(results) - len(differ)} of {len(results)} notebooks; grader failures: {failures}")
        print("  by stage of the class run: " + ", ".join(f"{name} {s:.1f} s" for name, s in run.seconds.items()))
        for line in differ:
            print(f"  differs: {line}")
        honest = [r.seconds for r in results if r.student_id not in HOSTILE]
        hostile_times = ", ".join(f"{r.student_id[3:]} {r.seconds:.1f} s" for r in results if r.student_id in HOSTILE)
        if honest:
            mean = statistics.mean(honest)
            print(f"  each notebook's own grading time (NotebookResult.seconds): {len(honest)} honest, mean "
                  f"{mean:.3f} s = {mean / floor:.2f}x the floor (median {statistics.median(honest):.3f} s)"
                  + (f"; hostile: {hostile_times}" if hostile_times else "")
                  + f"; all notebooks' own times add up to {sum(r.seconds for r in results):.1f} s "
                    f"of the {ours_seconds:.1f} s")
            by_exercise = {}
            for r in results:
                if r.student_id not in HOSTILE:
                    by_exercise.setdefault(r.assignment_id, []).append(r.seconds)
            print("  mean by exercise: " + ", ".join(f"{k} {statistics.mean(v):.2f} s"
                                                    for k, v in sorted(by_exercise.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--corpus", action="store_true", help="grade the parity corpus instead")
    parser.add_argument("--classes", nargs="+", choices=("hostile", "honest"), default=["hostile"],
                        help="which classes to grade, one after the other: with the hang, crash and memory "
                             "bomb (hostile, the default), without them (honest), or both")
    parser.add_argument("--no-hostile", action="store_true", help="the same as --classes honest")
    args = parser.parse_args()
    classes = ["honest"] if args.no_hostile else args.classes
    with tempfile.TemporaryDirectory() as tmp:
        for name in classes:
            grade_one_class(Path(tmp) / name, args, hostile=name == "hostile")


if __name__ == "__main__":
    main()
