"""Does the console table keep every message whole, and do long values shrink in the middle?"""
import numpy as np

from autograder.checks.api import Mismatch, expect_close, expect_equal, fmt
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.reports.console import message_lines, table

OVERLAP = ('expected (\'aa\', \'a\'), got (\'aa\', \'aa\', \'a\'). That is what you get when you merge '
           'overlapping occurrences ("a a a" becomes "aa aa"); merging scans left to right and a symbol '
           'takes part in one merge only, giving "aa a".')


def _result(message):
    return NotebookResult("s1", "tokens", "tokens.ipynb",
                          [CheckResult("merge_pair", 'merge_pair: runs: ("a", "a", "a")', 0.0, 1.0, message),
                           CheckResult("learn_bpe", "learn_bpe: ties", 1.0, 1.0, "")])


def test_table_wraps_long_messages_and_keeps_every_word():
    text = table(_result(OVERLAP), width=60)
    lines = text.splitlines()
    assert all(len(line) <= 3 + 34 + 2 + 6 + 2 + 4 + 2 + 60 for line in lines)
    joined = " ".join(line.strip() for line in lines)
    assert "merge overlapping occurrences" in joined and 'giving "aa a".' in joined
    assert "..." not in text
    # continuation lines start under the message column
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("merge_pair"))
    column = lines[first].index("expected")
    assert lines[first + 1].index(lines[first + 1].strip()) == column


def test_message_lines_never_drop_text():
    words = OVERLAP.split()
    assert " ".join(message_lines(OVERLAP, 25)).split() == words
    assert message_lines("", 10) == [""] and message_lines("line one\nline two", 100) == ["line one", "line two"]


def test_long_values_are_shortened_in_the_middle_and_the_mistake_survives():
    merges = [(f"a{i}", f"b{i}") for i in range(100)]
    text = fmt(merges, limit=120)
    assert len(text) == 120 and text.startswith("[('a0', 'b0'),") and text.endswith("('a99', 'b99')]")
    assert " ... " in text
    got = np.arange(400.0)
    try:
        expect_close(got, got + 1, what="a long vector", mistakes={"add one too few": got})
    except Mismatch as exc:
        message = str(exc)
        assert message.endswith("That is the value you get when you add one too few.")
        assert exc.details["mistakes"] == ["add one too few"] and exc.details["what"] == "a long vector"
        assert np.array_equal(exc.details["got"], got) and np.array_equal(exc.details["expected"], got + 1)
    else:
        raise AssertionError("expect_close did not fail")


def test_expect_equal_carries_expected_got_and_the_mistake():
    try:
        expect_equal(("aa", "aa"), ("aa", "a"), what="merge", mistakes={"merge overlapping occurrences": ("aa", "aa")})
    except Mismatch as exc:
        assert exc.details == {"what": "merge", "expected": ("aa", "a"), "got": ("aa", "aa"),
                               "mistakes": ["merge overlapping occurrences"]}
    else:
        raise AssertionError("expect_equal did not fail")
