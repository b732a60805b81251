"""Find the notebooks to grade under a path, with their student and assignment ids.

Accepted layouts (``python -m autograder grade PATH``):

* one notebook: ``PATH`` is an .ipynb file; the student id is ``--student`` or the file
  name, the exercise is found from the exact file name or the nbgrader cell ids inside
  (``exercise_of``);
* one student's nbgrader submission folder: ``submitted/<student_id>/<assignment_id>/``;
* one student's folder of assignments: ``submitted/<student_id>/``;
* nbgrader's whole tree: ``submitted/<student_id>/<assignment_id>/*.ipynb``.

In a folder, each notebook is the exercise its name or cell ids say, else the folder's
assignment. Several notebooks of one student for one exercise (``tokens.ipynb`` beside
``tokens (1).ipynb``) make one ``Job``; ``workers.grade_best`` grades them and keeps the best.
"""
from __future__ import annotations

import re
from pathlib import Path

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import Job
from autograder.submission.files import is_real_dir
from autograder.submission.notebook import InvalidNotebook, grade_ids, load_cells

# The suffixes Jupyter ("Duplicate": -Copy1) and browsers/nbgrader downloads (" (1)") add.
_COPY_SUFFIX = re.compile(r"(?:-Copy\d+| \(\d+\))$")


def base_name(stem: str) -> str:
    """``stem`` without copy suffixes: ``"tokens (1)"`` and ``"tokens-Copy1"`` -> ``"tokens"``."""
    while True:
        stripped = _COPY_SUFFIX.sub("", stem)
        if stripped == stem:
            return stem
        stem = stripped


def exercise_of(path):
    """The exercise a notebook hands in, told by its file name or its nbgrader cell ids.

    The name must be the exercise's name exactly, copy suffixes aside (``tokens (1).ipynb``
    is tokens; ``next_tokens (1).ipynb`` and ``attention-kv_cache.ipynb`` are not told by
    name). Otherwise the grade ids of its cells (``attention_row``, ``test_attention_row``)
    decide: the exercise whose ids it holds most of, when that is one exercise.
    Returns ``None`` when neither tells.
    """
    by_name = EXERCISES.get(base_name(Path(path).stem))
    if by_name is not None:
        return by_name
    try:
        ids = grade_ids(load_cells(path))
    except InvalidNotebook:
        return None
    scores = {e.name: len(ids & ({*e.functions, *(f"test_{f}" for f in e.functions)}))
              for e in EXERCISES.values()}
    best = max(scores.values(), default=0)
    winners = [n for n, v in scores.items() if v == best]
    return EXERCISES[winners[0]] if best and len(winners) == 1 else None


def _notebooks(folder):
    # [sandbox hook] links and FIFOs are listed (grading says why they score 0), never followed
    return sorted(p for p in folder.glob("*.ipynb") if p.is_symlink() or not p.is_dir())


def discover(path, student: str | None = None, assignment: str | None = None) -> list[Job]:
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
    forced = EXERCISES.get(assignment) if assignment else None

    def add(nb, sid, hint=None):
        """``hint``: the assignment folder the notebook sits in (nbgrader's layout)."""
        exercise = forced or exercise_of(nb) or EXERCISES.get(hint)
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
    """One job per student and exercise; several notebooks of one exercise become one job
    whose ``alternatives`` are graded too (the released name first, then by name)."""
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
                        tuple(j.path for j in rest))
        kept.append(first)
    return sorted(kept, key=lambda j: (j.student_id, j.exercise.name if j.exercise else "", j.path.name))
