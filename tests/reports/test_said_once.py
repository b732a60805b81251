"""What a student reads in their report: the grade of record on top, what to fix first, and
each named mistake said once."""
import re

import numpy as np

from autograder.checks.api import Mismatch, expect_close
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.nbgrader_glue.totals import Totals
from autograder.reports.student import fix_first, render_html

AXIS = "take the softmax over the wrong axis"
SQRT = "forget to divide the scores by sqrt(d_k)"


def _failed(name, points, got, expected, mistakes):
    """A failed check as the checks' own ``expect_close`` reports it."""
    try:
        expect_close(got, expected, what=name, mistakes=mistakes)
    except Mismatch as exc:
        return CheckResult(name.split(":")[0], name, 0.0, points, str(exc), details=exc.details)
    raise AssertionError("expect_close accepted a wrong value")


def _result():
    right = np.array([0.5, 0.5])
    axis = _failed("attention_row: weights", 3.0, [0.2, 0.8], right, {AXIS: [0.2, 0.8]})
    sqrt = _failed("attention: scores", 5.0, [0.9, 0.1], right, {SQRT: [0.9, 0.1]})
    plain = _failed("softmax: one row", 1.0, [0.3, 0.7], right, {})
    ok = CheckResult("softmax", "softmax: sums to one", 10.0, 10.0, "")
    return NotebookResult("s1", "attention", "attention.ipynb", [axis, sqrt, plain, ok])


def test_headline_is_the_grade_of_record():
    result = NotebookResult("s1", "attention", "attention.ipynb",
                            [CheckResult("f", "f: a", 19.0, 19.0, "")])
    late = Totals(raw=19.0, late_penalty=19.0, max_score=19.0)
    page = render_html(result, record=late)
    bold = re.findall(r"<p class='score'>(.*?)</p>", page)
    assert bold == ["Grade of record: 0 of 19 points"]
    assert "The checks gave 19 of 19 points" in page and "late-work policy took 19 points" in page
    # without a gradebook the checks' points are the grade
    assert re.findall(r"<p class='score'>(.*?)</p>", render_html(result)) == \
        ["19 of 19 points; 1 of 1 checks passed"]


def test_each_failed_check_names_its_mistake_once():
    page = render_html(_result())
    checks = page.split("<div class='check ")[1:]
    assert sum(AXIS in c for c in checks) == 1 and checks[0].count(AXIS) == 1
    sqrt_check = next(c for c in checks if "attention: scores" in c)
    assert sqrt_check.count(SQRT) == 1
    # the values once, in the table (the message said only what the table says)
    axis_check = next(c for c in checks if "attention_row: weights" in c)
    assert axis_check.count("0.2, 0.8") == 1 and "<th scope='row'>yours</th><td>[0.2, 0.8]</td>" in axis_check
    # a message that says more than the values is kept, less its named sentence
    hinted = CheckResult("f", "f: x", 0.0, 1.0, "f: x: expected 1, got 2. Check the loop. That is what you get "
                         "when you add one.", details={"what": "f: x", "expected": 1, "got": 2,
                                                       "mistakes": ["add one"]})
    page = render_html(NotebookResult("s1", "a", "a.ipynb", [hinted]))
    assert "<p class='message'>f: x: expected 1, got 2. Check the loop.</p>" in page
    assert page.count("add one") == 2   # what to fix first, and the check's own box


def test_report_opens_with_what_to_fix_first_by_points_lost():
    result = _result()
    assert [(name, points) for name, points, _ in fix_first(result)] == [(SQRT, 5.0), (AXIS, 3.0)]
    page = render_html(result)
    first = page.index("What to fix first")
    assert first < page.index("Failed checks")
    items = re.findall(r"<li>(.*?)</li>", page[first:page.index("Failed checks")])
    assert items[0].startswith("You forget to divide the scores by sqrt(d_k): 5 points lost")
    assert items[1].startswith("You take the softmax over the wrong axis: 3 points lost")
    assert len(items) == 2  # the check without a named mistake is not in the list


def test_an_endless_loop_is_ranked_among_the_mistakes_by_the_points_it_cost():
    from autograder.core.vocabulary import Problem
    from autograder.sandbox.limits import StudentCodeError
    timeout = StudentCodeError("timeout", "causal_mask", "did not return within 2 s")
    hung = [CheckResult("causal_mask", f"causal_mask: case {i}", 0.0, 1.0, f"causal_mask: {timeout}",
                        frozenset({Problem.TIMEOUT})) for i in range(4)]
    result = _result()
    result = NotebookResult("s1", "attention", "attention.ipynb", result.checks + hung)
    found = [(name, points) for name, points, _ in fix_first(result)]
    assert found == [(SQRT, 5.0), ("let causal_mask run past its time limit (an endless loop?)", 4.0), (AXIS, 3.0)]


def test_feedback_txt_opens_with_what_to_fix_first(tmp_path):
    from autograder.core.registry import EXERCISES
    from autograder.core.vocabulary import Job
    from autograder.grading.outputs import write_class_outputs
    result = _result()
    job = Job(tmp_path / "s1" / "attention" / "attention.ipynb", "s1", EXERCISES["attention"])
    write_class_outputs([job], [result], tmp_path / "out", say=lambda *a: None)
    lines = (tmp_path / "out" / "attention" / "s1" / "feedback.txt").read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["What to fix first:",
                         f"  1. You {SQRT}: 5 points lost (attention: scores)",
                         f"  2. You {AXIS}: 3 points lost (attention_row: weights)"]
    assert lines[4].startswith("== s1 / attention / attention.ipynb: 10 of 19 points")
