"""Does a student's path across the unit say where a misconception came back, and where it was right?

The mistake texts below are the ones the course's checks name (exercises/*/checks.py, copied as the
student reads them); the expected paths are worked out by hand from the results each test builds.
"""
import pytest

from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.grading.outputs import write_results
from autograder.reports import class_load, class_report, families

SQRT = "forget to divide the scores by sqrt(d_k)"                       # attention, kv_cache
NO_SCALE = "drop the 1/sqrt(d_k) scaling in the backward pass"         # learned_attention
AXIS = "take the softmax over the wrong axis (each column sums to 1 instead of each row)"
SIGN = "add the gradient instead of subtracting it (W + lr * grad)"      # next_token
ORDER = {"attention": 3, "next_token": 4, "learned_attention": 6}


def _check(function, points, earned, mistakes=()):
    details = {"what": "w", "expected": [0.5, 0.5], "got": [0.4, 0.6], "mistakes": list(mistakes)} \
        if earned < points else None
    return CheckResult(function, f"{function}: case", earned, points, "" if earned >= points else "wrong",
                       frozenset(), details=details)


def _results(student, attention, next_token, learned):
    """One notebook per assignment; each argument: ``[(function, earned, mistakes), ...]``."""
    return [NotebookResult(student, a, f"{a}.ipynb", [_check(f, 1.0, e, m) for f, e, m in checks])
            for a, checks in (("attention", attention), ("next_token", next_token),
                              ("learned_attention", learned))]


@pytest.mark.parametrize("text, family", [
    (SQRT, "sqrt_dk"), (NO_SCALE, "sqrt_dk"), ("divide the scores by d_k instead of sqrt(d_k)", "sqrt_dk"),
    ("forget to divide the scores by sqrt(d_k) before the softmax", "sqrt_dk"),
    (AXIS, "softmax_axis"), ("take the softmax over the wrong axis (columns sum to 1)", "softmax_axis"),
    (SIGN, "gradient_sign"), ("compute y - p instead of p - y", "gradient_sign"),
    ("update W in place with the sign flipped", "gradient_sign"),
    ("leave out the causal mask (every token reads the tokens after it too)", "causal_mask"),
    ("swap sine and cosine (the sine belongs in the even columns 0, 2, 4, ...)", None)])
def test_mistake_texts_fall_into_their_family(text, family):
    found = families.family_of(text)
    assert (found.id if found else None) == family


def _class(tmp_path):
    out = tmp_path / "graded"
    results = (
        # ann: sqrt in attention, again in learned_attention; sign in next_token, right in learned_attention
        _results("ann", [("attention_row", 0, [SQRT]), ("softmax", 1, [])],
                 [("sgd_update", 0, [SIGN]), ("forward", 1, [])],
                 [("attention_backward", 0, [NO_SCALE]), ("train_step", 1, [])])
        # bob: the softmax axis in attention, right later (attention_matrix is not in these notebooks:
        # nothing said); sqrt right throughout
        + _results("bob", [("attention_row", 0, [AXIS]), ("softmax", 0, [AXIS])],
                   [("sgd_update", 1, []), ("forward", 1, [])],
                   [("attention_backward", 1, []), ("train_step", 1, [])]))
    return out, results


def test_a_students_path_marks_again_and_fixed(tmp_path):
    out, results = _class(tmp_path)
    for r in results:
        write_results(r, out)
    entries, _ = class_load.load(out)
    paths = families.student_paths(entries, ORDER)
    assert [(s.assignment, s.family.id, s.status) for s in paths["ann"]] == [
        ("attention", "sqrt_dk", "made"), ("next_token", "gradient_sign", "made"),
        ("learned_attention", "sqrt_dk", "again"), ("learned_attention", "gradient_sign", "fixed")]
    assert paths["ann"][2].before == ["attention"] and paths["ann"][2].mistakes == [NO_SCALE]
    assert [(s.assignment, s.family.id, s.status) for s in paths["bob"]] == [("attention", "softmax_axis", "made")]
    # in the class report: sqrt(d_k) persists for ann alone
    assert [(f.id, [w[0] for w in who]) for f, who in families.persistent(paths)] == [("sqrt_dk", ["ann"])]
    page = class_report.render_class_html(entries, base=out, paths=paths)
    section = page.split("<h2 id='persistent'>", 1)[1]
    assert ("<td>the 1/sqrt(d_k) scaling of the attention scores</td><td><a href='attention/ann/results.json'>ann</a>"
            "</td><td>attention, learned_attention</td><td>learned_attention</td><td>&ndash;</td>") in section
    assert ">bob<" not in section


def test_the_course_order_decides_what_is_again(tmp_path):
    out, results = _class(tmp_path)
    for r in results:
        write_results(r, out)
    entries, _ = class_load.load(out)
    backwards = {"learned_attention": 1, "next_token": 2, "attention": 3}
    steps = families.student_paths(entries, backwards)["ann"]
    assert [(s.assignment, s.status) for s in steps if s.family.id == "sqrt_dk"] == [
        ("learned_attention", "made"), ("attention", "again")]


def test_a_class_run_tells_the_student_where_they_made_it_too(tmp_path):
    from autograder.grading.outputs import write_class_outputs
    out, results = _class(tmp_path)
    write_class_outputs([], results, out, say=lambda *a: None)
    ann = (out / "learned_attention" / "ann" / "report.html").read_text(encoding="utf-8")
    assert "You made this mistake in attention too: the 1/sqrt(d_k) scaling of the attention scores." in ann
    first = (out / "attention" / "ann" / "report.html").read_text(encoding="utf-8")
    assert "You made this mistake in learned_attention too" in first
    bob = (out / "attention" / "bob" / "report.html").read_text(encoding="utf-8")
    assert "made this mistake in" not in bob
    page = (out / class_report.CLASS_HTML).read_text(encoding="utf-8")
    assert "Misconceptions across notebooks" in page and "learned_attention</td><td>learned_attention" in page
