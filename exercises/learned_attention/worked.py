"""Worked values of the "learned_attention" exercise: toy model 2 of the course text, whose
attention learns that "it" refers to the sentence's subject.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/learned_attention.py``) reproduces it; ``docs/worked-examples.md`` shows them side by
side. The training run is the text's: seed 5, 1,001 full-batch steps, learning rate 0.3.
"""
from autograder.authoring import FROM_SCRATCH, Source, Worked

LOOKUP = Source(FROM_SCRATCH, "The reading room / The lookup, step by step")
RESULTS = Source(FROM_SCRATCH, "Build it: attention in 80 lines / What you get")
EXPERIMENTS = Source(FROM_SCRATCH, "Build it: attention in 80 lines / Three experiments")
DOG_SENTENCE = "the dog saw the cat and it"
STEPS, LR, SEED = 1001, 0.3, 5

_RUNS = {}


def _train(ref, positions=True):
    """``(params, losses)`` of the text's run (once per reference module and switch)."""
    key = (ref, positions)
    if key not in _RUNS:
        params, losses = ref.init_params(SEED), []
        for _ in range(STEPS):
            params, loss = ref.train_step(params, ref.DATA, LR, positions=positions)
            losses.append(loss)
        _RUNS[key] = params, losses
    return _RUNS[key]


def _read(ref, params, sentence, positions=True):
    return ref.model_forward(params, ref.encode(sentence), positions=positions)


WORKED = [
    Worked("loss at steps 0, 25, 50, 100, 200, 500, 1000 (nats)", RESULTS,
           [3.928, 0.418, 0.022, 0.003, 0.001, 0.000, 0.000],
           lambda ref: [_train(ref)[1][s] for s in (0, 25, 50, 100, 200, 500, 1000)], tol=5e-4),
    Worked(f'raw scores of "it" over "{DOG_SENTENCE}", after training', LOOKUP,
           [-19.1, 2.7, -12, -19, -11.5, -23.8, -24.9],
           lambda ref: _read(ref, _train(ref)[0], DOG_SENTENCE)["scores"], tol=0.05),
    Worked('the share "it" gives "dog", after training', LOOKUP, 0.987,
           lambda ref: _read(ref, _train(ref)[0], DOG_SENTENCE)["weights"][1], tol=5e-4),
    Worked('the share "it" gives "cat" in "the cat saw the dog and it"', RESULTS, 0.96,
           lambda ref: _read(ref, _train(ref)[0], "the cat saw the dog and it")["weights"][1], tol=5e-3),
    Worked(f'before training: the shares "it" gives over "{DOG_SENTENCE}"', RESULTS,
           [0.14, 0.15, 0.06, 0.13, 0.24, 0.20, 0.07],
           lambda ref: _read(ref, ref.init_params(SEED), DOG_SENTENCE)["weights"], tol=5e-3),
    Worked("without position stamps: loss at steps 500 and 1000", EXPERIMENTS, [0.467, 0.463],
           lambda ref: [_train(ref, positions=False)[1][s] for s in (500, 1000)], tol=5e-4),
]


# -- figures the fixed cases and the checks compare with (cases.py, checks.py) --
TIGHT = {"atol": 1e-9, "rtol": 1e-9}
# Section 8, before training (seed 5): the shares of "it" and its top prediction ("it", 65.0%).
WEIGHTS_BEFORE = [0.140, 0.153, 0.062, 0.130, 0.243, 0.197, 0.074]
P_IT_BEFORE = 0.650
# Section 8: losses to 6 decimals at steps 0 and 25 (lr 0.3, all 18 sentences).
LOSS_STEP_0, LOSS_STEP_25 = 3.927973, 0.417768
LR = 0.3
TEXT_RUN_STEPS = (0, 1, 2, 5, 10, 25)  # steps of the seed-5 run checked (each from the reference's weights)
RECORD_KEYS = ("x", "q", "K", "V", "scores", "weights", "out", "h", "z1", "a1", "logits", "probs")
GRAD_KEYS = ("weights", "scores", "q", "K", "V", "W_Q", "W_K", "W_V", "x")
PARAM_KEYS = ("E", "W_Q", "W_K", "W_V", "W1", "b1", "W2", "b2")
