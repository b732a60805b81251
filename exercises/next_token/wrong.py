"""Small wrong implementations of the "next_token" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a randomized
check (``checks.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

from autograder.authoring import fail
from solutions import next_token as ref

# -- what the student did, as the feedback names it ("That is the value you get when you ...") --
COLUMNS = "use the column convention (W1 @ context) instead of context @ W1"
RELU_ON_LOGITS = "apply the ReLU to the logits too (only h goes through the ReLU)"
NO_RELU = "forget the ReLU (negative entries of context @ W1 + b1 must become 0)"
NO_BIAS = "forget the bias b1"
LOG_UNDERFLOW = ("take np.log of softmax(logits)[target], which underflows to log(0) = -inf; "
                 "use log-sum-exp minus the target's logit instead")
UNSHIFTED = "exponentiate the logits without first subtracting the largest one (overflow)"
NO_MINUS = "forget the minus sign (log p instead of -log p)"
PROBABILITY = "return the probability of the target instead of -log of it"
Y_MINUS_P = "compute y - p instead of p - y"
NO_ONE_HOT = "forget to subtract the one-hot target (that is just the softmax)"
ADDS_GRADIENT = "add the gradient instead of subtracting it (W + lr * grad): the step goes uphill"
NO_LEARNING_RATE = "forget the learning rate (W - grad)"
IN_PLACE = "update W in place (W -= lr * grad): the caller's matrix changes; return a new array instead"
IN_PLACE_FLIPPED = "update W in place with the sign flipped"
NUDGED_DOWN = "leave W[index] nudged down by eps: put the entry back after measuring (or nudge a copy)"
NUDGED_UP = "leave W[index] nudged up by eps: put the entry back after measuring (or nudge a copy)"


# -- known mistakes, as small wrong implementations -------------------------------------
def _log_of_softmax_loss(logits, target):
    """-log(softmax(z)[t]) taken literally: the probability underflows to 0 and the loss to inf."""
    with np.errstate(all="ignore"):
        return float(-np.log(ref.softmax(logits)[target]))


def _unshifted_loss(logits, target):
    """The loss with a softmax that exponentiates the raw logits (overflow: inf / inf = nan)."""
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(logits, dtype=float))
        return float(-np.log(e[target] / e.sum()))


def _loss_mistakes(logits, target):
    return {LOG_UNDERFLOW: _log_of_softmax_loss(logits, target), UNSHIFTED: _unshifted_loss(logits, target),
            NO_MINUS: -ref.cross_entropy(logits, target)}


def _grad_logits_mistakes(logits, target):
    g = ref.grad_logits(logits, target)
    return {Y_MINUS_P: -g, NO_ONE_HOT: ref.softmax(logits)}


def _grad_unembedding_mistakes(h, logits, target):
    h = np.asarray(h, dtype=float)
    g = ref.grad_logits(logits, target)
    only_target_row = np.zeros((len(g), len(h)))
    only_target_row[target] = g[target] * h
    return {Y_MINUS_P: -np.outer(g, h),
            "drop the h factor of the chain rule (the gradient of W_U[i, j] is (p_i - y_i) * h_j)":
                np.outer(g, np.ones_like(h)),
            "drop the h factor of the chain rule (returning p - y where (p_i - y_i) * h_j is asked)": g,
            "fill only the target word's row: every row of W_U gets a gradient, (p_i - y_i) * h":
                only_target_row,
            "return one entry of dL/dW_U where the whole (V, d) matrix is asked": g[target] * h[0],
            "take the outer product the wrong way round (h times p - y, shape (d, V))": np.outer(h, g)}


def _numerical_mistakes(loss, W, index, eps):
    """What common wrong finite differences return for ``loss`` at ``W``, entry ``index``."""
    W = np.asarray(W, dtype=float)
    e = np.zeros_like(W)
    e[index] = eps
    central = (loss(W + e) - loss(W - e)) / (2 * eps)
    return {"perturb the whole matrix (W + eps, every entry) where only the entry W[index] "
            "should move": (loss(W + eps) - loss(W - eps)) / (2 * eps),
            "divide by eps instead of 2 * eps": 2 * central,
            "use a one-sided difference (L(W + eps e) - L(W)) / eps instead of the central one":
                (loss(W + e) - loss(W)) / eps,
            "ignore the eps argument (always nudging by 1e-5)":
                ref.numerical_gradient(loss, W, index) if eps != 1e-5 else None}


def _unembedding_loss(h, target):
    """Local twin of the child's "unembedding_loss" probe, for computing expected values."""
    h = np.asarray(h, dtype=float)
    return lambda W: ref.cross_entropy(np.asarray(W, dtype=float) @ h, target)


def _pair(result, what):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail(f"{what} should return a tuple (h, logits); got {type(result).__name__}")
    return result


# -- known mistakes as whole functions: the grader runs a check on one to tell whether a failure
#    that names nothing (a crash on other shapes) comes from a mistake named in another check of
#    the same function (autograder/checks/charged.py) --
def _forward_columns(context, W1, b1, W_U):
    """forward with the column convention: W1 @ context (square weights hide it; others raise)."""
    h = np.maximum(np.asarray(W1, dtype=float) @ np.asarray(context, dtype=float) + b1, 0.0)
    return h, np.asarray(W_U, dtype=float) @ h


WRONG_FUNCTIONS = {COLUMNS: {"forward": _forward_columns}}
