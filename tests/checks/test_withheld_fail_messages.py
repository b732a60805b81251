"""A failing fixed hidden check does not teach its expected value, for checks that fail with their
own message (``fail(...)``).

``expect_equal`` and ``expect_close`` carry a version of their feedback without the right value,
which a failing fixed check shows instead (``checks/withheld.py``). A check that writes its own
message had no such version: ``semantic_search``'s ties check said "expected [...]" with the
right order, the same for every student and every submission. Now ``fail`` takes
``without_expected`` and ``expected`` too, and the same rule applies.
"""
import ast
from pathlib import Path

import numpy as np

from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes
from autograder.submission.local import LocalSubmission

EXERCISES_DIR = Path(__file__).resolve().parents[2] / "exercises"


def _shows_an_expected_value(message) -> bool:
    """Whether an f-string message puts a computed value right after the word "expected"."""
    if not isinstance(message, ast.JoinedStr):
        return False
    parts = message.values
    return any(isinstance(a, ast.Constant) and str(a.value).rstrip().endswith("expected")
               and isinstance(b, ast.FormattedValue) for a, b in zip(parts, parts[1:], strict=False))


def test_no_check_fails_with_an_expected_value_it_cannot_withhold():
    offenders = []
    # the checks, and the judges of the declared cases (cases.py), which fail the same way
    for path in sorted([*EXERCISES_DIR.glob("*/checks.py"), *EXERCISES_DIR.glob("*/cases.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "fail" and node.args:
                keywords = {k.arg for k in node.keywords}
                if _shows_an_expected_value(node.args[0]) and not {"without_expected", "expected"} <= keywords:
                    offenders.append(f"{path.parent.name}/{path.name}:{node.lineno}")
    assert not offenders, offenders


def test_the_reader_finds_such_a_message():
    """The test above can fail: the ties message as it was is caught."""
    old = ast.parse('fail(f"{what}: the indices, best first: expected {want}, got {indices}.")').body[0].value
    assert _shows_an_expected_value(old.args[0])
    shape = ast.parse('fail(f"causal_mask({T}): expected shape ({T}, {T}), got {arr.shape}")').body[0].value
    assert not _shows_an_expected_value(shape.args[0])  # the contract's shape, not an answer


def _right_order(query, documents):
    """Indices of ``documents`` by cosine with ``query``, best first, equal cosines lowest
    index first (computed here with numpy, not with the course's code)."""
    unit_query = np.asarray(query, float) / np.sqrt(np.dot(query, query))
    rows = np.asarray(documents, float)
    cos = (rows / np.sqrt((rows ** 2).sum(axis=1, keepdims=True))) @ unit_query
    rounded = np.round(cos, 9)
    return sorted(range(len(rows)), key=lambda i: (-rounded[i], i))


def test_the_ties_check_names_the_mistake_but_not_the_right_order():
    exercise = EXERCISES["embeddings"]
    mistake = next(m for m in all_mistakes() if m.id == "embeddings-ties_to_higher_index")
    namespace = {"__name__": "__main__"}
    exec(compile(exercise.solution_module.read_text(), str(exercise.solution_module), "exec"), namespace)
    exec(mistake.code, namespace)
    results = run_checks(exercise, LocalSubmission(namespace), "s1", b"secret")
    ties = next(r for r in results if r.name == "semantic_search: equal scores keep the lower index first")
    assert ties.score == 0.0
    from exercises.embeddings.worked import TIE_DOCS, TIE_Q
    want = _right_order(TIE_Q, TIE_DOCS)
    assert str(want) not in ties.output, ties.output
    assert "your code returned" in ties.output and "not the right order" in ties.output
    assert "break ties towards the higher index" in ties.output  # the mistake is named
    assert ties.details["withheld"]
    assert list(ties.details["expected"]) == want  # the instructor's record keeps it
