"""What the gradebook holds of a released notebook, read once for a whole class (``Releases``).

Recording a class asks nbgrader's gradebook the same questions for every student: the notebook's
grade cells and their points, its source cells (``OverwriteCells`` restores locked cells from them),
its kernelspec, which cells a new submission mirrors. An ``nbgrader.api.Gradebook`` session expires
every object it loaded at each commit, so each notebook read them all again. ``Release`` is a plain
copy of those rows, taken when a class's first notebook of an assignment is recorded; nothing that
records a class changes them (``nbgrader generate_assignment`` does, between runs).
``ReleaseBook`` answers the finders nbgrader's ``OverwriteCells`` and ``OverwriteKernelspec`` call
from it, with nbgrader's ``MissingEntry`` where the gradebook would raise it.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cell:
    """A cell row of the release: a source cell (``cell_type``, ``locked``, ``source``, ``checksum``)
    or a grade, solution or task cell (``id``, ``max_score``), with nbgrader's attribute names."""
    name: str
    id: str = ""
    cell_type: str = ""
    locked: bool = False
    source: str = ""
    checksum: str | None = None
    max_score: float = 0.0


@dataclass(frozen=True)
class Release:
    """One notebook of an assignment as the gradebook records it.

    Attributes:
        name, assignment: the notebook's and the assignment's names.
        assignment_key, notebook_key: the ids of their rows in nbgrader's assignment and notebook tables.
        kernelspec: the notebook's kernelspec (JSON text) or ``None``.
        source_cells, grade_cells, solution_cells, task_cells: lists of ``Cell``, in the order
            nbgrader's relationships give them.
        mirrored: ``[(notebook_key, grade_ids, solution_ids, task_ids)]`` of every notebook of the
            assignment, by name, as ``Gradebook.add_submission`` mirrors them for a new submission.
    """
    name: str
    assignment: str
    assignment_key: str
    notebook_key: str
    kernelspec: str | None
    source_cells: list = field(default_factory=list)
    grade_cells: list = field(default_factory=list)
    solution_cells: list = field(default_factory=list)
    task_cells: list = field(default_factory=list)
    mirrored: list = field(default_factory=list)

    def cell_names(self):
        """``{cell row id: name}`` of the grade and task cells (what a ``Grade`` row points to)."""
        return {c.id: c.name for c in self.grade_cells + self.task_cells}


def _kinds(notebook):
    from nbgrader import api
    grade = [c for c in notebook._base_cells if isinstance(c, api.GradeCell)]  # nbgrader's Notebook.grade_cells
    solution = [c for c in notebook._base_cells if isinstance(c, api.SolutionCell)]
    task = [c for c in notebook._base_cells if isinstance(c, api.TaskCell)]
    return grade, solution, task


def read_release(gb, notebook_id, assignment_id):
    """The ``Release`` of ``notebook_id`` in ``assignment_id``, read through the open gradebook ``gb``.
    Raises nbgrader's ``MissingEntry`` when the gradebook has no such notebook."""
    from nbgrader import api
    notebook = gb.find_notebook(notebook_id, assignment_id)
    grade, solution, task = _kinds(notebook)
    points = {}  # max_score of the grade and task cells in one query each, not one a cell
    for kind in (api.GradeCell, api.TaskCell):
        points.update(gb.db.query(kind.id, kind.max_score).filter(kind.notebook_id == notebook.id).all())
    mirrored = []
    for other in notebook.assignment.notebooks:  # ordered by name, as add_submission walks them
        g, s, t = _kinds(other)
        mirrored.append((other.id, [c.id for c in g], [c.id for c in s], [c.id for c in t]))
    return Release(
        name=notebook.name, assignment=assignment_id, assignment_key=notebook.assignment.id,
        notebook_key=notebook.id, kernelspec=notebook.kernelspec,
        source_cells=[Cell(c.name, c.id, c.cell_type, bool(c.locked), c.source, c.checksum)
                      for c in notebook.source_cells],
        grade_cells=[Cell(c.name, c.id, max_score=float(points[c.id])) for c in grade],
        solution_cells=[Cell(c.name, c.id) for c in solution],
        task_cells=[Cell(c.name, c.id, max_score=float(points[c.id])) for c in task],
        mirrored=mirrored)


class Releases:
    """The ``Release`` of each notebook a class records, read once through the open gradebook ``gb``."""

    def __init__(self, gb):
        self.gb = gb
        self._read: dict = {}
        self.kept: dict = {}  # what else a class's recording makes once (``feedback._steps``)

    def get(self, notebook_id, assignment_id):
        """The ``Release`` (read on first use); nbgrader's ``MissingEntry`` when there is none (not kept:
        ``generate_assignment`` may add it before the next question)."""
        key = (notebook_id, assignment_id)
        if key not in self._read:
            self._read[key] = read_release(self.gb, notebook_id, assignment_id)
        return self._read[key]


class ReleaseBook:
    """An open ``Gradebook`` whose finders for one released notebook answer from its ``Release``, for
    nbgrader's ``OverwriteCells`` (every cell's source and grade cell) and ``OverwriteKernelspec``.
    Questions about other notebooks, and everything else, go to the gradebook itself."""

    def __init__(self, gb, release):
        self._gb, self.release = gb, release
        self._source = {c.name: c for c in release.source_cells}
        self._graded = {c.name: c for c in release.grade_cells + release.task_cells}

    def _mine(self, notebook_id, assignment_id):
        return (notebook_id, assignment_id) == (self.release.name, self.release.assignment)

    def find_notebook(self, name, assignment):
        """The ``Release`` itself (``source_cells``, ``grade_cells``, ``solution_cells``, ``task_cells``,
        ``kernelspec``, as nbgrader's ``Notebook``)."""
        return self.release if self._mine(name, assignment) else self._gb.find_notebook(name, assignment)

    def find_source_cell(self, name, notebook, assignment):
        """The released source cell ``name`` (nbgrader's ``MissingEntry`` if none)."""
        from nbgrader.api import MissingEntry
        if not self._mine(notebook, assignment):
            return self._gb.find_source_cell(name, notebook, assignment)
        try:
            return self._source[name]
        except KeyError:
            raise MissingEntry(f"No such source cell: {assignment}/{notebook}/{name}") from None

    def find_graded_cell(self, name, notebook, assignment):
        """The grade or task cell ``name`` (nbgrader's ``MissingEntry`` if none)."""
        from nbgrader.api import MissingEntry
        if not self._mine(notebook, assignment):
            return self._gb.find_graded_cell(name, notebook, assignment)
        try:
            return self._graded[name]
        except KeyError:
            raise MissingEntry(f"No such graded cell: {assignment}/{notebook}/{name}") from None

    def __getattr__(self, name):
        return getattr(self._gb, name)
