"""Does ``nbgrader validate`` say what the visible checks say?

The visible check cells print and never raise; the summary cell at the end raises one
exception whose lines carry the named mistakes first (the check and what the student did),
then how many other checks fail; nbgrader's Validator prints that error (and the Validate
button shows it), each line clipped at its width.
"""
import io

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
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


@pytest.mark.slow  # slow tier (docs/development.md): runs nbgrader validate
def test_validate_shows_the_named_mistake(tmp_path):
    mistake = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
    validator, out = _validate(EXERCISES["attention"], {mistake.function: mistake.code}, tmp_path)
    assert "VALIDATION FAILED ON 1 CELL(S)" in out
    error = out[out.index("The error was:"):]
    lines = [line.strip() for line in error.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("VisibleCheckFailed: "))
    block = lines[first:first + 8]
    # the attention_row checks of "the cat" (weights and context vector) both give the unscaled values
    assert lines[first + 1] == "Fix first (a known mistake gives these values):", block
    named = " ".join(block)
    assert "attention_row, 2 checks: you forget to divide the scores by sqrt(d_k)" in named, block
    assert not any(line.endswith("...") for line in block), block   # nothing clipped by the Validator
    assert all(len(line) <= validator.width for line in out.splitlines())
    assert "Traceback" not in error   # the message alone, no frames


@pytest.mark.slow
def test_validate_of_a_learned_attention_backward_mistake(tmp_path):
    mistake = next(m for m in all_mistakes() if m.id == "learned_attention-backward_scaling_dropped")
    validator, out = _validate(EXERCISES["learned_attention"], {mistake.function: mistake.code}, tmp_path)
    error = out[out.index("The error was:"):]
    block = " ".join(line.strip() for line in error.splitlines())
    assert "Fix first" in block and "attention_backward" in block
    assert "drop the 1/sqrt(d_k) scaling in the backward pass" in block, block


def _validate_without_settings(exercise, replacements, tmp_path, monkeypatch):
    """nbgrader validate as a student runs it before copying student/nbgrader_config.py: nbgrader's
    defaults (validate_all off: grade cells only), and no course settings in the environment."""
    from nbgrader.validator import Validator
    monkeypatch.delenv("LMRT_COURSE_SETTINGS", raising=False)
    tmp_path.mkdir()
    path = tmp_path / exercise.notebook
    nbformat.write(filled_notebook(exercise, replacements), path)
    validator = Validator()
    assert validator.validate_all is False
    validator.stream = io.StringIO()
    validator.validate_and_print(str(path))
    return validator.stream.getvalue()


@pytest.mark.slow
def test_validate_without_the_course_settings_never_says_success_over_failing_checks(tmp_path, monkeypatch):
    kv = EXERCISES["kv_cache"]
    mistake = next(m for m in all_mistakes() if m.id == "kv_cache-attends_before_appending")
    out = _validate_without_settings(kv, {mistake.function: mistake.code}, tmp_path / "wrong", monkeypatch)
    assert "Success!" not in out and "VALIDATION FAILED" in out, out
    assert "VisibleCheckFailed" in out and "without the" in out and "student/nbgrader_config.py" in out
    assert "attend before appending" in out
    # and the reference still passes
    out = _validate_without_settings(kv, {}, tmp_path / "right", monkeypatch)
    assert "Success! Your notebook passes all the tests." in out, out
