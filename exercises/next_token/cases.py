"""Fixed cases of the "next_token" exercise: from the context vector of "cat" to "sat", and one
training step on W_U[sat, 0] (the course text's figures, ``worked.py``), each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The mistakes' sentences and values come from ``wrong.py``.
"""
import numpy as np

from autograder.authoring import Case, Check, expect_close
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
    W_U,
    H,
)
from .wrong import (
    ADDS_GRADIENT,
    COLUMNS,
    IN_PLACE,
    IN_PLACE_FLIPPED,
    NO_LEARNING_RATE,
    NO_ONE_HOT,
    NO_RELU,
    NUDGED_DOWN,
    NUDGED_UP,
    PROBABILITY,
    RELU_ON_LOGITS,
    Y_MINUS_P,
    _grad_unembedding_mistakes,
    _loss_mistakes,
    _numerical_mistakes,
    _unembedding_loss,
)

_FORWARD = {"context": CONTEXT, "W1": W1, "b1": B1, "W_U": W_U}
_CALL_FORWARD = "forward({context}, {W1}, {b1}, {W_U})"
_STEP = np.zeros_like(W_U)
_STEP[SAT, 0] = DW_SAT_0
_AFTER = W_U.copy()
_AFTER[SAT, 0] = W_SAT_0_AFTER
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
_NUDGED_SAT_0 = np.arange(W_U.size).reshape(W_U.shape) == SAT * 2  # the entry [sat, 0]


def _prediction_after(W_after):
    """What the student's step does to the prediction, computed by the reference from the new W_U."""
    _, logits = ref.forward(CONTEXT, W1, B1, np.asarray(W_after, dtype=float))
    expect_close([logits[SAT], ref.softmax(logits)[SAT], ref.cross_entropy(logits, SAT)],
                 [LOGIT_SAT_AFTER, P_SAT_AFTER, LOSS_AFTER],
                 what='logit of "sat", its probability and the loss after the step')


CASES = [
    # -- forward --
    Check("forward", 'h for the context vector of "cat"', points=1, name="check_forward_h", cases=[
        Case(_CALL_FORWARD, inputs=_FORWARD, part=0, parts=("h", "logits"), expected=H,
             what='h = ReLU(context @ W1 + b1) for "cat"', mistakes={COLUMNS: np.maximum(W1 @ CONTEXT + B1, 0)}),
    ]),
    Check("forward", 'the five logits for "the cat"', points=1, name="check_forward_logits", cases=[
        Case(_CALL_FORWARD, inputs=_FORWARD, part=1, parts=("h", "logits"), expected=LOGITS,
             what='logits W_U @ h for "the cat" (the, cat, sat, ran, mat)',
             mistakes={COLUMNS: W_U @ np.maximum(W1 @ CONTEXT + B1, 0), RELU_ON_LOGITS: np.maximum(LOGITS, 0)}),
    ]),
    Check("forward", "a negative pre-activation becomes 0 in h", cases=[
        Case(_CALL_FORWARD, inputs=dict(_FORWARD, context=_NEGATIVE), part=0, parts=("h", "logits"),
             expected=[0.5, 0.0], mistakes={NO_RELU: _NEGATIVE @ W1 + B1}),
    ]),
    # -- cross_entropy --
    Check("cross_entropy", 'loss for the target "sat"', points=1, name="check_loss_sat", cases=[
        Case("cross_entropy({logits}, {target})", inputs={"logits": np.array(LOGITS), "target": SAT}, expected=LOSS,
             what='cross-entropy of the "the cat" logits, target "sat"',
             mistakes=dict(_loss_mistakes(LOGITS, SAT), **{PROBABILITY: PROBS[SAT]})),
    ]),
    Check("cross_entropy", "logits (1000, 0) with target 1 give 1000, not inf", points=1, name="check_loss_extreme",
          cases=[Case(f"cross_entropy({{logits}}, {target})", inputs={"logits": np.array(logits)}, expected=want,
                      atol=1e-9, what=f"cross_entropy({logits}, target={target})",
                      mistakes=_loss_mistakes(logits, target), hidden=(logits, target) != ([1000.0, 0.0], 1))
                 for logits, target, want in (([1000.0, 0.0], 0, 0.0), ([1000.0, 0.0], 1, 1000.0),
                                              ([0.0, -1000.0], 1, 1000.0))]),
    # -- grad_logits --
    Check("grad_logits", 'p - y for the target "sat"', points=1, name="check_grad_logits_sat", cases=[
        Case("grad_logits({logits}, {target})", inputs={"logits": np.array(LOGITS), "target": SAT},
             expected=GRAD_LOGITS, what='dL/dlogits for "the cat", target "sat"',
             mistakes={Y_MINUS_P: -np.array(GRAD_LOGITS), NO_ONE_HOT: PROBS}),
    ]),
    # -- grad_unembedding --
    Check("grad_unembedding", 'the whole (5, 2) gradient for "the cat", target "sat"', points=1,
          name="check_grad_unembedding_sat", cases=[
              Case("grad_unembedding({h}, {logits}, {target})",
                   inputs={"h": np.array(H), "logits": np.array(LOGITS), "target": SAT},
                   expected=np.outer(GRAD_LOGITS, H),  # its entry [sat, 0] is DW_SAT_0
                   what=f'dL/dW_U for "the cat", target "sat" (entry [sat, 0] should be {DW_SAT_0})',
                   mistakes=_grad_unembedding_mistakes(H, LOGITS, SAT))]),
    # -- sgd_update --
    Check("sgd_update", "one step on W_U[sat, 0] alone with lr 0.5", points=1, name="check_sgd_one_weight", cases=[
        Case("sgd_update({W}, {grad}, 0.5)", inputs={"W": W_U, "grad": _STEP}, expected=_AFTER,
             label=f"one step on W_U[sat, 0] alone with lr 0.5 (it becomes {W_SAT_0_AFTER})",
             what=f"W_U after one step on W_U[sat, 0] (it should become {W_SAT_0_AFTER}; no other entry moves)",
             mistakes={ADDS_GRADIENT: W_U + 0.5 * _STEP, NO_LEARNING_RATE: W_U - _STEP}),
        Case("sgd_update({W}, {grad}, 0.5)", inputs={"W": W_U, "grad": _STEP}, judge=_prediction_after, hidden=True),
    ]),
    Check("sgd_update", "leaves the W it is given unchanged", cases=[
        Case("W = {W}\nsgd_update(W, {grad}, 0.5)\nreturn W", inputs={"W": W_U, "grad": _STEP}, expected=W_U,
             mistakes={IN_PLACE: W_U - 0.5 * _STEP, IN_PLACE_FLIPPED: W_U + 0.5 * _STEP}),
    ]),
    # -- numerical_gradient (the graded checks build their loss in the student's process: checks.py) --
    Check("numerical_gradient", f'dL/dW_U[sat, 0] of "the cat" measured: {DW_SAT_0}', cases=[
        Case(_LOSS_OF_W_U, inputs={"h": np.array(H), "W_U": W_U, "target": SAT}, expected=DW_SAT_0,
             mistakes=_numerical_mistakes(_unembedding_loss(H, SAT), W_U, (SAT, 0), 1e-5)),
    ]),
    Check("numerical_gradient", "sum(W ** 3) in entry (0, 1) with eps=0.1: exactly 3 * 2**2 + 0.1**2 = 12.01", cases=[
        Case(_CUBIC, inputs={"W": _CUBE}, atol=1e-9, expected=12.01,
             mistakes=_numerical_mistakes(lambda W: float(np.sum(np.asarray(W) ** 3)), _CUBE, (0, 1), 0.1)),
    ]),
    Check("numerical_gradient", "leaves W as it was", cases=[
        Case(_RESTORES, inputs={"h": np.array(H), "W_U": W_U, "target": SAT}, atol=1e-12, expected=W_U,
             mistakes={NUDGED_DOWN: W_U - 1e-5 * _NUDGED_SAT_0, NUDGED_UP: W_U + 1e-5 * _NUDGED_SAT_0}),
    ]),
]
