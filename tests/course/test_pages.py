"""Is README's exercise table the registry's, row for row?"""
import pytest

from autograder.core.registry import EXERCISES
from autograder.course import pages


def test_readme_table_is_generated_from_the_registry():
    text = pages.README.read_text(encoding="utf-8")
    assert pages.with_table(text) == text, "README.md's exercise table is out of date: run python -m autograder build"
    rows = [line for line in text.split(pages.TABLE_BEGIN)[1].split(pages.TABLE_END)[0].splitlines()
            if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == list(EXERCISES)
    for row, exercise in zip(rows, EXERCISES.values(), strict=False):
        assert row.endswith(f"| {exercise.points:g} |") and exercise.summary in row


def test_missing_markers_are_an_error():
    with pytest.raises(ValueError, match="markers are missing"):
        pages.with_table("# a README without its table\n")
