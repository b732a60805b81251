"""A class's results kept on disk, read back one at a time (``Results``): what the pass after
grading (``grading/outputs.py``) walks through, so that the grading command's memory does not
grow with every notebook's checks, feedback and values.

Each result is read back from the record the resume store wrote for it (``grading/resume.py``:
``OUT/.resume/<key>.json``, the same bytes a later run reuses), or, for a result the store does not
keep (a grader error, a notebook of no known exercise, a run with ``--fresh``), from a spill file
of this run (a temporary file, deleted when the ``Results`` is). In memory stays a ``Row`` per
notebook (who, what, points: a few hundred bytes) and the edits the pass after grading makes
(``edit``: a late note, the gradebook's notes, the identical flag), applied again on every read.
"""
from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autograder.core.vocabulary import NotebookResult


@dataclass(frozen=True, slots=True)
class Row:
    """What the pass after grading needs of a notebook without reading its result: ``student_id``,
    ``assignment_id``, ``notebook`` (``str``, as in ``NotebookResult``), ``score`` and ``max_score``
    (points, ``float``). Slotted: about 100 bytes with its points, not 250 with a ``__dict__``."""
    student_id: str
    assignment_id: str
    notebook: str
    score: float
    max_score: float


def row_of(result: NotebookResult) -> Row:
    """The ``Row`` of ``result`` (names interned: a student's notebooks share one copy)."""
    return Row(sys.intern(result.student_id), sys.intern(result.assignment_id), sys.intern(result.notebook),
               float(result.score), float(result.max_score))


class Results(Sequence):
    """The ``NotebookResult`` of each job of a class run, in the jobs' order, as a sequence:
    ``results[i]`` reads result ``i`` back (a new object each time, with every ``edit`` of it
    applied); ``rows()`` gives the small ``Row`` of each without reading anything.

    Args:
        n: the number of jobs.
        on_disk: keep results on disk (``True``) or the objects themselves in memory (``False``:
            a small run, a test; ``edit`` then changes the object at once).
    """

    def __init__(self, n: int, on_disk: bool = True):
        self._where: list = [None] * n  # a resume record's path (str), an offset into the spill, or the result
        self._rows: list = [None] * n
        self._edits: dict = {}
        self.on_disk = on_disk
        self._spill = None

    @classmethod
    def of(cls, results) -> Results:
        """``results`` as a ``Results``: itself when it is one, else a list of ``NotebookResult``
        (or ``None``) kept in memory."""
        if isinstance(results, Results):
            return results
        kept = cls(len(results), on_disk=False)
        for i, r in enumerate(results):
            if r is not None:
                kept.put(i, r)
        return kept

    def put(self, i: int, result: NotebookResult, record=None) -> None:
        """Keep ``result`` as result ``i``: by the path of its resume record ``record`` (a
        ``Path`` whose JSON holds it under ``"result"``, as ``resume.Store.save`` writes), else
        in the spill file (on disk) or as it is (in memory)."""
        self._rows[i] = row_of(result)
        if not self.on_disk:
            self._where[i] = result
        elif record is not None:
            self._where[i] = str(record)
        else:
            from autograder.grading.resume import result_to
            if self._spill is None:
                self._spill = tempfile.TemporaryFile(prefix="autograder-results-")
            self._spill.seek(0, 2)
            offset = self._spill.tell()
            data = json.dumps(result_to(result), ensure_ascii=False).encode("utf-8")
            self._spill.write(data)
            self._where[i] = (offset, len(data))

    def edit(self, i: int, change: Callable[[NotebookResult], None]) -> None:
        """Change result ``i`` by ``change(result)`` (in place), now and on every later read; a
        change must give the same result when applied twice (e.g. add a note not yet there)."""
        if not self.on_disk:
            if self._where[i] is not None:
                change(self._where[i])
                self._rows[i] = row_of(self._where[i])
            return
        self._edits.setdefault(i, []).append(change)

    def row(self, i: int) -> Row | None:
        """The ``Row`` of result ``i`` (``None``: no result)."""
        return self._rows[i]

    def rows(self) -> list:
        """Every ``Row`` (``None`` where there is no result), in order."""
        return list(self._rows)

    def __len__(self) -> int:
        return len(self._where)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        where = self._where[i]
        if where is None or isinstance(where, NotebookResult):
            return where
        from autograder.grading.resume import result_from
        if isinstance(where, str):
            with open(where, encoding="utf-8") as f:
                result = result_from(json.load(f)["result"])
        else:
            offset, length = where
            self._spill.seek(offset)
            result = result_from(json.loads(self._spill.read(length).decode("utf-8")))
        for change in self._edits.get(i if i >= 0 else len(self) + i, ()):
            change(result)
        return result

    def close(self) -> None:
        """Delete the spill file (results kept there cannot be read after)."""
        if self._spill is not None:
            self._spill.close()
            self._spill = None
