"""The nbgrader preprocessors made cheap for a class (``nbgrader_glue/cells.py``) decide as
nbgrader's own do: every released notebook passes, and a corrupted one fails every time."""
import copy

import nbformat
import pytest
from nbgrader.nbgraderformat import ValidationError
from nbgrader.preprocessors import CheckCellMetadata

from autograder.core.registry import EXERCISES
from autograder.nbgrader_glue.cells import CheckCellMetadataOnce


def _verdict(preprocessor, nb):
    try:
        preprocessor().preprocess(copy.deepcopy(nb), {})
    except ValidationError:
        return "fails"
    except Exception as exc:  # noqa: BLE001 (nbgrader's schema-version errors are not ValidationErrors)
        return f"raises {type(exc).__name__}"
    return "passes"


def _corrupted(nb, how):
    nb = copy.deepcopy(nb)
    graded = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    if how == "no points":
        del graded.metadata["nbgrader"]["points"]
    elif how == "empty grade_id":
        graded.metadata["nbgrader"]["grade_id"] = ""
    elif how == "duplicate grade_id":
        other = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
        other.metadata["nbgrader"]["grade_id"] = graded.metadata["nbgrader"]["grade_id"]
    elif how == "points not a number":  # caught by nbgrader's JSON schema itself
        graded.metadata["nbgrader"]["points"] = "five"
    elif how == "schema too new":
        graded.metadata["nbgrader"]["schema_version"] = 99
    return nb


@pytest.mark.parametrize("how", ["no points", "empty grade_id", "duplicate grade_id", "points not a number",
                                 "schema too new"])
def test_the_same_verdict_as_nbgraders_on_released_and_corrupted_notebooks(how):
    for exercise in EXERCISES.values():
        nb = nbformat.read(exercise.release_notebook, as_version=4)
        assert _verdict(CheckCellMetadata, nb) == _verdict(CheckCellMetadataOnce, nb) == "passes"
        bad = _corrupted(nb, how)
        theirs = _verdict(CheckCellMetadata, bad)
        assert theirs != "passes", how
        for _ in range(2):  # after its valid cells were seen, and again
            assert _verdict(CheckCellMetadataOnce, bad) == theirs, (exercise.name, how)
