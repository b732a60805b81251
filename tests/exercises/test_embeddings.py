"""The embeddings exercise: full marks for the reference, zero for stubs, the course's numbers,
fair tie-breaking in the hidden search checks, and the solution notebook running end to end."""
import warnings

import nbformat
import numpy as np
import pytest

from autograder.checks.api import Mismatch
from autograder.core.registry import EXERCISES
from solutions import embeddings as ref

EXERCISE = EXERCISES["embeddings"]


def _checks():
    """The hidden check module, imported quietly (its ``check`` mark is registered only in
    the grader's own pytest configuration)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        from exercises.embeddings import checks
    return checks


def test_grading_does_not_train_the_toy_model(graded_once):
    """Only imports, defs and assignments run when a notebook is graded: no top-level
    assignment may train the toy model or draw a plot, so grading one notebook stays quick."""
    import ast
    slow = {"train_toy_model", "toy_model", "report_toy_model", "nearest_words", "show_heatmap"}
    nb = nbformat.read(EXERCISE.source_notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                called = {getattr(n.func, "id", None) for n in ast.walk(node) if isinstance(n, ast.Call)}
                assert not called & slow, ast.unparse(node)
    result = graded_once(EXERCISE)
    assert result.score == result.max_score, [c.output for c in result.checks if c.score < c.max_score]


# -- the course's numbers (docs/worked-examples.md), typed here independently --------------------
def test_cosine_of_a_scaled_copy_is_one():
    # Section 3: cos((1,2,2), (2,4,4)) = 1.0 exactly.
    assert abs(ref.cosine_similarity([1, 2, 2], [2, 4, 4]) - 1.0) < 1e-12
    assert abs(ref.cosine_similarity_matrix([[1, 2, 2]], [[2, 4, 4]])[0, 0] - 1.0) < 1e-12


def test_toy_model_reproduces_the_course_numbers():
    # Section 3: king~queen +0.577 before training, +0.988 after; king~banana -0.487 / -0.458;
    # start loss 2.276. Section 8: "live the" at T=1 gives king 52.3%, queen 47.7%.
    model = ref.train_toy_model()
    idx = ref.TOY_INDEX
    def cos(table, u, v):
        return ref.cosine_similarity(table[idx[u]], table[idx[v]])
    assert round(cos(model["start"], "king", "queen"), 3) == 0.577
    assert round(cos(model["start"], "king", "banana"), 3) == -0.487
    assert round(cos(model["table"], "king", "queen"), 3) == 0.988
    assert round(cos(model["table"], "king", "banana"), 3) == -0.458
    assert round(model["losses"][0], 3) == 2.276
    probs = model["predict"](("live", "the"))
    assert round(probs[idx["king"]], 3) == 0.523 and round(probs[idx["queen"]], 3) == 0.477


# -- ties in the hidden search checks ------------------------------------------------------------
def _blas_search(query, documents, k):
    """A correct student version whose scores come out of one matrix product (BLAS), so copies
    of a document can differ in the last bit."""
    docs, q = np.asarray(documents, float), np.asarray(query, float)
    lengths = np.linalg.norm(docs, axis=1) * np.linalg.norm(q)
    scores = (docs @ q) / lengths
    return [(int(i), float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]


def _ties_to_higher_index(query, documents, k):
    scores = ref.cosine_similarity_matrix(np.asarray(query, float)[None, :], documents)[0]
    return [(int(i), float(scores[i])) for i in np.argsort(scores, kind="stable")[::-1][:k]]


@pytest.mark.parametrize("search", [ref.semantic_search, _blas_search], ids=["reference", "blas"])
def test_random_search_check_is_fair_to_rounding(search):
    for seed in range(300):
        _checks().check_search_random(search, np.random.default_rng(seed))


def test_random_search_check_catches_ties_to_the_higher_index():
    for seed in range(300):
        with pytest.raises(Mismatch, match="higher index"):
            _checks().check_search_random(_ties_to_higher_index, np.random.default_rng(seed))


def test_a_rounding_split_tie_is_accepted_but_a_reversed_exact_tie_is_not():
    q, docs, scores = np.ones(2), np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]]), [0.7071, 1.0, 1.0]
    from exercises.embeddings.cases import expect_search  # the search judge of the declared cases and checks.py
    # The student's own scores put row 2 a hair ahead of row 1: their order is right for them.
    expect_search([(2, 1.0), (1, 1.0 - 1e-16), (0, 0.7071)], q, docs, 3, scores, "split tie")
    with pytest.raises(Mismatch, match="higher index"):
        expect_search([(2, 1.0), (1, 1.0), (0, 0.7071)], q, docs, 3, scores, "exact tie")


# -- the solution notebook, executed as a student would run it -----------------------------------
@pytest.mark.slow
def test_solution_notebook_shows_the_toy_model_numbers(executed_notebook):
    """Section 3's king~queen and king~banana similarities, before and after training."""
    nb = executed_notebook(EXERCISE)
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    text = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    assert "before training: king~queen +0.577   king~banana -0.487" in text
    assert "after  training: king~queen +0.988   king~banana -0.458" in text
