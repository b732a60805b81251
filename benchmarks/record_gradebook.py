"""Benchmark: how long does recording a graded class in nbgrader's gradebook take? Prints figures.

    python benchmarks/record_gradebook.py [--students 20] [--jobs 2] [--synthetic]

Builds a temporary nbgrader course (every exercise generated into its gradebook with
nbgrader's ``generate_assignment``) and a submitted/ tree like ``grade_class.py``'s, grades it
with ``class_run.grade_class``, then times ``gradebook.record`` (scores into the gradebook, late
penalties, the feedback notebooks in autograded/) and prints seconds per notebook. With
``--synthetic`` nothing is graded: each notebook's result gives every check its full points
(``check_metas``), so the recording is timed alone, in seconds instead of minutes.
"""
import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # this checkout's autograder, not the venv's

from grade_class import build_class  # noqa: E402

from autograder.core.registry import EXERCISES  # noqa: E402
from autograder.course.build import venv_on_path  # noqa: E402
from autograder.grading.class_run import ClassRun, RunOptions, grade_class  # noqa: E402
from autograder.grading.discover import discover  # noqa: E402
from autograder.nbgrader_glue import gradebook  # noqa: E402
from autograder.sandbox.limits import Limits


def make_course(root):
    from nbgrader.apps import NbGraderAPI
    for exercise in EXERCISES.values():
        dest = root / "source" / exercise.assignment
        dest.mkdir(parents=True)
        shutil.copy(exercise.source_notebook, dest / exercise.notebook)
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\nc.CourseDirectory.course_id = 'bench'\n"
        "c.OverwriteCells.add_missing_cells = True\n")
    course = gradebook.load_course(root)
    api = NbGraderAPI(coursedir=course, config=course.config)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for exercise in EXERCISES.values():
            assert api.generate_assignment(exercise.assignment)["success"]
    return course


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--synthetic", action="store_true", help="full points for every notebook, not graded")
    args = parser.parse_args()
    venv_on_path()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        course = make_course(root)
        build_class(root / "submitted", args.students)
        jobs = discover(root / "submitted")
        t0 = time.perf_counter()
        if args.synthetic:
            from autograder.checks.declared import check_metas
            from autograder.core.vocabulary import CheckResult, NotebookResult
            results = [NotebookResult(j.student_id, j.exercise.assignment, j.exercise.notebook,
                                      [CheckResult(m.function, m.name, m.points, m.points, "")
                                       for m in check_metas(j.exercise)]) for j in jobs]
        else:
            options = RunOptions(out=root / "graded", workers=args.jobs, resume=False)
            results = grade_class(ClassRun(options, Limits(), secret=b"benchmark", jobs=jobs)).results
        grading = time.perf_counter() - t0
        t0 = time.perf_counter()
        recorded, problems = gradebook.record(course, zip(jobs, results, strict=False))
        recording = time.perf_counter() - t0
    print(f"notebooks: {len(results)} ({args.students} students x {len(EXERCISES)} exercises)")
    if not args.synthetic:
        print(f"grading on {args.jobs} workers: {grading:.1f} s ({grading / len(results):.2f} s a notebook)")
    print(f"recording in the gradebook (one process): {recording:.2f} s "
          f"({recording / len(results) * 1000:.0f} ms a notebook); recorded {recorded}, problems {len(problems)}")
    for problem in problems[:5]:
        print("  ", problem)


if __name__ == "__main__":
    main()
