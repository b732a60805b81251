"""Does ``nbgrader validate`` say what the visible checks say?

A failing visible check cell raises an exception whose first lines carry the failing
check, its expected and got values and the named mistake; nbgrader's Validator prints
that error (and the Validate button shows it), each line clipped at its width.
"""
import io

import nbformat
import pytest

from autograder.course.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes


def _validate(exercise, replacements, tmp_path):
    from nbgrader.validator import Validator
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", str(PROJECT_ROOT / "student")).load_config()
    path = tmp_path / exercise.notebook
    nbformat.write(filled_notebook(exercise, replacements), path)
    validator = Validator(config=config)
    validator.stream = io.StringIO()
    validator.validate_and_print(str(path))
    return validator, validator.stream.getvalue()


def test_validate_shows_the_named_mistake_and_expected_and_got(tmp_path):
    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    validator, out = _validate(EXERCISES["attention"], {mistake.function: mistake.code}, tmp_path)
    assert "VALIDATION FAILED" in out
    error = out[out.index("The error was:"):]
    lines = [line.strip() for line in error.splitlines()]
    first = next(i for i, line in enumerate(lines) if "visible checks of attention_row failed" in line)
    block = lines[first:first + 8]
    # the worked example of "the cat" (attention notebook): weights 0.330238, 0.669762 with the
    # sqrt(2) scaling, 0.268941, 0.731059 without it
    assert any(line.startswith("expected [0.330238, 0.669762]") for line in block), block
    assert any(line.startswith("got      [0.268941, 0.731059]") for line in block), block
    named = " ".join(block)
    assert "That is the value you get when you" in named and "sqrt(d_k)" in named, block
    assert not any(line.endswith("...") for line in block), block   # nothing clipped by the Validator
    assert all(len(line) <= validator.width for line in out.splitlines())


@pytest.mark.slow
def test_validate_of_a_learned_attention_backward_mistake(tmp_path):
    mistake = next(m for m in all_mistakes() if m.id == "learned_attention-backward_scaling_dropped")
    validator, out = _validate(EXERCISES["learned_attention"], {mistake.function: mistake.code}, tmp_path)
    error = out[out.index("The error was:"):]
    lines = [line.strip() for line in error.splitlines()]
    first = next(i for i, line in enumerate(lines) if "visible checks of attention_backward failed" in line)
    block = " ".join(lines[first:first + 8])
    assert "expected" in block and "got" in block
    assert "drop the 1/sqrt(d_k) scaling in the backward pass" in block, block
