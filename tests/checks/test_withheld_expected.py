"""A failing fixed hidden check does not teach its expected value.

A hidden check with fixed inputs meets every submission of every student with the same case.
When its feedback showed the expected value, a student pasted it into a table and passed it on
resubmission (a ``learn_bpe`` with ties broken by the largest pair went from 21 to 22 of 23).
Now such a check names the mistake and shows what the student's code returned, never the right
value; a check whose expected value is a worked example the notebook prints anyway still shows
it, and randomized checks still show theirs (their cases change with every submission).
"""
from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes
from autograder.reports.console import results_json, table
from autograder.reports.student import render_html

TOKENS = EXERCISES["tokens"]
TIES = 'learn_bpe: ties go to the pair met first'
WORKED = 'learn_bpe: the three merges of "low lower newest widest"'


def _ties_answer():
    """The right merges for the ties check's corpus {"bc": 2, "ab": 2, "cd": 2}, 3 merges, no
    marker, worked out by hand: the three pairs tie at 2 and the one met first wins, so
    ("b", "c"), then ("a", "b"), then ("c", "d") (no merge joins two of them)."""
    return [("b", "c"), ("a", "b"), ("c", "d")]


def _texts(value):
    """Ways the feedback could print a list of pairs."""
    return [str(value), str([list(p) for p in value]), "('b', 'c'), ('a', 'b'), ('c', 'd')",
            "['b', 'c'], ['a', 'b'], ['c', 'd']", '("b", "c"), ("a", "b"), ("c", "d")',
            '["b", "c"], ["a", "b"], ["c", "d"]']


def test_a_fixed_check_names_the_mistake_but_not_the_right_value(hand_in):
    mistake = next(m for m in all_mistakes() if m.id == "tokens-ties_by_largest_pair")
    result = hand_in(TOKENS, {mistake.function: mistake.code})
    ties = next(c for c in result.checks if c.name == TIES)
    assert ties.score == 0.0
    assert "break ties by comparing the pairs themselves" in ties.output  # the mistake is named
    assert "your code returned" in ties.output
    shown = [table(result), render_html(result), str(results_json(result)), ties.output]
    for text in shown:
        for answer in _texts(_ties_answer()):
            assert answer not in text, (answer, text[:2000])
    assert ties.details["withheld"] and ties.details["expected"]  # the instructor's record keeps it
    # the worked example the notebook prints still shows its value
    worked = next(c for c in result.checks if c.name == WORKED)
    assert worked.score == 0.0
    assert "expected [('e', 's'), ('es', 't'), ('est', '</w>')]" in worked.output
    assert not (worked.details or {}).get("withheld")


def test_the_kernel_feedback_withholds_it_too(monkeypatch, capsys):
    from autograder.nbgrader_glue.in_kernel import grade
    from tests.nbgrader_glue.test_incell import _namespace
    monkeypatch.setenv("COURSE_SECRET", "incell")
    mistake = next(m for m in all_mistakes() if m.id == "tokens-ties_by_largest_pair")
    ns = _namespace(TOKENS, {mistake.function: mistake.code})
    try:
        grade("tokens", "learn_bpe", namespace=ns, student_id="k1")
    except AssertionError as exc:
        out = str(exc)
    else:
        out = ""
    out += capsys.readouterr().out
    assert TIES in out and "your code returned" in out
    for answer in _texts(_ties_answer()):
        assert answer not in out, (answer, out)
