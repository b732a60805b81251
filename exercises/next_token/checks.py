"""Hidden checks of the "next_token" exercise: from the context vector to "sat", and one
training step.

Worked values are the course text's (``worked.py`` lists where each comes from): the context
vector of "cat" through the feed-forward layer, the logits, the loss for target "sat", its
gradients and one step on W_U[sat, 0]. Randomized cases are compared with the reference
solution (solutions/next_token.py). Each known mistake is a small wrong variant of ``wrong.py``, so the
feedback can name it when a student's value matches.
"""
import numpy as np

from autograder.authoring import check, expect_close
from solutions import next_token as ref

from .worked import (
    B1,
    CONTEXT,
    DW_SAT_0,
    GRAD_LOGITS,
    LOGIT_SAT_AFTER,
    LOGITS,
    LOSS,
    LOSS_AFTER,
    P_SAT_AFTER,
    PROBS,
    SAT,
    W1,
    W_SAT_0_AFTER,
    W_SAT_0_SIGN_FLIPPED,
    W_U,
    H,
)
from .wrong import (
    _grad_logits_mistakes,
    _grad_unembedding_mistakes,
    _loss_mistakes,
    _numerical_mistakes,
    _pair,
    _unembedding_loss,
)


# -- forward -------------------------------------------------------------------------------
@check("forward", 'h for the context vector of "cat"', points=1)
def check_forward_h(forward):
    h, _ = _pair(forward(CONTEXT, W1, B1, W_U), "forward")
    expect_close(h, H, what='h = ReLU(context @ W1 + b1) for "cat"',
                 mistakes={"use the column convention (W1 @ context) instead of context @ W1":
                           np.maximum(W1 @ CONTEXT + B1, 0)})


@check("forward", 'the five logits for "the cat"', points=1)
def check_forward_logits(forward):
    _, logits = _pair(forward(CONTEXT, W1, B1, W_U), "forward")
    expect_close(logits, LOGITS, what='logits W_U @ h for "the cat" (the, cat, sat, ran, mat)',
                 mistakes={"use the column convention (W1 @ context) instead of context @ W1":
                           W_U @ np.maximum(W1 @ CONTEXT + B1, 0),
                           "apply the ReLU to the logits too (only h goes through the ReLU)":
                           np.maximum(LOGITS, 0)})


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
                     mistakes={"forget the ReLU (negative entries of context @ W1 + b1 must become 0)": z,
                               "forget the bias b1": np.maximum(context @ W1_, 0)})
        expect_close(logits, want_logits, atol=1e-9, rtol=1e-9, what=f"logits ({shapes})",
                     mistakes={"forget the ReLU (negative entries of context @ W1 + b1 must become 0)": W_U_ @ z,
                               "apply the ReLU to the logits too (only h goes through the ReLU)":
                               np.maximum(want_logits, 0)})


# -- cross_entropy ---------------------------------------------------------------------------
@check("cross_entropy", 'loss for the target "sat"', points=1)
def check_loss_sat(cross_entropy):
    expect_close(cross_entropy(np.array(LOGITS), SAT), LOSS, what='cross-entropy of the "the cat" logits, target "sat"',
                 mistakes=dict(_loss_mistakes(LOGITS, SAT),
                               **{"return the probability of the target instead of -log of it": PROBS[SAT]}))


@check("cross_entropy", "logits (1000, 0) with target 1 give 1000, not inf", points=1)
def check_loss_extreme(cross_entropy):
    for logits, target, want in (([1000.0, 0.0], 0, 0.0), ([1000.0, 0.0], 1, 1000.0), ([0.0, -1000.0], 1, 1000.0)):
        expect_close(cross_entropy(np.array(logits), target), want, atol=1e-9,
                     what=f"cross_entropy({logits}, target={target})", mistakes=_loss_mistakes(logits, target))


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
@check("grad_logits", 'p - y for the target "sat"', points=1)
def check_grad_logits_sat(grad_logits):
    expect_close(grad_logits(np.array(LOGITS), SAT), GRAD_LOGITS, what='dL/dlogits for "the cat", target "sat"',
                 mistakes={"compute y - p instead of p - y": -np.array(GRAD_LOGITS),
                           "forget to subtract the one-hot target (that is just the softmax)": PROBS})


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
@check("grad_unembedding", 'the whole (5, 2) gradient for "the cat", target "sat"', points=1)
def check_grad_unembedding_sat(grad_unembedding):
    want = np.outer(GRAD_LOGITS, H)  # its entry [sat, 0] is DW_SAT_0
    expect_close(grad_unembedding(np.array(H), np.array(LOGITS), SAT), want,
                 what='dL/dW_U for "the cat", target "sat" (entry [sat, 0] should be -0.702883)',
                 mistakes=_grad_unembedding_mistakes(H, LOGITS, SAT))


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
@check("sgd_update", "one step on W_U[sat, 0] alone with lr 0.5", points=1)
def check_sgd_one_weight(sgd_update):
    grad = np.zeros_like(W_U)
    grad[SAT, 0] = DW_SAT_0
    want = W_U.copy()
    want[SAT, 0] = W_SAT_0_AFTER
    W_after = sgd_update(W_U, grad, 0.5)
    expect_close(W_after, want,
                 what="W_U after one step on W_U[sat, 0] (it should become 1.351441; no other entry moves)",
                 mistakes={"add the gradient instead of subtracting it (W + lr * grad); "
                           f"W_U[sat, 0] would be {W_SAT_0_SIGN_FLIPPED}": W_U + 0.5 * grad,
                           "forget the learning rate (W - grad)": W_U - grad})
    # What the step does to the prediction, computed by the reference from the new W_U.
    _, logits = ref.forward(CONTEXT, W1, B1, np.asarray(W_after, dtype=float))
    expect_close([logits[SAT], ref.softmax(logits)[SAT], ref.cross_entropy(logits, SAT)],
                 [LOGIT_SAT_AFTER, P_SAT_AFTER, LOSS_AFTER],
                 what='logit of "sat", its probability and the loss after the step')


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
                     mistakes={"update W in place (W -= lr * grad): the caller's matrix changes; "
                               "return a new array instead": W - lr * grad,
                               "update W in place with the sign flipped": W + lr * grad})


@check("sgd_update", "random shapes and learning rates", points=1)
def check_sgd_random(sgd_update, rng):
    for shape in [(int(rng.integers(2, 9)),), tuple(int(n) for n in rng.integers(2, 9, size=2)),
                  tuple(int(n) for n in rng.integers(2, 5, size=3))]:
        W, grad, lr = rng.normal(size=shape), rng.normal(size=shape), float(rng.uniform(0.01, 2.0))
        expect_close(sgd_update(W, grad, lr), ref.sgd_update(W, grad, lr), atol=1e-12, rtol=1e-12,
                     what=f"sgd_update for W of shape {shape}, lr {lr:.4f}",
                     mistakes={"add the gradient instead of subtracting it (W + lr * grad)": W + lr * grad,
                               "forget the learning rate (W - grad)": W - grad})


# -- numerical_gradient -------------------------------------------------------------------------------------
@check("numerical_gradient", 'W_U[sat, 0] of "the cat": -0.702883', points=1)
def check_numerical_sat(numerical_gradient, submission):
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
    for sign, name in ((-1, "down"), (1, "up")):
        left = W.copy()
        left[index] += sign * 1e-5
        nudged[f"leave W[index] nudged {name} by eps: put the entry back after measuring "
               "(or nudge a copy)"] = left
    expect_close(args_after[1], W, atol=1e-13, what="the W you passed to numerical_gradient, after the call",
                 mistakes=nudged)
