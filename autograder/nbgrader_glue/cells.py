"""nbgrader's ``OverwriteCells``, minus its false alarm on hidden-test cells left as released;
its ``OverwriteKernelspec`` and ``CheckCellMetadata`` made cheap for a class recorded at once.

nbgrader saves a test cell's checksum with its hidden tests, then strips them from the
release, so its ``OverwriteCells`` reports "Attribute 'checksum' for cell test_... has
changed!" for every hidden-test cell of every honest submission. ``OverwriteReleasedCells``
first gives a locked cell whose text is exactly the released text the gradebook's text
back, silently; any other change is still reported and undone by ``OverwriteCells``.

Used by ``nbgrader_glue/gradebook.py`` and, through ``nbgrader_config.py``
(``Autograde.sanitize_preprocessors``), by ``nbgrader autograde``. Importing this module
imports nbgrader (a few seconds), which is why it is separate.
"""
import functools
import json
import traceback

import jsonschema
import nbformat
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests, OverwriteCells, OverwriteKernelspec


def released_source(source, parent=None):
    """The text a hidden-test cell has in the student release.

    Args:
        source: the cell's text in the source notebook (``str``).
        parent: a configurable whose config holds the course's hidden-test delimiters
            (``ClearHiddenTests.begin_test_delimeter``...); default: nbgrader's.
    Returns:
        ``source`` without its ``### BEGIN/END HIDDEN TESTS`` region, as nbgrader's
        ``ClearHiddenTests`` makes it; ``None`` when the region is malformed. Each text is
        cut once a process for each pair of delimiters (a class asks for the same cells
        once for every student).
    """
    return _released(source, *_delimiters(parent))


_DELIMITERS: dict = {}


def _delimiters(parent):
    """``(begin, end)`` hidden-test delimiters of ``ClearHiddenTests`` configured under ``parent``,
    kept for each kind of parent and config object (the config kept with them, so its id stays its)."""
    config = getattr(parent, "config", None)
    key = (type(parent), id(config))
    if key not in _DELIMITERS:
        step = ClearHiddenTests(parent=parent, enforce_metadata=False)
        _DELIMITERS[key] = (config, step.begin_test_delimeter, step.end_test_delimeter)
    return _DELIMITERS[key][1:]


@functools.lru_cache(maxsize=4096)
def _released(source, begin, end):
    cell = nbformat.NotebookNode(cell_type="code", metadata=nbformat.NotebookNode(), source=source)
    step = ClearHiddenTests(enforce_metadata=False, begin_test_delimeter=begin, end_test_delimeter=end)
    try:
        step._remove_hidden_test_region(cell)
    except RuntimeError:
        return None
    return cell.source


class OverwriteReleasedCells(OverwriteCells):
    """``OverwriteCells`` that is quiet on hidden-test cells left exactly as released."""

    def preprocess(self, nb, resources):
        """nbgrader's, through the open gradebook ``resources["nbgrader"]["gradebook"]`` when the
        caller gives one (the grade command records a class through one), else through its own."""
        gb = resources["nbgrader"].get("gradebook")
        if gb is None:
            return super().preprocess(nb, resources)
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = _SourceCells(gb, self.notebook_id, self.assignment_id)
        nb, resources = super(OverwriteCells, self).preprocess(nb, resources)  # as OverwriteCells, unclosed
        if self.add_missing_cells:
            nb, resources = self.add_missing_grade_cells(nb, resources)
            nb, resources = self.add_missing_task_cells(nb, resources)
        return nb, resources

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and utils.is_locked(cell):
            try:
                source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                pass  # OverwriteCells reports it
            else:
                if source_cell.locked and cell.source == released_source(source_cell.source, self):
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)

    def add_missing_grade_cells(self, nb, resources):
        """Put back grade cells a student deleted, each after the nearest earlier cell of the
        source notebook that the submission still has (else first).

        nbgrader 0.9.6 looks only at the cell just before it in the source, and only among
        graded and solution cells: when that cell is locked but neither (a visible-check or
        demo cell of this course), it raises ``KeyError`` and the student's whole notebook
        fails to autograde. Same placement otherwise.
        """
        source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        source_cells = source_nb.source_cells
        source_ids = [cell.name for cell in source_cells]
        solution_ids = {cell.name for cell in source_nb.solution_cells}
        for grade_cell in source_nb.grade_cells:
            present = {}
            for i, cell in enumerate(nb.cells):
                meta = cell["metadata"].get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
                if isinstance(meta, dict) and meta.get("grade_id") and meta["grade_id"] not in present:
                    present[meta["grade_id"]] = i
            if grade_cell.name in present:
                continue
            self.log.warning(f"Missing grade cell {grade_cell.name} encountered, adding to notebook")
            k = source_ids.index(grade_cell.name)
            new = self.missing_cell_transform(source_cells[k], grade_cell.max_score,
                                              is_solution=grade_cell.name in solution_ids)
            before = next((present[source_ids[j]] for j in range(k - 1, -1, -1) if source_ids[j] in present), None)
            nb.cells.insert(0 if before is None else before + 1, new)
        return nb, resources


class _SourceCells:
    """An open ``Gradebook`` whose ``find_source_cell`` for one notebook answers from the notebook's
    source cells, read in one query: ``OverwriteCells`` asks for every cell, and this class's
    ``preprocess_cell`` asks once more for each locked one. Everything else goes to the gradebook."""

    def __init__(self, gb, notebook_id, assignment_id):
        self._gb, self._where = gb, (notebook_id, assignment_id)
        try:
            self._cells = {c.name: c for c in gb.find_notebook(notebook_id, assignment_id).source_cells}
        except MissingEntry:
            self._cells = None  # each question then goes to the gradebook, which says so

    def find_source_cell(self, name, notebook_id, assignment_id):
        if self._cells is None or (notebook_id, assignment_id) != self._where:
            return self._gb.find_source_cell(name, notebook_id, assignment_id)
        try:
            return self._cells[name]
        except KeyError:
            raise MissingEntry() from None

    def __getattr__(self, name):
        return getattr(self._gb, name)



class OverwriteKernelspecOpen(OverwriteKernelspec):
    """nbgrader's ``OverwriteKernelspec`` through the open gradebook ``resources["nbgrader"]
    ["gradebook"]`` when the caller gives one: nbgrader's opens a ``Gradebook`` (an engine and
    a session) for every notebook. The same kernelspec is put in place."""

    def preprocess(self, nb, resources):
        gb = resources["nbgrader"].get("gradebook")
        if gb is None:
            return super().preprocess(nb, resources)
        notebook = gb.find_notebook(resources["nbgrader"]["notebook"], resources["nbgrader"]["assignment"])
        if notebook.kernelspec:
            nb.metadata["kernelspec"] = json.loads(notebook.kernelspec)
        return nb, resources


class _CompiledSchema(BaseMetadataValidator):
    """nbgrader's ``BaseMetadataValidator.validate_cell`` (schema version, then ``jsonschema.validate``
    against nbgrader's schema), with the schema's validator built once a process: ``jsonschema.validate``
    checks the schema itself and builds a validator at every call (1.5 ms against 0.06). Metadata of the
    right version that the validator finds valid passes, as ``jsonschema.validate`` would let it; all
    else goes to nbgrader's own method, which raises its own error."""

    _validators: dict = {}

    def validate_cell(self, cell):
        meta = cell.metadata.get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
        if isinstance(meta, dict) and meta.get("schema_version", 0) == self.schema_version:
            if self.schema_version not in self._validators:
                self._validators[self.schema_version] = jsonschema.validators.validator_for(self.schema)(self.schema)
            if self._validators[self.schema_version].is_valid(meta):
                return
        super().validate_cell(cell)


class _MetadataValidatorOnce(MetadataValidator, _CompiledSchema):
    """nbgrader's metadata validator, each distinct cell checked once in this process: what
    ``validate_cell`` decides depends on the cell's type and its nbgrader metadata alone, and
    ``jsonschema.validate`` checks the schema itself again at every call (``_CompiledSchema``: nbgrader's
    schema step, its validator built once). Failures are not kept: a cell that fails fails each time,
    with nbgrader's own error."""

    _passed: set = set()

    def validate_cell(self, cell):
        meta = cell.metadata.get("nbgrader") if isinstance(cell.get("metadata"), dict) else None
        try:
            key = (cell.cell_type, json.dumps(meta, sort_keys=True))
        except (TypeError, ValueError):
            key = None
        if key is not None and key in self._passed:
            return
        super().validate_cell(cell)
        if key is not None and (not isinstance(meta, dict) or meta.get("cell_type", cell.cell_type) == cell.cell_type):
            self._passed.add(key)  # a changed cell type is logged again each time, as nbgrader does


class CheckCellMetadataOnce(CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` with ``_MetadataValidatorOnce``: the same verdicts, the
    same error on a notebook that fails."""

    _validator = None  # one a process: nbgrader's reads its three schema files each time it is made

    def preprocess(self, nb, resources):
        if CheckCellMetadataOnce._validator is None:
            CheckCellMetadataOnce._validator = _MetadataValidatorOnce()
        try:
            CheckCellMetadataOnce._validator.validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            raise ValidationError("Notebook failed to validate; the nbgrader metadata may be corrupted.") from None
        return nb, resources
