"""Read the code cells of a submitted notebook, however it was handed in.

Students delete, add, reorder and retype cells, change ids and metadata, and sometimes
hand in files that are not notebooks at all. The grader needs only the code, in order;
this module gets it or says precisely why it cannot.
"""
import json
from pathlib import Path

from .submission_files import UnreadableSubmission, code_size_problem, read_submission

MAX_NOTEBOOK_BYTES = 50 * 1024 ** 2  # a notebook bloated by printed output beyond this is refused


class InvalidNotebook(Exception):
    """The file is not a notebook the grader can read; ``str(exc)`` says why."""


def _text(source):
    if isinstance(source, list):
        return "".join(str(s) for s in source)
    return source if isinstance(source, str) else ""


def read_code_cells(path):
    """Code cells of the notebook at ``path``, in order.

    Returns:
        list of ``(index, source)``: ``index`` counts code cells from 1 (as feedback
        names them: "cell 3"), ``source`` is a ``str``.
    Raises:
        InvalidNotebook: unreadable, too large, not JSON, or not a notebook.
    """
    path = Path(path)
    try:  # [sandbox hook] a regular file, never through a symbolic link
        raw = read_submission(path)
    except UnreadableSubmission as exc:
        raise InvalidNotebook(str(exc)) from None
    size = len(raw)
    if size > MAX_NOTEBOOK_BYTES:
        raise InvalidNotebook(f"{path.name} is {size / 1024 ** 2:.0f} MB; clear the outputs and hand it in again")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except RecursionError:
        raise InvalidNotebook(f"{path.name} is not a valid notebook (nested too deeply)") from None
    except ValueError as exc:
        raise InvalidNotebook(f"{path.name} is not a valid notebook (not JSON: {exc})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if cells is None and isinstance(data, dict) and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [dict(c, source=c.get("source", c.get("input", "")))
                 for ws in data["worksheets"] if isinstance(ws, dict) and isinstance(ws.get("cells"), list)
                 for c in ws["cells"] if isinstance(c, dict)]
    if not isinstance(cells, list):
        raise InvalidNotebook(f"{path.name} is not a valid notebook (no list of cells)")
    code = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            index = len(code) + 1
            code.append((index, "" if _is_test_cell(cell) else _text(cell.get("source", ""))))
    if problem := code_size_problem(code, path.name):  # [sandbox hook] a cap on code, not outputs
        raise InvalidNotebook(problem)
    return code


def _is_test_cell(cell):
    """nbgrader's autograder test cells hold the course's checks, not student code."""
    meta = cell.get("metadata")
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return isinstance(meta, dict) and meta.get("grade") is True and not meta.get("solution")
