"""Fixed cases of the "learned_attention" exercise: the table of positions, the seed-5 model on
"the dog saw the cat and it" before and after training steps, one hand-made read and a small
multi-head case, each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The figures come from ``worked.py``, the mistakes' sentences and values from ``wrong.py``.
Most cases here are what the notebook shows; the graded fixed checks of model_forward and
train_step stay in ``checks.py`` (its docstring says why).
"""
import numpy as np

from autograder.authoring import Case, Check
from solutions import learned_attention as ref

from .worked import LOSS_STEP_0, LOSS_STEP_25, LR, WEIGHTS_BEFORE
from .wrong import (
    LOSS_AFTER_STEP,
    LOSSES_SUMMED,
    SENTENCE,
    UNBUFFERED,
    _backward_mistakes,
    _forward_mistakes,
    _head_mistakes,
    _heads,
    _table,
    _table_mistakes,
    _unbuffered_step,
)


def _shown(function, label, call, **fields):
    """A worked example the notebook shows, graded by no check: one case under ``label``."""
    return Check(function, label, cases=[Case(call, **fields)])


# Public inputs only: the text's seed-5 model on "the dog saw the cat and it" (section 8), a
# small hand-made read and a small multi-head case whose entries are multiples of 0.5 (so the
# literals stay short). Expected values are section 8's numbers or the reference on these
# inputs; mistakes are the wrong variants of wrong.py.
_START = ref.init_params(5)
_IDS = ref.encode(SENTENCE)
_FORWARD = "model_forward(init_params(5), encode({sentence}){switches})[{key!r}]"


def _forward_case(label, key, expected, switches="", atol=1e-4, **mistake_switches):
    index = {"weights": 0, "probs": 1}[key]
    call = _FORWARD.replace("{switches}", switches).replace("{key!r}", repr(key))
    return _shown("model_forward", label, call, inputs={"sentence": SENTENCE}, expected=expected,
                   atol=atol,
                   mistakes=_forward_mistakes(_START, _IDS, index, **mistake_switches))


def _read_of(x, W_Q, W_K, W_V):
    """The forward values of the last token's read (the inputs of attention_backward)."""
    q, K, V = x[-1] @ W_Q, x @ W_K, x @ W_V
    scores = K @ q
    return {"x": x, "q": q, "K": K, "V": V, "scores": scores,
            "weights": ref.softmax(scores / np.sqrt(W_Q.shape[1]))}


_X_READ = np.array([[1.0, 0.5, -0.5], [0.0, 1.0, 0.5], [-1.0, 0.5, 1.0], [0.5, -0.5, 1.0]])
_WQ_READ = np.array([[0.5, -1.0], [1.0, 0.5], [-0.5, 1.0]])
_WK_READ = np.array([[1.0, 0.5], [-0.5, 1.0], [0.5, 0.5]])
_WV_READ = np.array([[0.5, 1.0], [1.0, -0.5], [0.0, 1.0]])
_D_OUT = np.array([1.0, -0.5])
_READ_ARGS = (_read_of(_X_READ, _WQ_READ, _WK_READ, _WV_READ), _WQ_READ, _WK_READ, _WV_READ, _D_OUT)
_READ_INPUTS = dict(zip(("read", "W_Q", "W_K", "W_V", "d_out"), _READ_ARGS))
_READ_GRADS = ref.attention_backward(*_READ_ARGS)
_READ_LABEL = "a read of 4 tokens, d_model = 3, d_k = d_v = 2"


def _backward_case(key, what):
    scored = key not in ("weights", "V")       # the three mistakes change only what the scores feed
    return _shown("attention_backward", f"{what} ({_READ_LABEL})",
                   "attention_backward({read}, {W_Q}, {W_K}, {W_V}, {d_out})[" + repr(key) + "]",
                   inputs=_READ_INPUTS, expected=_READ_GRADS[key],
                   mistakes=_backward_mistakes(_READ_ARGS, key) if scored else {})


_STEP_CALL = "train_step(init_params(5), DATA, 0.3)"
_AFTER_STEP_0, _ = ref.train_step(_START, ref.DATA, LR)
_LOSS_AFTER_STEP_0 = np.mean([-np.log(ref.model_forward(_AFTER_STEP_0, ids)["probs"][y]) for ids, y in ref.DATA])
_STEPS = """params = init_params(5)
losses = []
for step in range({steps}):
    params, loss = train_step(params, DATA, 0.3{switches})
    losses.append(loss)
return losses"""


def _losses(steps, **switches):
    params, losses = ref.init_params(5), []
    for _ in range(steps):
        params, loss = ref.train_step(params, ref.DATA, LR, **switches)
        losses.append(loss)
    return losses


def _steps_case(label, steps, expected, switches=""):
    call = _STEPS.replace("{steps}", str(steps)).replace("{switches}", switches)
    return _shown("train_step", label, call, expected=expected, atol=1e-6)


_X_HEADS = np.array([[1.0, 0.0, 0.5, -0.5], [0.5, 1.0, -1.0, 0.0], [-0.5, 0.5, 1.0, 1.0]])
_W_HEADS = {"W_Q": np.array([[1.0, 0.5, 0.0, -0.5], [0.0, 1.0, 0.5, 0.5], [-0.5, 0.0, 1.0, 0.0], [0.5, -0.5, 0.0, 1.0]]),
            "W_K": np.array([[0.5, 0.0, 1.0, 0.0], [1.0, -0.5, 0.0, 0.5], [0.0, 0.5, -0.5, 1.0], [-0.5, 1.0, 0.5, 0.0]]),
            "W_V": np.array([[1.0, 0.0, 0.0, 0.5], [0.0, 1.0, -0.5, 0.0], [0.5, 0.0, 1.0, 0.0], [0.0, -0.5, 0.0, 1.0]]),
            "W_O": np.array([[0.0, 1.0, 0.5, 0.0], [1.0, 0.0, 0.0, -0.5], [0.5, 0.0, 0.0, 1.0], [0.0, -0.5, 1.0, 0.0]])}
_HEADS_INPUTS = {"X": _X_HEADS, **_W_HEADS}
_HEADS_CALL = "multi_head_attention({X}, {W_Q}, {W_K}, {W_V}, {W_O}, n_heads=2{causal})"


def _heads_case(label, part, causal):
    args = (_X_HEADS, *_W_HEADS.values(), 2, causal)
    return _shown("multi_head_attention", label, _HEADS_CALL.replace("{causal}", ", causal=True" if causal else ""),
                   inputs=_HEADS_INPUTS, part=part, parts=2, expected=_heads(*args)[part],
                   mistakes=_head_mistakes(args, part))


CASES = [
    Check("positional_encoding", "the text's table, 8 positions by 8 columns", points=1, name="check_table_text",
          cases=[Case("positional_encoding(8, 8)", expected=_table(8, 8), atol=1e-9, what="positional_encoding(8, 8)",
                      mistakes=_table_mistakes(8, 8), hidden=True)]),
    _shown("positional_encoding", "4 positions by 8 columns (row 0 is 0, 1, 0, 1, ...)", "positional_encoding(4, 8)",
            expected=_table(4, 8), mistakes=_table_mistakes(4, 8)),
    _shown("positional_encoding", "a table of one position and two columns is (0, 1)", "positional_encoding(1, 2)",
            expected=[[0.0, 1.0]], mistakes=_table_mistakes(1, 2)),
    _forward_case('seed 5, before training: the weights of "it" (worked example: 0.140, 0.153, ..., 0.074)', "weights",
                  WEIGHTS_BEFORE, atol=5e-4),
    _forward_case('seed 5, before training: the next-word probabilities ("it" first at 0.650)', "probs",
                  ref.model_forward(_START, _IDS)["probs"]),
    _forward_case("positions=False: the next-word probabilities", "probs",
                  ref.model_forward(_START, _IDS, positions=False)["probs"], ", positions=False", positions=False),
    _forward_case("equal_weights=True: the next-word probabilities", "probs",
                  ref.model_forward(_START, _IDS, equal_weights=True)["probs"], ", equal_weights=True",
                  equal_weights=True),
    _backward_case("weights", "d_weights = V @ d_out"),
    _backward_case("V", "d_V = outer(weights, d_out)"),
    _backward_case("scores", "d_scores, through the softmax and the 1/sqrt(d_k) scaling"),
    _backward_case("q", "d_q"),
    _backward_case("K", "d_K"),
    _backward_case("W_Q", "d_W_Q"),
    _backward_case("W_K", "d_W_K"),
    _backward_case("W_V", "d_W_V"),
    _backward_case("x", "d_x"),
    _shown("train_step", "step 0 from seed 5: the loss 3.927973 (3.928 in the course text)", _STEP_CALL,
            part=1, parts=2,
            expected=LOSS_STEP_0, atol=1e-6,
            mistakes={LOSSES_SUMMED: len(ref.DATA) * LOSS_STEP_0, LOSS_AFTER_STEP: _LOSS_AFTER_STEP_0}),
    _shown("train_step", 'step 0 from seed 5: the embedding row of "the" (twice in most sentences)',
            _STEP_CALL + '[0]["E"][0]', expected=_AFTER_STEP_0["E"][0], atol=1e-6,
            mistakes={UNBUFFERED: _unbuffered_step(_START, ref.DATA, LR)["E"][0]}),
    _steps_case("positions=False: the losses of steps 0 and 1", 2, _losses(2, positions=False),
                ", positions=False"),
    _steps_case("equal_weights=True: the losses of steps 0, 1 and 2", 3, _losses(3, equal_weights=True),
                ", equal_weights=True"),
    _shown("train_step",
            "26 steps from seed 5: loss 0.417768 at step 25 (0.418 in the course text; the demo runs all 1,001)",
            _STEPS.replace("{steps}", "26").replace("{switches}", "").replace("return losses",
                                                                                  "return losses[25]"),
            expected=LOSS_STEP_25, atol=1e-6),
    _heads_case("T = 3, d_model = 4, 2 heads: each head's weights, scaled by sqrt(2)", 1, False),
    _heads_case("T = 3, d_model = 4, 2 heads: the output", 0, False),
    _heads_case("causal, 2 heads: each head's weights", 1, True),
    _heads_case("causal, 2 heads: the output", 0, True),
    _shown("multi_head_attention", "3 heads cannot split d_model = 4: ValueError",
            "multi_head_attention({X}, {W_Q}, {W_K}, {W_V}, {W_O}, n_heads=3)", inputs=_HEADS_INPUTS,
            compare="raises", expected="ValueError"),
]
