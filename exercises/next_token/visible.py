"""Visible cases of the "next_token" exercise: what students see under each function.

``python -m autograder build`` writes ``VISIBLE`` into the notebook as values only (see
``autograder/course/visible.py``); the figures come from ``worked.py``, the mistakes' values from ``wrong.py``.
"""
import numpy as np

from autograder.authoring import Visible

from .worked import B1, CONTEXT, DW_SAT_0, GRAD_LOGITS, LOGITS, LOSS, PROBS, SAT, W1, W_SAT_0_AFTER, W_U, H
from .wrong import _grad_unembedding_mistakes, _loss_mistakes, _numerical_mistakes, _unembedding_loss

# -- visible checks: written into the notebook by the build, as values (see visible.py) --------
_FORWARD = {"context": CONTEXT, "W1": W1, "b1": B1, "W_U": W_U}
_COLUMNS = "use the column convention (W1 @ context) instead of context @ W1"
_STEP = np.zeros_like(W_U)
_STEP[SAT, 0] = DW_SAT_0
_AFTER = W_U.copy()
_AFTER[SAT, 0] = W_SAT_0_AFTER
_SIGN = "add the gradient instead of subtracting it (W + lr * grad): the step goes uphill"
_NEGATIVE = np.array([1.0, -0.5])  # context @ W1 = (0.5, -0.5): the second unit is negative
_CUBE = np.array([[1.0, 2.0]])
_CUBIC = """def loss(W):  # the sum of the cubes of the entries
    return float(np.sum(W ** 3))

return numerical_gradient(loss, {W}, (0, 1), eps=0.1)"""
_RESTORES = """h = {h}

def loss(W):
    z = W @ h
    return float(np.max(z) + np.log(np.sum(np.exp(z - np.max(z)))) - z[{target}])

W = {W_U}
numerical_gradient(loss, W, ({target}, 0))
return W"""
_LOSS_OF_W_U = """h = {h}

def loss(W):  # the cross-entropy of the logits W @ h for the target "sat"
    z = W @ h
    return float(np.max(z) + np.log(np.sum(np.exp(z - np.max(z)))) - z[{target}])

return numerical_gradient(loss, {W_U}, ({target}, 0))"""

VISIBLE = [
    Visible("forward", 'h for the context vector of "cat"', "forward({context}, {W1}, {b1}, {W_U})",
            inputs=_FORWARD, part=0, parts=2, expected=H,
            mistakes={_COLUMNS: np.maximum(W1 @ CONTEXT + B1, 0)}),
    Visible("forward", 'the five logits for "the cat"', "forward({context}, {W1}, {b1}, {W_U})",
            inputs=_FORWARD, part=1, parts=2, expected=LOGITS,
            mistakes={_COLUMNS: W_U @ np.maximum(W1 @ CONTEXT + B1, 0),
                      "apply the ReLU to the logits too (only h goes through the ReLU)": np.maximum(LOGITS, 0)}),
    Visible("forward", "a negative pre-activation becomes 0 in h", "forward({context}, {W1}, {b1}, {W_U})",
            inputs=dict(_FORWARD, context=_NEGATIVE), part=0, parts=2, expected=[0.5, 0.0],
            mistakes={"forget the ReLU (negative entries of context @ W1 + b1 must become 0)": _NEGATIVE @ W1 + B1}),
    Visible("cross_entropy", 'loss for the target "sat"', "cross_entropy({logits}, {target})",
            inputs={"logits": np.array(LOGITS), "target": SAT}, expected=LOSS,
            mistakes=dict(_loss_mistakes(LOGITS, SAT),
                          **{"return the probability of the target instead of -log of it": PROBS[SAT]})),
    Visible("cross_entropy", "logits (1000, 0) with target 1 give 1000, not inf", "cross_entropy({logits}, 1)",
            inputs={"logits": np.array([1000.0, 0.0])}, expected=1000.0,
            mistakes=_loss_mistakes([1000.0, 0.0], 1)),
    Visible("grad_logits", 'p - y for the target "sat"', "grad_logits({logits}, {target})",
            inputs={"logits": np.array(LOGITS), "target": SAT}, expected=GRAD_LOGITS,
            mistakes={"compute y - p instead of p - y": -np.array(GRAD_LOGITS),
                      "forget to subtract the one-hot target (that is just the softmax)": PROBS}),
    Visible("grad_unembedding", 'the whole (5, 2) gradient for "the cat", target "sat"',
            "grad_unembedding({h}, {logits}, {target})",
            inputs={"h": np.array(H), "logits": np.array(LOGITS), "target": SAT},
            expected=np.outer(GRAD_LOGITS, H), mistakes=_grad_unembedding_mistakes(H, LOGITS, SAT)),
    Visible("sgd_update", "one step on W_U[sat, 0] alone with lr 0.5 (it becomes 1.351441)",
            "sgd_update({W}, {grad}, 0.5)", inputs={"W": W_U, "grad": _STEP}, expected=_AFTER,
            mistakes={_SIGN: W_U + 0.5 * _STEP, "forget the learning rate (W - grad)": W_U - _STEP}),
    Visible("sgd_update", "leaves the W it is given unchanged",
            "W = {W}\nsgd_update(W, {grad}, 0.5)\nreturn W", inputs={"W": W_U, "grad": _STEP}, expected=W_U,
            mistakes={"update W in place (W -= lr * grad): the caller's matrix changes; return a new "
                      "array instead": W_U - 0.5 * _STEP,
                      "update W in place with the sign flipped": W_U + 0.5 * _STEP}),
    Visible("numerical_gradient", 'dL/dW_U[sat, 0] of "the cat" measured: -0.702883', _LOSS_OF_W_U,
            inputs={"h": np.array(H), "W_U": W_U, "target": SAT}, expected=DW_SAT_0,
            mistakes=_numerical_mistakes(_unembedding_loss(H, SAT), W_U, (SAT, 0), 1e-5)),
    Visible("numerical_gradient", "sum(W ** 3) in entry (0, 1) with eps=0.1: exactly 3 * 2**2 + 0.1**2 = 12.01",
            _CUBIC, inputs={"W": _CUBE}, atol=1e-9, expected=12.01,
            mistakes=_numerical_mistakes(lambda W: float(np.sum(np.asarray(W) ** 3)), _CUBE, (0, 1), 0.1)),
    Visible("numerical_gradient", "leaves W as it was", _RESTORES, inputs={"h": np.array(H), "W_U": W_U, "target": SAT},
            atol=1e-12, expected=W_U,
            mistakes={f"leave W[index] nudged {name} by eps: put the entry back after measuring (or nudge a copy)":
                      W_U + sign * 1e-5 * (np.arange(W_U.size).reshape(W_U.shape) == SAT * 2)
                      for sign, name in ((-1, "down"), (1, "up"))}),
]
