"""Worked values of the "next_token" exercise: from "cat"'s context vector to the next token,
the cross-entropy for "sat", and one gradient step on the unembedding W_U.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/next_token.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, Source, Worked

FFN = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Feed-Forward, Logits, Softmax, Sample")
STEP = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Loss, Gradient, and One Step of Descent")

# "cat"'s context vector from the attention exercise, to 6 decimals as the reference gives it.
CONTEXT = np.array([0.669762, 1.0])
W1 = np.array([[1.0, 0.0], [1.0, 1.0]])
B1 = np.zeros(2)
VOCAB = ["the", "cat", "sat", "ran", "mat"]
W_U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
SAT = VOCAB.index("sat")
LR = 0.5


def _forward(ref, W_U=W_U):
    return ref.forward(CONTEXT, W1, B1, W_U)


def _probs(logits):
    e = np.exp(logits - np.max(logits))
    return e / e.sum()


def _stepped(ref):
    """W_U after one gradient step on the single weight W_U[sat, 0] (learning rate 0.5)."""
    h, logits = _forward(ref)
    grad = np.zeros_like(W_U)
    grad[SAT, 0] = ref.grad_unembedding(h, logits, SAT)[SAT, 0]
    return ref.sgd_update(W_U, grad, LR)


WORKED = [
    Worked("next-token probabilities (the, cat, sat, ran, mat)", FFN,
           [0.2130, 0.1090, 0.5791, 0.0205, 0.0784], lambda ref: _probs(_forward(ref)[1]), tol=5e-5),
    Worked('cross-entropy for the target "sat" (nats)', STEP, 0.5464,
           lambda ref: ref.cross_entropy(_forward(ref)[1], SAT), tol=5e-5),
    Worked('gradient of the loss with respect to the "sat" logit', STEP, -0.4209,
           lambda ref: ref.grad_logits(_forward(ref)[1], SAT)[SAT], tol=5e-5),
    Worked("dL/dW_U[sat, 0]", STEP, -0.7029,
           lambda ref: ref.grad_unembedding(*_forward(ref), SAT)[SAT, 0], tol=5e-5),
    Worked("W_U[sat, 0] after one step (learning rate 0.5)", STEP, 1.3514,
           lambda ref: _stepped(ref)[SAT, 0], tol=5e-5),
    Worked('"sat" logit after the step', STEP, 3.2566,
           lambda ref: _forward(ref, _stepped(ref))[1][SAT], tol=5e-5),
    Worked("cross-entropy after the step (nats)", STEP, 0.3395,
           lambda ref: ref.cross_entropy(_forward(ref, _stepped(ref))[1], SAT), tol=5e-5),
]


# -- figures the fixed cases and the checks compare with (cases.py, checks.py) --
B1 = np.array([0.0, 0.0])
SAT = 2
H = [1.669762, 1.0]
LOGITS = [1.669762, 1.0, 2.669762, -0.669762, 0.669762]
PROBS = [0.213021, 0.109031, 0.579052, 0.020530, 0.078366]
LOSS = 0.546363
GRAD_LOGITS = [0.213021, 0.109031, -0.420948, 0.020530, 0.078366]  # p - y for target "sat"
DW_SAT_0 = -0.702883        # dL/dW_U[sat, 0]
W_SAT_0_AFTER = 1.351441    # after one step with lr 0.5 on that weight alone
W_SAT_0_SIGN_FLIPPED = 0.648559
LOGIT_SAT_AFTER, P_SAT_AFTER, LOSS_AFTER = 3.256585, 0.712121, 0.339508  # after that step
