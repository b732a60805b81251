"""Fill a released notebook the way a student would: with the reference, or with a mistake.

Used by the demo class (``autograder.demo.run``) and by the tests, so both hand in the
same realistic submissions.
"""
import re

import nbformat

SOLUTION_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


def reference_code(exercise):
    """``{function: source of its solution cell, markers removed}`` from the source notebook."""
    nb = nbformat.read(exercise.source_notebook, as_version=4)
    code = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            code[meta["grade_id"]] = "\n".join(
                ln for ln in cell.source.splitlines() if not SOLUTION_MARKERS.match(ln))
    return code


def filled_notebook(exercise, replacements=None, stubs=()):
    """The student release of ``exercise`` with its solution cells filled in.

    Args:
        exercise: a ``registry.Exercise``.
        replacements: ``{function: source}`` to hand in instead of the reference
            (a realistic mistake); the source replaces the whole solution cell.
        stubs: functions left as released (``raise NotImplementedError()``).
    Returns:
        ``nbformat.NotebookNode`` ready to write as a submission.
    Raises:
        KeyError: a replacement names a function with no solution cell.
    """
    replacements = dict(replacements or {})
    reference = reference_code(exercise)
    unknown = set(replacements) - set(reference)
    if unknown:
        raise KeyError(f"no solution cell for {sorted(unknown)} in {exercise.name}")
    nb = nbformat.read(exercise.release_notebook, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("solution") or grade_id in stubs:
            continue
        cell.source = replacements.get(grade_id, reference.get(grade_id, cell.source))
    return nb
