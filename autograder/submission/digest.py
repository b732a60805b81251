"""The digest of a notebook's code as graded, which seeds its randomized hidden cases.

A student's randomized cases are seeded by HMAC(course secret, student id, check name, this
digest) (``seeds.case_seed``): regrading the same notebook gives the same cases, and any
change to its code gives new ones, so the cases a failing check shows cannot be collected
over resubmissions into a table of answers.

What is digested, for the checks of one function: the code cells that run before that
function's hidden-test cell, in order, each exactly as the student's notebook holds it after
intake (nbgrader's ``OverwriteCells``: read-only cells as released; ``submission/notebook.py``),
every byte of it but the newlines that end the cell (leading blank lines, indentation, spaces
inside strings and the cell boundaries all count: code can read its own line numbers and source),
cells holding only whitespace left out (no path runs them), and the course's own cells left out
(hidden-test cells and instructor demos: no student writes them). What IPython's input
transformer makes of a cell is a function of these bytes, so it is covered too. Code after the
hidden-test cell is not part of it: it cannot change that function's grade.

The same digest is computed on every path that grades:

* ``python -m autograder grade`` and Gradescope (``grading.notebook.grade_notebook``): from the cells
  ``submission.notebook.read_notebook`` returns (``Cell.raw``), by ``digests_for_notebook``;
* ``nbgrader autograde`` (``nbgrader_glue.in_kernel.grade`` in the hidden-test cell, in the student's kernel):
  from IPython's history of the raw cells the kernel ran before the current one, by
  ``digest_in_kernel``. nbclient sends each cell's source as the notebook holds it and skips
  cells that hold only whitespace; IPython's history keeps each cell but the newlines that end
  it. That is why those two, and only those, are left out on every path (``cell_text``).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

WHOLE_NOTEBOOK = "*"  # key of the digest of every code cell (functions without a test cell)


def cell_text(text) -> str:
    """What the digest takes of one code cell's source: every byte but the newlines that end
    it (IPython's history drops those), or ``""`` for a cell of only whitespace (nbclient does
    not run it)."""
    text = text or ""
    return text.rstrip("\n") if text.strip() else ""


def course_cell_texts(exercise) -> frozenset[str]:
    """The texts (``cell_text``) of the course's own code cells of ``exercise``: hidden-test cells
    (with and without their hidden region) and instructor demos, from the source and release
    notebooks that exist on this machine (``frozenset`` of ``str``). A student cell that is
    exactly one of these holds nothing of the student's, and is left out on every path."""
    texts = set()
    for path in (exercise.source_notebook, exercise.release_notebook):
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for cell in data.get("cells", []):
            meta = cell.get("metadata", {})
            nb = meta.get("nbgrader", {})
            test = nb.get("grade") and not nb.get("solution")
            if cell.get("cell_type") == "code" and (test or "instructor-demo" in meta.get("tags", [])):
                source = cell.get("source", "")
                texts.add(cell_text("".join(source) if isinstance(source, list) else str(source)))
    return frozenset(texts)


def digest(texts, course_texts=frozenset(), exact: bool = True) -> str:
    """Hex SHA-256 of a sequence of cell sources (``str``), by the rule of the module docstring.

    Args:
        texts: the cells' raw sources, in the order they run.
        course_texts: texts (``cell_text``) of the course's own cells, left out (``course_cell_texts``).
        exact: ``False`` strips each cell's leading and trailing whitespace first: the same
            digest for copies that differ only there (``grading/identical.py`` flags them as the
            same code; the seeds always use the exact digest).
    Returns:
        64 hex digits (``str``).
    """
    h = hashlib.sha256()
    for text in texts:
        text = cell_text(text)
        if not exact:
            text = text.strip()
        if not text or text in course_texts or (not exact and text in {t.strip() for t in course_texts}):
            continue
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))  # length-prefixed: cell boundaries count
        h.update(data)
    return h.hexdigest()


def digests_for_notebook(notebook, exercise, exact: bool = True):
    """``{function: digest}`` for the grader (``notebook``: ``submission.notebook.Notebook``).

    Each function with a hidden-test cell gets the digest of the cells before it; the key
    ``WHOLE_NOTEBOOK`` holds the digest of all code cells, for functions without one.
    ``exact``: as for ``digest``.
    """
    course = course_cell_texts(exercise)
    found: dict[str, str] = {}  # function -> digest
    texts: list[str] = []
    for cell in notebook.cells:
        if cell.checkpoint:
            name = cell.checkpoint[len("test_"):] if cell.checkpoint.startswith("test_") else cell.checkpoint
            found.setdefault(name, digest(texts, course, exact))
        elif not cell.demo:
            texts.append(cell.raw)
    found[WHOLE_NOTEBOOK] = digest(texts, course, exact)
    return found


def digest_in_kernel(exercise, shell=None):
    """The digest of the cells an IPython kernel ran before the one running now, or ``None``
    outside IPython (then the cases are seeded without a digest, as a plain namespace has no
    notebook).

    Args:
        exercise: the ``registry.Exercise`` being graded.
        shell: the ``InteractiveShell`` (default: ``get_ipython()``).
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return None
        shell = get_ipython()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if shell is None or history is None:
        return None
    # IPython stores a cell in its history before running it: the running cell is the last
    # entry (the first, index 0, is an empty placeholder).
    return digest(list(history)[1:-1], course_cell_texts(exercise))
