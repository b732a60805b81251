"""Find the notebooks to grade under a path, with their student and assignment ids.

Accepted layouts (``python -m autograder grade PATH``):

* one notebook: ``PATH`` is an .ipynb file; the student id is ``--student`` or the file
  name, the exercise is found from the file name or the nbgrader cell ids inside;
* one student's nbgrader submission folder: ``submitted/<student_id>/<assignment_id>/``;
* one student's folder of assignments: ``submitted/<student_id>/``;
* nbgrader's whole tree: ``submitted/<student_id>/<assignment_id>/*.ipynb``.
"""
import json
from dataclasses import dataclass
from pathlib import Path

from .exercises import EXERCISES
from .submission_files import UnreadableSubmission, is_real_dir, read_submission


@dataclass(frozen=True)
class Job:
    """One notebook to grade."""
    path: Path
    student_id: str
    exercise: object  # exercises.Exercise or None when it cannot be told
    problem: str = ""
    ignored: tuple = ()  # other notebooks of the same exercise in the same folder, not graded


def _exercise_for(path, assignment_hint=None):
    if assignment_hint in EXERCISES:
        return EXERCISES[assignment_hint]
    stem = path.stem
    if stem in EXERCISES:
        return EXERCISES[stem]
    for name in EXERCISES:  # "alice_attention.ipynb", "attention (1).ipynb"
        if name in stem:
            return EXERCISES[name]
    try:  # nbgrader grade ids survive renaming the file
        cells = json.loads(read_submission(path).decode("utf-8", errors="replace")).get("cells", [])
        ids = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells}
    except (ValueError, AttributeError, OSError, RecursionError, TypeError, UnreadableSubmission):
        return None
    matches = [e for e in EXERCISES.values() if f"test_{e.functions[0]}" in ids]
    return matches[0] if len(matches) == 1 else None


def _notebooks(folder):
    # [sandbox hook] links and FIFOs are listed (grading says why they score 0), never followed
    return sorted(p for p in folder.glob("*.ipynb") if p.is_symlink() or not p.is_dir())


def discover(path, student=None, assignment=None):
    """List the ``Job``s under ``path`` (see module docstring for the layouts).

    Args:
        path: file or folder (``str`` or ``Path``).
        student: student id for a lone notebook (default: its file name).
        assignment: exercise name, when it cannot be told from the files.
    Returns:
        list of ``Job``, sorted by student then assignment. A job whose exercise cannot
        be told has ``exercise=None`` and a ``problem``.
    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    jobs = []

    def add(nb, sid, hint=None):
        exercise = _exercise_for(nb, assignment or hint)
        problem = "" if exercise else (f"cannot tell which exercise {nb.name} is; pass --assignment "
                                       f"({', '.join(EXERCISES)})")
        jobs.append(Job(nb, sid, exercise, problem))

    if path.is_file():
        add(path, student or path.stem)
    elif _notebooks(path):  # a submission folder: <student>/<assignment>/
        for nb in _notebooks(path):
            add(nb, student or path.parent.name, path.name)
    else:
        for sub in sorted(p for p in path.iterdir() if is_real_dir(p) and not p.name.startswith(".")):
            if _notebooks(sub):  # PATH is one student's folder: <assignment>/*.ipynb
                for nb in _notebooks(sub):
                    add(nb, student or path.name, sub.name)
            else:  # PATH is submitted/: <student>/<assignment>/*.ipynb
                for assignment_dir in sorted(p for p in sub.iterdir() if is_real_dir(p)):
                    for nb in _notebooks(assignment_dir):
                        add(nb, sub.name, assignment_dir.name)
    return _one_per_exercise(jobs)


def _one_per_exercise(jobs):
    """Keep one notebook per student and exercise: the one with the released name if any
    (``attention.ipynb`` beats ``attention (copy).ipynb``), else the first by name."""
    groups = {}
    for job in jobs:
        key = (job.student_id, job.exercise.name if job.exercise else f"?{job.path}")
        groups.setdefault(key, []).append(job)
    kept = []
    for group in groups.values():
        group.sort(key=lambda j: (j.exercise is None or j.path.name != j.exercise.notebook, j.path.name))
        first, rest = group[0], group[1:]
        if rest:
            first = Job(first.path, first.student_id, first.exercise, first.problem,
                        tuple(j.path.name for j in rest))
        kept.append(first)
    return sorted(kept, key=lambda j: (j.student_id, j.exercise.name if j.exercise else "", j.path.name))
