"""Identical submissions across students: flagged for the instructor, never graded down.

Two kinds are found after a class is graded (``cli.py``, before ``grades.csv`` is written):

* **the same code**: notebooks of two or more students for one exercise whose code as graded
  (after intake: ``submission.notebook.read_notebook``, digested as ``submission/digest.py`` does for the
  seeds, but with whitespace around each cell left out, so blank lines added around cells do not
  hide a copy) is identical. The untouched release is left out (every student starts from it);
* **a hard link**: a notebook file with more than one link (``st_nlink > 1``), e.g. a
  submission folder holding a link to another student's file.

Each flagged notebook gets ``Problem.IDENTICAL`` in the ``problems`` column of ``grades.csv``
(its points are unchanged), and ``OUT/identical.csv`` lists them, one row per notebook:
exercise, student, notebook, why, the other students with the same code, and the start of
the code digest (the same digest means the same code). The file is written on every run
(a header alone when nothing is flagged), so an old list never outlives a regrade.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from autograder.core import safetext
from autograder.core.vocabulary import Problem, graded_path
from autograder.reports import csvsafe
from autograder.reports.boilerplate import file_stamp
from autograder.submission import digest as code_digest
from autograder.submission.notebook import InvalidNotebook, read_notebook

NOTE_FILE = "identical.csv"
COLUMNS = ["exercise", "student_id", "notebook", "why", "same_code_as", "code_digest"]


@dataclass
class Flag:
    """One flagged notebook (a row of ``identical.csv``)."""
    exercise: str
    student_id: str
    notebook: str
    why: str
    same_code_as: tuple = ()
    code_digest: str = ""


_read_ahead: dict = {}  # (path, its stamp, exercise name) -> digest, read ahead until taken


def read_ahead(path, exercise) -> None:
    """Take ``path``'s digest ahead of ``find`` (``grading/outputs.WarmUp``, while the class is
    graded); ``find`` takes it when the file has not changed since, else reads the file again."""
    _read_ahead[(str(path), file_stamp(path), exercise.name)] = _digest(path, exercise, ahead=False)


def _digest(path, exercise, ahead=True):
    """The whole-notebook code digest of ``path`` as graded, or ``None`` when unreadable."""
    key = (str(path), file_stamp(path), exercise.name)
    if ahead and key in _read_ahead:
        return _read_ahead.pop(key)
    release = exercise.release_notebook if exercise.release_notebook.is_file() else None
    try:
        # whitespace around a cell aside: a copy with blank lines added is still the same code here
        return code_digest.digests_for_notebook(read_notebook(path, release), exercise,
                                                exact=False)[code_digest.WHOLE_NOTEBOOK]
    except (InvalidNotebook, OSError, RecursionError, ValueError):
        return None


def _links(path):
    try:
        return os.lstat(path).st_nlink
    except OSError:
        return 1


def find(jobs: list, results: list) -> list:
    """The flagged notebooks of a graded class.

    Args:
        jobs: ``vocabulary.Job`` list; results: the ``vocabulary.NotebookResult`` of each, same order (or
            anything with their ``student_id`` and ``notebook``: ``stream.Row``; ``None``: no result).
    Returns:
        list of ``(index, Flag)``: ``index`` into ``results``; sorted by exercise and student.
    """
    return list(_flags(results, _groups(jobs, results)))


def _groups(jobs: list, results: list) -> tuple:
    """What ``identical.csv`` is made of, kept small: ``(links, by_code)``. ``links``: a ``Flag`` per
    hard-linked notebook file, with its index (rare). ``by_code``: ``{(exercise, digest): [index,
    ...]}`` of the notebooks with the same code, each digest kept once as 32 raw bytes (not a hex str
    per notebook), a group of one student dropped. A few dozen bytes a notebook: the other students
    of each row are written from its group when the row is (``_flags``), never held per notebook
    (a group of n students would hold n * n names)."""
    links, by_code, release_digests = [], {}, {}
    for i, (job, result) in enumerate(zip(jobs, results, strict=False)):
        if job.exercise is None or result is None:
            continue
        path = graded_path(job, result)
        exercise = job.exercise
        if exercise.name not in release_digests:
            release = exercise.release_notebook
            release_digests[exercise.name] = _digest(release, exercise) if release.is_file() else None
        digest = _digest(path, exercise)
        if digest is not None and digest != release_digests[exercise.name]:
            by_code.setdefault((exercise.name, _raw(digest)), []).append(i)
        for p in (job.path, *job.alternatives):
            if _links(p) > 1:
                links.append((i, Flag(exercise.name, result.student_id, safetext.display_name(p.name),
                                      f"hard link ({_links(p)} links to this file)", (), (digest or "")[:16])))
    for key in [k for k, members in by_code.items() if len({results[i].student_id for i in members}) < 2]:
        del by_code[key]
    return links, by_code


def _raw(digest: str):
    """A hex digest as its bytes (half the size, one object); any other text as it is."""
    try:
        return bytes.fromhex(digest)
    except ValueError:
        return digest


def _flags(results, groups):
    """The ``(index, Flag)`` of ``groups`` (``_groups``) one at a time, sorted by exercise, student
    and why (as ``find`` lists them). Held while they are given: one small tuple a flagged notebook
    (its sort key), and the one ``Flag`` given."""
    links, by_code = groups
    same = "the same code as another student's notebook"
    order = [(fl.exercise, fl.student_id, fl.why, k, None) for k, (_, fl) in enumerate(links)]
    for n, ((exercise, _), members) in enumerate(by_code.items()):
        order += [(exercise, results[i].student_id, same, n, i) for i in members]
    order.sort(key=lambda x: x[:3])  # stable: hard links first, then the groups as found (as before)
    groups_of = list(by_code.items())
    names: dict = {}  # group -> its students, sorted (each group's once: a pointer a member)
    for exercise, student, _, k, i in order:
        if i is None:
            yield links[k]
            continue
        (_, digest), members = groups_of[k]
        if k not in names:
            names[k] = tuple(sorted({results[j].student_id for j in members}))
        digest = digest.hex() if isinstance(digest, bytes) else digest
        yield i, Flag(exercise, student, results[i].notebook, same, tuple(s for s in names[k] if s != student),
                      digest[:16])


def _flag_identical(result):
    result.problems.add(Problem.IDENTICAL)


def flag(jobs: list, results, out_dir):
    """Add ``Problem.IDENTICAL`` to each flagged result and write ``out_dir/identical.csv``.

    ``results``: a ``NotebookResult`` list (changed in place) or a ``stream.Results`` (flagged on
    every later read). Each row is written as it is made (``_flags``): what stays in memory is the
    groups of ``_groups`` and an index a row.

    Returns:
        ``(path, flagged)``: the note file's ``Path`` and the index into ``results`` of each row
        written (an int a row; empty when none is flagged).
    """
    from autograder.grading.stream import Results
    results = Results.of(results)  # a list's results are changed in place; a stream's on every read
    rows = results.rows()  # who and which notebook: no result is read
    groups = _groups(jobs, rows)
    path = Path(out_dir) / NOTE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    flagged = []
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csvsafe.writer(f)
        writer.writerow(COLUMNS)
        for i, fl in _flags(rows, groups):
            writer.writerow([fl.exercise, fl.student_id, fl.notebook, fl.why, "; ".join(fl.same_code_as),
                             fl.code_digest])
            flagged.append(i)
    for i in flagged:
        results.edit(i, _flag_identical)
    return path, flagged
