"""The next_token exercise: reference and stubs graded end to end, worked values, the
loss-function probes in the child and in-kernel, and the solution notebook run by nbclient."""

import numpy as np
import pytest

from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
from autograder.submission.local import LocalSubmission

SECRET = b"test-secret"

NEXT_TOKEN = EXERCISES["next_token"]
POINTS = EXERCISES["next_token"].points  # declared in exercise.toml; test_exercises.py sums the checks


# -- the reference reproduces every worked value (typed from the course text, docs/worked-examples.md: next_token,
#    independently of the check file) ----------------------------------------------------------
@pytest.fixture(scope="module")
def ref():
    from solutions import next_token
    return next_token


@pytest.fixture(scope="module")
def worked(ref):
    """The section-6 example computed by the reference, from the context vector of section 4."""
    context = np.array([0.669762, 1.0])
    W1, b1 = np.array([[1.0, 0.0], [1.0, 1.0]]), np.zeros(2)
    W_U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
    h, logits = ref.forward(context, W1, b1, W_U)
    return {"context": context, "W1": W1, "b1": b1, "W_U": W_U, "h": h, "logits": logits}


def test_worked_forward_and_probabilities(ref, worked):
    assert np.allclose(worked["h"], [1.669762, 1.0], atol=1e-6)
    assert np.allclose(worked["logits"], [1.669762, 1.0, 2.669762, -0.669762, 0.669762], atol=1e-6)
    p = ref.softmax(worked["logits"])
    assert np.allclose(p, [0.213021, 0.109031, 0.579052, 0.020530, 0.078366], atol=1e-6)
    assert np.isclose(np.exp(worked["logits"]).sum(), 24.9313, atol=1e-4)
    assert int(np.argmax(p)) == 2  # greedy choice: "sat"


def test_worked_loss_and_gradients(ref, worked):
    h, logits = worked["h"], worked["logits"]
    assert np.isclose(ref.cross_entropy(logits, 2), 0.546363, atol=1e-6)
    g = ref.grad_logits(logits, 2)
    assert np.isclose(g[2], -0.420948, atol=1e-6) and np.isclose(g[0], 0.213021, atol=1e-6)
    G = ref.grad_unembedding(h, logits, 2)
    assert G.shape == (5, 2)
    assert np.isclose(G[2, 0], -0.702883, atol=1e-6)


def test_worked_one_weight_step(ref, worked):
    W_U, h = worked["W_U"], worked["h"]
    step = np.zeros_like(W_U)
    step[2, 0] = ref.grad_unembedding(h, worked["logits"], 2)[2, 0]
    after = ref.sgd_update(W_U, step, 0.5)
    assert np.isclose(after[2, 0], 1.351441, atol=1e-6)
    assert np.array_equal(np.delete(after.ravel(), 4), np.delete(W_U.ravel(), 4))  # nothing else moved
    assert W_U[2, 0] == 1.0  # the input is untouched
    _, logits = ref.forward(worked["context"], worked["W1"], worked["b1"], after)
    assert np.isclose(logits[2], 3.256585, atol=1e-6)
    assert np.isclose(ref.softmax(logits)[2], 0.712121, atol=1e-6)
    assert np.isclose(ref.cross_entropy(logits, 2), 0.339508, atol=1e-6)
    assert np.isclose(ref.sgd_update(W_U, -step, 0.5)[2, 0], 0.648559, atol=1e-6)  # the sign flipped


def test_worked_numerical_gradient(ref, worked):
    W_U, h = worked["W_U"], worked["h"]
    before = W_U.copy()
    measured = ref.numerical_gradient(lambda W: ref.cross_entropy(W @ h, 2), W_U, (2, 0), eps=1e-5)
    assert np.isclose(measured, -0.702883, atol=1e-6)
    assert np.array_equal(W_U, before)


def test_stable_loss_at_extreme_logits(ref):
    assert ref.cross_entropy(np.array([1000.0, 0.0]), 1) == 1000.0
    assert ref.cross_entropy(np.array([1000.0, 0.0]), 0) == 0.0


# -- the loss-function probes -------------------------------------------------------------------
def test_probes_build_loss_functions():
    from autograder.child.probes import PROBES
    h = np.array([1.669762, 1.0])
    W_U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
    loss = PROBES["unembedding_loss"](h, 2)
    assert isinstance(loss(W_U), float) and np.isclose(loss(W_U), 0.546363, atol=1e-6)
    far_off = np.array([[1000.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert np.isclose(loss(far_off), 1000.0 * 1.669762, rtol=1e-9)  # finite, however wrong the model
    cubic = PROBES["cubic_loss"]()
    assert cubic(np.array([[1.0, 2.0]])) == 9.0


def test_checks_run_in_kernel_with_local_submission(ref):
    """Under nbgrader the checks call the kernel's own functions, probes included."""
    results = run_checks(NEXT_TOKEN, LocalSubmission(dict(vars(ref))), "s1", SECRET)
    assert [(r.name, r.output) for r in results if r.score < r.max_score] == []
    assert sum(r.max_score for r in results) == POINTS


def test_in_kernel_checks_see_an_input_changed_in_place(ref):
    namespace = dict(vars(ref))

    def numerical_gradient(loss_fn, W, index, eps=1e-5):  # measures right, leaves W nudged
        W[index] += eps
        above = loss_fn(W)
        W[index] -= 2 * eps
        return (above - loss_fn(W)) / (2 * eps)
    namespace["numerical_gradient"] = numerical_gradient
    failed = {r.name: r.output for r in run_checks(NEXT_TOKEN, LocalSubmission(namespace), "s1", SECRET)
              if r.score < r.max_score}
    assert list(failed) == ["numerical_gradient: leaves W as it was"]
    assert "put the entry back" in failed["numerical_gradient: leaves W as it was"]


def test_an_sgd_update_in_place_on_vectors_only_loses_the_mutation_check(ref):
    """For every update rule, the mutation check calls sgd_update in every
    shape of its checks (it used one (4, 3) matrix at lr 0.1), so an update in place of 1-D
    W only costs that check, for every student."""
    namespace = dict(vars(ref))
    exec('''
def sgd_update(W, grad, lr):
    if np.ndim(W) == 1:
        W -= lr * grad            # vectors changed in place
        return W
    return np.asarray(W, dtype=float) - lr * np.asarray(grad, dtype=float)
''', namespace)
    for student in ("s1", "s2", "s3"):
        results = run_checks(NEXT_TOKEN, LocalSubmission(namespace), student, SECRET, select="sgd_update")
        failed = {r.name: r.output for r in results if r.score < r.max_score}
        assert list(failed) == ["sgd_update: returns a new array and leaves W unchanged"], failed
        assert "update W in place" in next(iter(failed.values()))
