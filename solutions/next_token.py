"""Reference solutions for the "next_token" exercise.

GENERATED from exercises/next_token/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import numpy as np


def softmax(z):
    """Probabilities from scores (given, not graded): shift by the maximum, exponentiate, normalize.

    Args:
        z: scores, shape (V,), float.
    Returns:
        ndarray of shape (V,), float64, positive, summing to 1.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z))
    return e / e.sum()


def forward(context, W1, b1, W_U):
    """Feed-forward layer with ReLU, then one logit per vocabulary word.

    Args:
        context: the token's context vector, shape (d_model,), float.
        W1: feed-forward weights, shape (d_model, d), row convention (``context @ W1``).
        b1: feed-forward bias, shape (d,).
        W_U: unembedding, shape (V, d): one row per vocabulary word.
    Returns:
        tuple ``(h, logits)``: ``h = ReLU(context @ W1 + b1)``, shape (d,), float64, no
        negative entries; ``logits = W_U @ h``, shape (V,), float64.
    """
    context = np.asarray(context, dtype=float)
    h = np.maximum(context @ np.asarray(W1, dtype=float) + np.asarray(b1, dtype=float), 0.0)
    logits = np.asarray(W_U, dtype=float) @ h
    return h, logits


def cross_entropy(logits, target):
    """Cross-entropy of the softmax of ``logits`` for the right token ``target``.

    Args:
        logits: scores, shape (V,), float (any size, e.g. 1000 or -1000).
        target: index of the right next token, int in [0, V).
    Returns:
        float: ``-log softmax(logits)[target]`` in nats, computed as log-sum-exp minus the
        target's logit, so it stays finite (logits (1000, 0), target 1 give 1000.0).
    """
    z = np.asarray(logits, dtype=float)
    top = np.max(z)
    log_sum_exp = top + np.log(np.sum(np.exp(z - top)))
    return float(log_sum_exp - z[target])


def grad_logits(logits, target):
    """Gradient of the cross-entropy with respect to the logits.

    Args:
        logits: scores, shape (V,), float.
        target: index of the right next token, int.
    Returns:
        ndarray of shape (V,), float64: ``softmax(logits) - one_hot(target)``; entries sum to 0.
    """
    g = softmax(logits)
    g[target] -= 1.0
    return g


def grad_unembedding(h, logits, target):
    """Gradient of the cross-entropy with respect to every weight of the unembedding.

    Args:
        h: the hidden vector the logits were computed from, shape (d,), float.
        logits: ``W_U @ h``, shape (V,), float.
        target: index of the right next token, int.
    Returns:
        ndarray of shape (V, d), float64: entry [i, j] is ``(p_i - y_i) * h_j``.
    """
    return np.outer(grad_logits(logits, target), np.asarray(h, dtype=float))


def sgd_update(W, grad, lr):
    """One step of gradient descent.

    Args:
        W: current weights, ndarray of any shape, float.
        grad: the gradient of the loss with respect to ``W``, same shape.
        lr: learning rate, float > 0.
    Returns:
        a NEW ndarray ``W - lr * grad`` (float64, same shape); ``W`` itself is not modified.
    """
    return np.asarray(W, dtype=float) - lr * np.asarray(grad, dtype=float)


def numerical_gradient(loss_fn, W, index, eps=1e-5):
    """Central-difference estimate of one partial derivative of ``loss_fn`` at ``W``.

    Args:
        loss_fn: a function taking an array shaped like ``W`` and returning a float.
        W: the point, ndarray of any shape, float. Left unchanged.
        index: a tuple, the entry of ``W`` to nudge, e.g. ``(2, 0)``.
        eps: the size of the nudge (float > 0).
    Returns:
        float: ``(loss_fn(W + eps e) - loss_fn(W - eps e)) / (2 * eps)``, where ``e`` is 1
        at ``index`` and 0 elsewhere.
    """
    nudged = np.array(W, dtype=float)
    nudged[index] += eps
    above = loss_fn(nudged)
    nudged[index] -= 2 * eps
    below = loss_fn(nudged)
    return float((above - below) / (2 * eps))
