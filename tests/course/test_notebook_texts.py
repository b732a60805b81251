"""Do the released notebooks stand alone?

A student has the notebook and the course text, *Text to Attention From Scratch*, with its
section names; not the course's internal files. The scan reads the suite's snapshot of the
committed release (``tests/course/test_build.py`` checks that the build generates exactly it), never
the live ``assignments/``.
"""
import re

import nbformat
import pytest

from autograder.core.registry import EXERCISES

TITLE = "Text to Attention From Scratch"

# Names a student cannot look up: internal file names and numbers of internal documents.
INTERNAL = [
    (re.compile(r"course text \d", re.I), "a course text by its file number"),
    (re.compile(r"\bseeds?\b[ /_]*\d{3}", re.I), "a seed file number"),
    (re.compile(r"WORKED_EXAMPLES|\bshared/|\.\./shared|\bseeds/", re.I), "an internal file"),
    (re.compile(r"\bsection \d+\b(?! \(\*)", re.I), "a bare section number (name the section)"),
]
# Terms of the course text that mean nothing without its title nearby.
TEXT_TERMS = re.compile(r"reading room|three stamps", re.I)


_RELEASED = {}


def _release(exercise):
    """The release notebook of ``exercise``, as the suite's snapshot of the committed release holds
    it (read once per session; ``tests/course/test_build.py`` checks that the build generates exactly it)."""
    if exercise.name not in _RELEASED:
        _RELEASED[exercise.name] = nbformat.read(exercise.release_notebook, as_version=4)
    return _RELEASED[exercise.name]


@pytest.fixture(scope="module", params=list(EXERCISES))
def released(request):
    exercise = EXERCISES[request.param]
    return exercise, _release(exercise)


def problems_in(cells):
    """``[(cell index, what, matched text)]`` for every internal name in ``cells``' sources."""
    found = []
    for i, cell in enumerate(cells):
        for pattern, what in INTERNAL:
            found += [(i, what, m.group(0)) for m in pattern.finditer(cell.source)]
        if TEXT_TERMS.search(cell.source) and TITLE not in cell.source:
            found.append((i, "a course-text term without the text's title", TEXT_TERMS.search(cell.source).group(0)))
    return found


def test_the_scan_catches_what_the_students_reported():
    cells = [nbformat.v4.new_markdown_cell(s) for s in (
        'The toy model of course text 000.', 'sentences (seed 000, "attention in 80 lines")',
        "the loss 3.927973 (section 8)", "the three stamps of the course text's *reading room*")]
    assert [p[0] for p in problems_in(cells)] == [0, 1, 2, 3]
    fine = [nbformat.v4.new_markdown_cell(s) for s in (
        'the "three stamps" of the course text *Text to Attention From Scratch*, section "The reading room"',
        "the situation of section 1 (*Direction, not length*)", "seed 5, 26 steps")]
    assert problems_in(fine) == []


def test_released_notebooks_name_no_internal_file(released):
    exercise, nb = released
    assert problems_in(nb.cells) == []


def test_learned_attention_names_the_course_text_by_its_title():
    nb = _release(EXERCISES["learned_attention"])
    text = "\n".join(c.source for c in nb.cells)
    assert TITLE in text
    for section in ("The reading room", "Build it: attention in 80 lines", "Three experiments", "The budget"):
        assert f'"{section}"' in text


def test_the_two_head_example_says_which_position_table_it_uses():
    """Its inputs are positional_encoding(T, 4), whose columns 2-3 are not the 8-wide table's."""
    from solutions.learned_attention import positional_encoding
    four, eight = positional_encoding(5, 4), positional_encoding(5, 8)
    assert abs(four[:, :2] - eight[:, :2]).max() < 1e-15          # first pair: the same
    assert abs(four[:, 2:4] - eight[:, 2:4]).max() > 0.3          # second pair: not
    source = EXERCISES["learned_attention"].text_form.read_text()
    assert "the first four columns of the position table." not in source
    assert "positional_encoding(T, 4)`" in source and "not the first four columns" in source


def test_the_heads_question_does_not_hide_that_80_does_not_divide_768():
    source = EXERCISES["learned_attention"].text_form.read_text()
    assert 768 % 80 != 0 and 768 % 96 == 0
    assert "80 heads on a width of 768, what would" not in source
    assert "80 does not divide 768" in source


def test_attention_question_2_says_which_values():
    source = EXERCISES["attention"].text_form.read_text()
    assert "if only their values differed" not in source
    assert "value rows" in source
