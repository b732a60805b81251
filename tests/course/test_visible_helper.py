"""Does the notebook's comparison helper say what a student needs to hear in each case?"""
import numpy as np

from autograder.course import visible_cell as helper


def _run(case, function="f"):
    passed, lines = helper._run_case(function, case)
    return passed, "\n".join(lines)


def test_named_mistake_with_nan_values():
    case = {"label": "l", "run": lambda: np.array([np.nan, np.nan]), "expected": [0.268941, 0.731059],
            "mistakes": {"exponentiate without first subtracting the largest score": [float("nan")] * 2}}
    passed, text = _run(case)
    assert not passed and text.endswith(
        "That is the value you get when you exponentiate without first subtracting the largest score.")
    assert "expected [0.268941, 0.731059]" in text and "got      [nan, nan]" in text


def test_wrong_value_without_a_name_gets_a_hint():
    case = {"label": "l", "run": lambda: np.array([[1.0, 3.0], [2.0, 4.0]]), "expected": [[1.0, 2.0], [3.0, 4.0]]}
    assert _run(case) == (False, "expected [[1, 2], [3, 4]]\ngot      [[1, 3], [2, 4]]\n"
                                 "It is the transpose of the right answer.")


def test_stub_exception_and_shape_messages():
    def stub():
        raise NotImplementedError()

    assert "not implemented yet: f still raises NotImplementedError" in _run({"label": "l", "run": stub,
                                                                              "expected": 1})[1]
    passed, text = _run({"label": "l", "run": lambda: 1 / 0, "expected": 1,
                         "hints": {"ZeroDivisionError": "Check the lengths first."}})
    assert not passed and text == "your code raised ZeroDivisionError: division by zero\nCheck the lengths first."
    passed, text = _run({"label": "l", "run": lambda: 5.0, "part": 1, "parts": 3, "expected": 1})
    assert not passed and text == "expected a tuple of 3 results, got 5"


def test_equal_keys_and_raises():
    assert _run({"label": "l", "run": lambda: ("aa", "a"), "compare": "equal", "expected": ["aa", "a"]})[0]
    assert _run({"label": "l", "run": lambda: {("b", "a"): 1, ("a", "b"): 1}, "compare": "keys",
                 "expected": [("b", "a"), ("a", "b")]})[0]
    assert not _run({"label": "l", "run": lambda: {("a", "b"): 1, ("b", "a"): 1}, "compare": "keys",
                     "expected": [("b", "a"), ("a", "b")]})[0]
    passed, text = _run({"label": "l", "run": lambda: 0.5, "compare": "raises", "expected": "ValueError"})
    assert not passed and text == "returned 0.5; expected it to raise ValueError"

    def raises():
        raise ValueError("sizes differ")
    assert _run({"label": "l", "run": raises, "compare": "raises", "expected": "ValueError"}) == (True, "")


def test_summary_lists_every_check_and_the_hidden_points(capsys):
    helper._visible_results.clear()
    helper._visible_named.clear()
    assert helper.check_visible("f", [{"label": "a", "run": lambda: 1.0, "expected": 1.0},
                                      {"label": "b", "run": lambda: 2.0, "expected": 1.0,
                                       "mistakes": {"add one": 2.0}}]) is None
    assert "FAIL  f: b\n      expected 1\n      got      2\n" in capsys.readouterr().out
    failed = helper.visible_checks_summary(hidden_checks=7, points={"f": 3.0, "g": 2.0},
                                           names=["f: a", "f: b", "g: c"])
    out = capsys.readouterr().out
    assert "  PASS     f: a" in out and "  FAIL     f: b" in out and "  not run  g: c" in out
    assert "1 of 3 visible checks pass." in out
    assert "After you submit, 7 hidden checks grade this notebook for 5 points (f 3, g 2)" in out
    assert "randomized for each student" in out
    assert failed.splitlines() == ["2 visible checks did not pass.",
                                   "Fix first (a known mistake gives these values):",
                                   "  f: b: you add one",
                                   "Also failing: g (1 check)",
                                   "Each FAIL above, under its function's check cell, shows expected and got."]
    helper._visible_results.update({"f: b": True, "g: c": True})
    assert helper.visible_checks_summary(7, {"f": 3.0}, names=["f: a", "f: b", "g: c"]) == ""


def test_a_helper_that_raises_is_named_in_the_notebook():
    """In the notebook (the cell's text run in one namespace with the student's functions), a
    caller stopped inside another notebook function blames that function, not itself."""
    from autograder.course.visible import helper_cell
    ns = {}
    exec(compile(helper_cell(), "<visible>", "exec"), ns)
    exec(compile("def causal_mask(T):\n    raise NotImplementedError()\n\n"
                 "def shaky(T):\n    raise ValueError('T must be positive')\n\n"
                 "def attention_matrix(T):\n    return causal_mask(T)\n\n"
                 "def other(T):\n    return [shaky(t) for t in range(T)]\n", "<cell 3>", "exec"), ns)
    passed, lines = ns["_run_case"]("attention_matrix", {"label": "l", "run": lambda: ns["attention_matrix"](2),
                                                         "expected": 1})
    assert not passed and lines == ["not implemented yet: causal_mask, which attention_matrix calls, still raises "
                                    "NotImplementedError (fill in the cell of causal_mask above and run it)"]
    passed, lines = ns["_run_case"]("other", {"label": "l", "run": lambda: ns["other"](2), "expected": 1})
    assert lines == ["shaky, which other calls, raised ValueError: T must be positive"]
    passed, lines = ns["_run_case"]("causal_mask", {"label": "l", "run": lambda: ns["causal_mask"](2),
                                                    "expected": 1})
    assert lines == ["not implemented yet: causal_mask still raises NotImplementedError "
                     "(fill in its cell above and run it)"]
