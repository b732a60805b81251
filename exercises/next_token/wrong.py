"""Small wrong implementations of the "next_token" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a check (``checks.py``) or a visible case
(``visible.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import numpy as np

from autograder.authoring import fail
from solutions import next_token as ref


# -- known mistakes, as small wrong implementations -------------------------------------
def _one_hot(V, target):
    y = np.zeros(V)
    y[target] = 1.0
    return y


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
    return {"take np.log of softmax(logits)[target], which underflows to log(0) = -inf; "
            "use log-sum-exp minus the target's logit instead": _log_of_softmax_loss(logits, target),
            "exponentiate the logits without first subtracting the largest one (overflow)":
                _unshifted_loss(logits, target),
            "forget the minus sign (log p instead of -log p)": -ref.cross_entropy(logits, target)}


def _grad_logits_mistakes(logits, target):
    g = ref.grad_logits(logits, target)
    return {"compute y - p instead of p - y": -g,
            "forget to subtract the one-hot target (that is just the softmax)": ref.softmax(logits)}


def _grad_unembedding_mistakes(h, logits, target):
    h = np.asarray(h, dtype=float)
    g = ref.grad_logits(logits, target)
    only_target_row = np.zeros((len(g), len(h)))
    only_target_row[target] = g[target] * h
    return {"compute y - p instead of p - y": -np.outer(g, h),
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
