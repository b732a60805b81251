"""Hidden checks of the "next_token" exercise: from the context vector to "sat", and one
training step.

The fixed cases (the course text's figures, ``worked.py``: the context vector of "cat" through
the feed-forward layer, the logits, the loss for target "sat", its gradients and one step on
W_U[sat, 0]) are declared once in ``cases.py``, visible or hidden; the line below makes its
graded ones hidden checks. Here: the randomized and property checks, compared with the reference
solution (solutions/next_token.py), and the one fixed check that cannot be a declared case
(``check_numerical_sat``). Each known mistake is a small wrong variant of ``wrong.py``, so the
feedback can name it when a student's value matches.
"""
import numpy as np

from autograder.authoring import check, expect_close, hidden_checks
from solutions import next_token as ref

from .cases import CASES
from .worked import DW_SAT_0, SAT, W_U, H
from .wrong import (
    ADDS_GRADIENT,
    IN_PLACE,
    IN_PLACE_FLIPPED,
    NO_BIAS,
    NO_LEARNING_RATE,
    NO_RELU,
    NUDGED_DOWN,
    NUDGED_UP,
    RELU_ON_LOGITS,
    _grad_logits_mistakes,
    _grad_unembedding_mistakes,
    _loss_mistakes,
    _numerical_mistakes,
    _pair,
    _unembedding_loss,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


# -- forward -------------------------------------------------------------------------------
@check("forward", "random sizes, with negative pre-activations", points=1)
def check_forward_random(forward, rng):
    for _ in range(3):
        d_model, d, V = int(rng.integers(2, 9)), int(rng.integers(2, 9)), int(rng.integers(3, 30))
        context, W1_, W_U_ = rng.normal(size=d_model), rng.normal(size=(d_model, d)), rng.normal(size=(V, d))
        b1 = rng.normal(size=d)
        b1[0] = -abs(context @ W1_[:, 0]) - 1.0  # this unit's pre-activation is negative
        h, logits = _pair(forward(context, W1_, b1, W_U_), "forward")
        want_h, want_logits = ref.forward(context, W1_, b1, W_U_)
        z = context @ W1_ + b1
        shapes = f"context {context.shape}, W1 {W1_.shape}, W_U {W_U_.shape}"
        expect_close(h, want_h, atol=1e-9, rtol=1e-9, what=f"h ({shapes})",
                     mistakes={NO_RELU: z,
                               NO_BIAS: np.maximum(context @ W1_, 0)})
        expect_close(logits, want_logits, atol=1e-9, rtol=1e-9, what=f"logits ({shapes})",
                     mistakes={NO_RELU: W_U_ @ z,
                               RELU_ON_LOGITS:
                               np.maximum(want_logits, 0)})


# -- cross_entropy ---------------------------------------------------------------------------
@check("cross_entropy", "random vocabularies and targets, huge and tiny probabilities", points=1)
def check_loss_random(cross_entropy, rng):
    for case in range(4):
        V = int(rng.integers(2, 60))
        logits, target = 4.0 * rng.normal(size=V), int(rng.integers(V))
        if case == 1:
            logits += 1000.0                # naive exponentials overflow
        elif case in (2, 3):
            logits[target] -= 800.0         # the target's probability underflows to 0
        expect_close(cross_entropy(logits, target), ref.cross_entropy(logits, target), atol=1e-9, rtol=1e-12,
                     what=f"cross-entropy for {V} logits, target {target}, logits {np.round(logits, 2).tolist()}",
                     mistakes=_loss_mistakes(logits, target))


# -- grad_logits -------------------------------------------------------------------------------
@check("grad_logits", "random vocabularies and targets, large logits", points=1)
def check_grad_logits_random(grad_logits, rng):
    for case in range(3):
        V = int(rng.integers(2, 60))
        logits, target = 4.0 * rng.normal(size=V), int(rng.integers(V))
        if case == 2:
            logits += 1000.0
        expect_close(grad_logits(logits, target), ref.grad_logits(logits, target), atol=1e-9, rtol=1e-9,
                     what=f"dL/dlogits for {V} logits, target {target}",
                     mistakes=_grad_logits_mistakes(logits, target))


# -- grad_unembedding ------------------------------------------------------------------------------
@check("grad_unembedding", "random sizes and targets", points=1)
def check_grad_unembedding_random(grad_unembedding, rng):
    for _ in range(3):
        V, d = int(rng.integers(3, 30)), int(rng.integers(2, 9))
        h = np.abs(rng.normal(size=d))
        logits, target = rng.normal(size=(V, d)) @ h, int(rng.integers(V))
        expect_close(grad_unembedding(h, logits, target), ref.grad_unembedding(h, logits, target),
                     atol=1e-9, rtol=1e-9, what=f"dL/dW_U with V={V}, d={d}, target {target}",
                     mistakes=_grad_unembedding_mistakes(h, logits, target))


# -- sgd_update ----------------------------------------------------------------------------------------
@check("sgd_update", "returns a new array and leaves W unchanged", points=1)
def check_sgd_no_mutation(submission, rng):
    # every call shape of the sgd_update checks (a matrix at lr 0.5, 1-, 2- and 3-D at drawn rates)
    shapes = [((4, 3), 0.5), ((int(rng.integers(2, 9)),), float(rng.uniform(0.01, 2.0))),
              (tuple(int(n) for n in rng.integers(2, 9, size=2)), float(rng.uniform(0.01, 2.0))),
              (tuple(int(n) for n in rng.integers(2, 5, size=3)), float(rng.uniform(0.01, 2.0)))]
    for shape, lr in shapes:
        W, grad = rng.normal(size=shape), rng.normal(size=shape)
        _, args_after = submission.call_keeping_args("sgd_update", W, grad, lr)
        expect_close(args_after[0], W, atol=0.0,
                     what=f"the W of shape {shape} you passed to sgd_update(W, grad, {lr:.4f}), after the call",
                     mistakes={IN_PLACE: W - lr * grad,
                               IN_PLACE_FLIPPED: W + lr * grad})


@check("sgd_update", "random shapes and learning rates", points=1)
def check_sgd_random(sgd_update, rng):
    for shape in [(int(rng.integers(2, 9)),), tuple(int(n) for n in rng.integers(2, 9, size=2)),
                  tuple(int(n) for n in rng.integers(2, 5, size=3))]:
        W, grad, lr = rng.normal(size=shape), rng.normal(size=shape), float(rng.uniform(0.01, 2.0))
        expect_close(sgd_update(W, grad, lr), ref.sgd_update(W, grad, lr), atol=1e-12, rtol=1e-12,
                     what=f"sgd_update for W of shape {shape}, lr {lr:.4f}",
                     mistakes={ADDS_GRADIENT: W + lr * grad,
                               NO_LEARNING_RATE: W - grad})


# -- numerical_gradient -------------------------------------------------------------------------------------
@check("numerical_gradient", 'W_U[sat, 0] of "the cat": -0.702883', points=1)
def check_numerical_sat(numerical_gradient, submission):
    """A fixed check that cannot be a declared case: the loss it hands to the student's function
    is built in the student's process (``submission.probe``), as no grader function can be sent
    there; the notebook's case (``cases.py``) defines the same loss in its own code."""
    loss = submission.probe("unembedding_loss", np.array(H), SAT)
    expect_close(numerical_gradient(loss, W_U, (SAT, 0)), DW_SAT_0,
                 what="numerical dL/dW_U[sat, 0] (eps = 1e-5)",
                 mistakes=_numerical_mistakes(_unembedding_loss(H, SAT), W_U, (SAT, 0), 1e-5))


@check("numerical_gradient", "random unembeddings and entries, against dL/dW_U", points=1)
def check_numerical_random(numerical_gradient, submission, rng):
    # Entries of h lie in [0.5, 2], so the second derivative is at most 4 * 0.25 = 1: a
    # one-sided difference is then off by at most eps / 2 = 5e-6 and passes here (the cubic
    # check below tells the two apart). The first case nudges a weight of the target's row,
    # whose gradient (p_t - 1) h_j is far from 0.
    for case in range(3):
        V, d = int(rng.integers(3, 20)), int(rng.integers(2, 8))
        h, W, target = rng.uniform(0.5, 2.0, size=d), 0.5 * rng.normal(size=(V, d)), int(rng.integers(V))
        index = (target if case == 0 else int(rng.integers(V)), int(rng.integers(d)))
        loss = submission.probe("unembedding_loss", h, target)
        want = ref.grad_unembedding(h, W @ h, target)[index]
        expect_close(numerical_gradient(loss, W, index), want, atol=2e-5,
                     what=f"numerical dL/dW_U{list(index)} (V={V}, d={d}, target {target})",
                     mistakes=_numerical_mistakes(_unembedding_loss(h, target), W, index, 1e-5))


@check("numerical_gradient", "uses eps, and the central difference", points=1)
def check_numerical_cubic(numerical_gradient, submission, rng):
    # For L(W) = sum(W ** 3) the central difference in entry w is exactly 3 w**2 + eps**2,
    # while a one-sided difference adds 3 w eps: the two differ by far more than rounding.
    loss = submission.probe("cubic_loss")

    def cubic(W):
        return float(np.sum(np.asarray(W, dtype=float) ** 3))
    for shape, eps in (((3, 4), 0.1), ((2, 3, 2), 0.01)):
        W = rng.normal(size=shape)
        index = tuple(int(rng.integers(n)) for n in shape)
        W[index] = float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0))
        want = 3 * W[index] ** 2 + eps ** 2
        expect_close(numerical_gradient(loss, W, index, eps=eps), want, atol=1e-9, rtol=1e-9,
                     what=f"numerical derivative of sum(W ** 3) in entry {list(index)} with eps={eps} "
                          f"(W[index] = {W[index]:.6f})",
                     mistakes=_numerical_mistakes(cubic, W, index, eps))


@check("numerical_gradient", "leaves W as it was", points=1)
def check_numerical_no_mutation(submission, rng):
    V, d = 5, 3
    h, W, target = np.abs(rng.normal(size=d)), rng.normal(size=(V, d)), int(rng.integers(V))
    index = (int(rng.integers(V)), int(rng.integers(d)))
    loss = submission.probe("unembedding_loss", h, target)
    _, args_after = submission.call_keeping_args("numerical_gradient", loss, W, index)
    nudged = {}
    for sign, name in ((-1, NUDGED_DOWN), (1, NUDGED_UP)):
        left = W.copy()
        left[index] += sign * 1e-5
        nudged[name] = left
    expect_close(args_after[1], W, atol=1e-13, what="the W you passed to numerical_gradient, after the call",
                 mistakes=nudged)
