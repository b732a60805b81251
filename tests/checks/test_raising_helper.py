"""A helper that raises is charged once too (docs/integrity.md, "One bug, charged once").

A caller whose call stopped inside a charged helper (a helper left as the released stub, or
raising) keeps its points when its own code, given the right answers of its helpers, returns
the right value; its feedback names the helper, never the caller, as the one that raised.
The points come from exercises/attention/exercise.toml (19 in all) and the checks' own
``points``: the excused total is 19 minus causal_mask's points.
"""
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES

ATTENTION = EXERCISES["attention"]
RAISES_VALUE_ERROR = '''
def causal_mask(T):
    raise ValueError("mask not ready")
'''


def _by_function(result):
    scores = {}
    for c in result.checks:
        got, most = scores.get(c.function, (0.0, 0.0))
        scores[c.function] = (got + c.score, most + c.max_score)
    return scores


@pytest.mark.parametrize("stub, replacements, raised", [
    (("causal_mask",), {}, "NotImplementedError"),
    ((), {"causal_mask": RAISES_VALUE_ERROR}, "ValueError: mask not ready"),
], ids=["not_implemented", "value_error"])
def test_a_raising_causal_mask_costs_only_its_own_points(hand_in, stub, replacements, raised):
    points = points_by_function(ATTENTION)
    result = hand_in(ATTENTION, replacements, stubs=stub)
    scores = _by_function(result)
    assert result.max_score == 19
    assert scores["causal_mask"] == (0.0, points["causal_mask"])
    assert scores["attention_matrix"] == (points["attention_matrix"], points["attention_matrix"])
    assert result.score == 19 - points["causal_mask"]
    masked = [c for c in result.checks if c.function == "attention_matrix" and c.output]
    assert masked, [c.output for c in result.checks]
    for c in masked:
        assert c.output.startswith("passed on account of causal_mask"), c.output
        assert "causal_mask, which it calls," in c.output and raised in c.output, c.output
        assert "attention_matrix: not implemented" not in c.output


def test_a_stub_caller_beside_a_stub_helper_loses_both(hand_in):
    points = points_by_function(ATTENTION)
    result = hand_in(ATTENTION, stubs=("causal_mask", "attention_matrix"))
    scores = _by_function(result)
    assert scores["causal_mask"] == (0.0, points["causal_mask"])
    assert scores["attention_matrix"] == (0.0, points["attention_matrix"])
    assert result.score == 19 - points["causal_mask"] - points["attention_matrix"]
    assert not any(c.output.startswith("passed on account of") for c in result.checks)


def test_a_caller_whose_own_code_is_wrong_stays_charged(hand_in):
    """attention_matrix forgets the 1/sqrt(d_k) scale; causal_mask raises: both lose points,
    and the caller's feedback says why the helper does not excuse it."""
    import inspect

    import solutions.attention as ref
    unscaled = inspect.getsource(ref.attention_matrix).replace("np.sqrt(Q.shape[-1])", "1.0")
    assert unscaled != inspect.getsource(ref.attention_matrix)
    result = hand_in(ATTENTION, {"causal_mask": RAISES_VALUE_ERROR, "attention_matrix": unscaled})
    scores = _by_function(result)
    assert scores["attention_matrix"][0] < scores["attention_matrix"][1]
    refused = [c.output for c in result.checks if c.function == "attention_matrix" and c.score == 0
               and "causal_mask, which it calls," in c.output]
    assert any("its own code is wrong" in text for text in refused), refused


def test_the_message_names_the_helper_that_raised():
    from autograder.sandbox.limits import StudentCodeError
    stub = StudentCodeError("not implemented", "attention_matrix", inside="causal_mask")
    assert str(stub) == ("attention_matrix: causal_mask, which it calls, is not implemented yet "
                         "(it raises NotImplementedError)")
    assert str(StudentCodeError("not implemented", "causal_mask", inside="causal_mask")) == \
        "causal_mask: not implemented (it still raises NotImplementedError)"
    raised = StudentCodeError("raised", "attention_matrix", "ValueError: no", "cell 9, line 2", inside="causal_mask")
    assert str(raised) == "attention_matrix: causal_mask, which it calls, raised ValueError: no at cell 9, line 2"


def test_in_the_kernel_a_raising_helper_is_charged_once_too(monkeypatch, capsys):
    """nbgrader's hidden-test cells (``in_kernel.grade``) over the kernel's namespace (``LocalSubmission``)."""
    from autograder.nbgrader_glue.in_kernel import grade
    from tests.nbgrader_glue.test_incell import _namespace
    monkeypatch.setenv("COURSE_SECRET", "incell")
    ns = _namespace(ATTENTION, {"causal_mask": RAISES_VALUE_ERROR})
    points = points_by_function(ATTENTION)
    earned = {}
    for function in ATTENTION.functions:
        try:
            earned[function] = grade(ATTENTION.name, function, namespace=ns, student_id="k1")
        except AssertionError:
            earned[function] = 0.0
    out = capsys.readouterr().out
    assert earned["causal_mask"] == 0.0
    assert earned["attention_matrix"] == points["attention_matrix"]
    assert "passed on account of causal_mask" in out
    assert "causal_mask, which it calls, raised ValueError: mask not ready" in out
