"""One way to print a number, everywhere a student reads one.

The cases are the ones students reported: tiny values rounded to zeros, two values 1.6e-7
apart printed alike, a numpy repr, full precision beside 6-digit values, a cut test name.
"""
import json

import numpy as np
import pytest

from autograder.checks.api import Mismatch, expect_close, expect_equal
from autograder.checks.values import show, show_pair
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.course import visible_cell as visible_helper
from autograder.course.visible import helper_cell
from autograder.reports.console import results_json, table
from autograder.reports.student import render_html


def _message(fn, *args, **kwargs):
    with pytest.raises(Mismatch) as info:
        fn(*args, **kwargs)
    return info.value


def test_plain_numbers_never_a_numpy_repr():
    assert show(np.array(0.417768)) == "0.417768"
    assert show(np.float64(3.927973)) == "3.92797"
    assert show(np.int64(7)) == "7"
    assert show([(0, np.float64(0.9486832980505138))]) == "[(0, 0.948683)]"
    assert "array" not in show({"E": np.array([[1.5, -2.0]])})


def test_full_precision_lists_are_shown_at_the_expected_precision():
    got = [3.0532454913102547, 2.3078708731908404]
    want, have, note = show_pair([3.05, 2.31], got)
    assert (want, have, note) == ("[3.05, 2.31]", "[3.05325, 2.30787]", "")
    message = str(_message(expect_close, got, [3.1, 2.3], what="losses"))
    assert "got [3.05325, 2.30787]" in message and "3.0532454913102547" not in message


def test_values_that_print_alike_get_more_digits_and_the_difference():
    want, have, note = show_pair(3.927973, 3.927973 + 1.6e-7)
    assert want != have and len(want) == len(have)      # same number of digits
    assert want == "3.9279730" and have == "3.9279732"
    assert note == "differs by 1.6e-07"
    message = str(_message(expect_close, 3.927973 + 1.6e-7, 3.927973, what="the loss", atol=1e-9))
    assert message == "the loss: expected 3.9279730, got 3.9279732 (differs by 1.6e-07)."


def test_tiny_values_are_shown_meaningfully():
    # d_scores of a read whose weights are all but one-hot: every entry around 1e-9
    expected = np.array([2.1e-9, 3.4e-10, -2.44e-9])
    got = expected * 3.0                                    # (a backward scaled wrongly)
    message = str(_message(expect_close, got, expected, what="d_scores", atol=1e-12))
    assert "[0., 0., -0.]" not in message and "0, 0, -0" not in message
    assert "expected [2.1e-09, 3.4e-10, -2.44e-09], got [6.3e-09, 1.02e-09, -7.32e-09]" in message


def test_a_difference_hidden_in_a_long_array_is_located():
    expected = np.arange(400.0)
    got = expected.copy()
    got[200] += 1e-3
    want, have, note = show_pair(expected, got)
    assert note == "differs at most by 0.001 (at index [200])"


def test_expect_equal_and_details_show_plain_values():
    exc = _message(expect_equal, [(1, np.float64(0.5))], [(1, 0.25)], what="results")
    assert str(exc) == "results: expected [(1, 0.25)], got [(1, 0.5)]"


def test_visible_checks_print_numbers_the_same_way():
    passed, lines = visible_helper._run_case("train_step", {
        "label": "loss", "run": lambda: np.float64(3.927973 + 1.6e-7), "expected": 3.927973, "atol": 1e-9})
    assert not passed
    assert lines == ["expected 3.9279730", "got      3.9279732  (differs by 1.6e-07)"]
    passed, lines = visible_helper._run_case("f", {"label": "x", "run": lambda: np.array(0.5),
                                                   "expected": 0.417768})
    assert lines[:2] == ["expected 0.417768", "got      0.5"]


# kv_cache_size(12, 768, 1) of the course text: 2 * 12 * 768 = 18,432 numbers, 2 bytes each
PER_TOKEN = (2 * 12 * 768, 2 * 2 * 12 * 768)
LONG_CONTEXT = (2 * 12 * 768 * 100_000, 2 * 2 * 12 * 768 * 100_000)   # 1,843,200,000 and 3,686,400,000


def test_values_are_shown_as_the_student_wrote_them():
    """A tuple beside a tuple, whole numbers as integers: never a list that suggests one is
    required, never e-notation for a count."""
    half = tuple(n // 2 for n in PER_TOKEN)
    message = str(_message(expect_close, half, list(PER_TOKEN), what="(numbers, bytes)", atol=0.5))
    assert message == "(numbers, bytes): expected (18432, 36864), got (9216, 18432)."
    message = str(_message(expect_close, [float(n) / 2 for n in LONG_CONTEXT], np.array(LONG_CONTEXT, dtype=float),
                           what="(numbers, bytes)", atol=0.5))
    assert message == "(numbers, bytes): expected [1843200000, 3686400000], got [921600000, 1843200000]."
    assert "e+" not in show(np.float64(LONG_CONTEXT[0])) and show(np.float64(LONG_CONTEXT[0])) == "1843200000"
    assert show(1234567.5) == "1.23457e+06"            # not whole: 6 significant digits, as before
    exc = _message(expect_equal, (1, 2), [1, 3], what="pair")
    assert str(exc) == "pair: expected (1, 3), got (1, 2)"
    # the notebook's visible checks print the same
    passed, lines = visible_helper._run_case("kv_cache_size", {
        "label": "size", "run": lambda: half, "expected": list(PER_TOKEN), "atol": 0.5})
    assert lines[:2] == ["expected (18432, 36864)", "got      (9216, 18432)"]
    page = render_html(_result_with(_message(expect_close, half, list(PER_TOKEN), what="sizes", atol=0.5)))
    assert "<td>(18432, 36864)</td>" in page and "<td>(9216, 18432)</td>" in page


def test_the_notebooks_checker_cell_carries_the_same_formatting_code():
    source = helper_cell()
    assert "autograder" not in source     # the notebook has no grader package to import
    namespace = {}
    exec(compile(source, "checker", "exec"), namespace)
    assert namespace["show_pair"](3.927973, 3.927973 + 1.6e-7) == show_pair(3.927973, 3.927973 + 1.6e-7)
    passed, lines = namespace["_run_case"]("f", {"label": "x", "run": lambda: [0.0, 2e-9],
                                                 "expected": [0.0, 1e-9], "atol": 1e-12})
    assert lines == ["expected [0, 1e-09]", "got      [0, 2e-09]"]


def _result_with(exc):
    check = CheckResult("train_step", "train_step: a name long enough to be cut by the old table, since it goes "
                        "on past seventy-two characters: the rows of the full computation", 0.0, 1.0, str(exc),
                        details=exc.details)
    return NotebookResult("s1", "learned_attention", "learned_attention.ipynb", [check])


def test_results_json_and_html_report_show_the_same_texts():
    exc = _message(expect_close, np.array(3.927973 + 1.6e-7), 3.927973, what="the loss", atol=1e-9)
    result = _result_with(exc)
    data = results_json(result)
    assert "expected 3.9279730, got 3.9279732 (differs by 1.6e-07)" in json.dumps(data)
    page = render_html(result)
    assert "<td>3.9279730</td>" in page and "<td>3.9279732</td>" in page and "differs by 1.6e-07" in page
    assert "array(" not in page


def test_the_console_table_wraps_test_names_instead_of_cutting_them():
    exc = _message(expect_close, 2.0, 1.0, what="x")
    text = table(_result_with(exc), width=60)
    words = " ".join(line.strip() for line in text.splitlines())
    for word in ("seventy-two", "characters:", "the", "rows", "of", "full", "computation"):
        assert word in words.split()
    assert "rows of the full comput " not in words
    rows = text.splitlines()[2:]
    assert rows[0].startswith("   train_step: a name long") and rows[0].endswith("1  x: expected 1, got 2.")
    assert all(line.startswith("     ") for line in rows[1:])     # continuation: indented
    name = " ".join(line[:3 + 48].strip() for line in rows)
    assert name == _result_with(exc).checks[0].name


def test_a_mistake_is_recognised_whatever_constant_fills_the_mask():
    from autograder.checks.values import like_mistake
    # the diagonal masked too, 2 tokens: row 0 has nothing to read (left undefined), row 1 reads token 0
    wrong = np.ma.masked_array([[np.nan, np.nan], [1.0, 0.0]], mask=[[True, True], [False, False]])
    for row0 in ([np.nan, np.nan], [0.5, 0.5], [0.0, 0.0]):      # -inf, -1e9 (uniform), a multiplied mask
        assert like_mistake([row0, [1.0, 0.0]], wrong)
    assert not like_mistake([[0.5, 0.5], [0.5, 0.5]], wrong)
    assert not like_mistake([[1.0, 0.0]], wrong)                  # another shape
    assert not like_mistake([[1.0, 0.0], [1.0, 0.0]], np.ma.masked_all((2, 2)))  # decides nothing
    masked_scores = [[2.0, -np.inf], [1.0, 3.0]]
    for fill in (-np.inf, -1e9, np.finfo(float).min, -1e9 / np.sqrt(2)):
        assert like_mistake([[2.0, fill], [1.0, 3.0]], masked_scores)
    assert not like_mistake([[2.0, 0.0], [1.0, 3.0]], masked_scores)
    assert like_mistake((1, 2), [1.0, 2.0]) and like_mistake(np.array([[np.nan]]), [[np.nan]])
    # the notebook's checker cell names it the same way
    namespace = {}
    exec(compile(helper_cell(), "checker", "exec"), namespace)
    _, lines, named = namespace["_outcome"]("f", {"label": "x", "run": lambda: np.array([[0.5, 0.5], [1.0, 0.0]]),
                                                  "expected": [[1.0, 0.0], [0.5, 0.5]],
                                                  "mistakes": {"mask the diagonal too": wrong}})
    assert named == ["mask the diagonal too"]


def test_expect_equal_names_a_mistake_whatever_the_container():
    exc = _message(expect_equal, (3, 1), [1, 3], what="ids", mistakes={"sort them backwards": [3, 1]})
    assert exc.mistakes == ["sort them backwards"]
    exc = _message(expect_equal, np.array([3, 1]), [1, 3], what="ids", mistakes={"sort them backwards": (3, 1)},
                   normalize=list)
    assert exc.mistakes == ["sort them backwards"]
