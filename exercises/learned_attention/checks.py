"""Hidden checks of the "learned_attention" exercise: attention that learns what "it" refers
to, position, the backward pass of one read, and multi-head attention.

Worked values are the course text's (``worked.py`` lists where each comes from: its toy model
2, np.random.seed(5)): the shares and the prediction before training, and the losses at steps
0 and 25. The long runs of that section (1,001 steps, the experiments, seed 4) are not rerun
here: the student's ``train_step`` is compared with the reference at chosen steps of the
reference's own runs (each step from the reference's weights; those runs reproduce the
long-run figures, tests/exercises/test_learned_attention.py, and are computed once per grading
process); the notebook keeps the full runs as instructor demos. Those step-by-step runs are
fixed checks that are no declared case: each call's input is the reference's state at that
step, and the new weights are judged with a buffered update allowed (``wrong._expect_params``).
The fixed cases that are one call on fixed inputs are declared once in ``cases.py`` (the line
below the imports makes its graded ones hidden checks). Gradients are checked against central
differences computed here, in the grader, and against the reference. Randomized cases are
seeded per student. Known mistakes are small wrong variants of ``wrong.py``, so feedback can name them.
"""
import functools

import numpy as np

from autograder.authoring import StudentCodeError, check, expect_close, expect_equal, fail, fmt, hidden_checks
from solutions import learned_attention as ref

from .cases import CASES
from .worked import (
    GRAD_KEYS,
    LOSS_STEP_0,
    LOSS_STEP_25,
    LR,
    P_IT_BEFORE,
    PARAM_KEYS,
    RECORD_KEYS,
    TEXT_RUN_STEPS,
    TIGHT,
    WEIGHTS_BEFORE,
)
from .wrong import (
    LOSS_AFTER_STEP,
    LOSSES_SUMMED,
    SENTENCE,
    _backward_mistakes,
    _central,
    _dict,
    _expect_params,
    _forward_mistakes,
    _head_mistakes,
    _heads,
    _random_read,
    _read_loss,
    _reference_run,
    _run,
    _step,
    _table,
    _table_mistakes,
    _unbuffered_step,
    _writable,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


# -- positional_encoding ------------------------------------------------------------------------
@check("positional_encoding", "random lengths and even widths", points=1)
def check_table_random(positional_encoding, rng):
    for _ in range(3):
        T, D = int(rng.integers(1, 30)), 2 * int(rng.integers(1, 17))
        expect_close(positional_encoding(T, D), _table(T, D), atol=1e-9,
                     what=f"positional_encoding({T}, {D})", mistakes=_table_mistakes(T, D))


# -- model_forward --------------------------------------------------------------------------------
@check("model_forward", 'before training (seed 5), the weights of "it" in "the dog saw the cat and it"', points=1)
def check_forward_weights_before(model_forward):
    params, ids = ref.init_params(5), ref.encode(SENTENCE)
    record = _dict(model_forward(params, ids), ("weights",), "model_forward")
    expect_close(record["weights"], WEIGHTS_BEFORE, atol=5e-4,
                 what=f'attention weights of "it" before training (worked example: {WEIGHTS_BEFORE})',
                 mistakes=_forward_mistakes(params, ids, 0))


@check("model_forward", 'before training (seed 5), "it" comes first with 65.0%', points=1)
def check_forward_probs_before(model_forward):
    params, ids = ref.init_params(5), ref.encode(SENTENCE)
    probs = np.asarray(_dict(model_forward(params, ids), ("probs",), "model_forward")["probs"], dtype=float)
    expect_close(probs, ref.model_forward(params, ids)["probs"], atol=1e-6,
                 what=f'next-word probabilities for "{SENTENCE}" before training (worked example: '
                      f'"it" first at {P_IT_BEFORE:.3f})',
                 mistakes=_forward_mistakes(params, ids, 1))
    expect_close(probs[ref.VOCAB.index("it")], P_IT_BEFORE, atol=5e-4, what='probability of "it"')


@check("model_forward", "random weights and sentences: every value of the record", points=1)
def check_forward_random(model_forward, rng):
    for _ in range(2):
        params = ref.init_params(int(rng.integers(1000)))
        ids, _ = ref.DATA[int(rng.integers(len(ref.DATA)))]
        record = _dict(model_forward(params, ids), RECORD_KEYS, "model_forward")
        want = ref.model_forward(params, ids)
        mistakes = {0: _forward_mistakes(params, ids, 0), 1: _forward_mistakes(params, ids, 1)}
        for key in ("weights", "probs") + RECORD_KEYS:     # the two that name mistakes first
            expect_close(record[key], want[key], **TIGHT, what=f'{key} for "{" ".join(ref.VOCAB[i] for i in ids)}"',
                         mistakes=mistakes[0] if key == "weights" else mistakes[1] if key == "probs" else None)


@check("model_forward", "the experiments' switches: positions=False, equal_weights=True", points=1)
def check_forward_switches(model_forward, rng):
    for switches in ({"positions": False}, {"equal_weights": True}, {"positions": False, "equal_weights": True}):
        params = ref.init_params(int(rng.integers(1000)))
        ids, _ = ref.DATA[int(rng.integers(len(ref.DATA)))]
        record = _dict(model_forward(params, ids, **switches), RECORD_KEYS, "model_forward")
        want = ref.model_forward(params, ids, **switches)
        label = ", ".join(f"{k}={v}" for k, v in switches.items())
        expect_close(record["weights"], want["weights"], **TIGHT, what=f"weights with {label}",
                     mistakes=_forward_mistakes(params, ids, 0, **switches))
        expect_close(record["probs"], want["probs"], **TIGHT, what=f"probs with {label}",
                     mistakes=_forward_mistakes(params, ids, 1, **switches))


# -- attention_backward ---------------------------------------------------------------------------
@check("attention_backward", "d_weights and d_V of a random read", points=1)
def check_backward_blend(attention_backward, rng):
    for _ in range(2):
        args = _random_read(rng)
        grads = _dict(attention_backward(*args), GRAD_KEYS, "attention_backward")
        read, d_out = args[0], args[4]
        measured_w = _central(lambda w: float(d_out @ (w @ read["V"])), read["weights"])
        expect_close(grads["weights"], measured_w, atol=1e-6, what="d_weights against a central difference")
        expect_close(grads["weights"], ref.attention_backward(*args)["weights"], **TIGHT, what="d_weights")
        measured_v = _central(lambda V: float(d_out @ (read["weights"] @ V)), read["V"])
        expect_close(grads["V"], measured_v, atol=1e-6, what="d_V against a central difference")


@check("attention_backward", "d_scores through the softmax and the scaling, against a central difference", points=1)
def check_backward_scores(attention_backward, rng):
    for _ in range(2):
        args = _random_read(rng)
        read, d_out = args[0], args[4]
        grads = _dict(attention_backward(*args), GRAD_KEYS, "attention_backward")
        d_k = len(read["q"])
        measured = _central(lambda s: float(d_out @ (ref.softmax(s / np.sqrt(d_k)) @ read["V"])), read["scores"])
        expect_close(grads["scores"], measured, atol=1e-6,
                     what=f"d_scores (raw scores, d_k = {d_k}) against a central difference",
                     mistakes=_backward_mistakes(args, "scores"))
        expect_close(grads["scores"], ref.attention_backward(*args)["scores"], **TIGHT, what="d_scores")


@check("attention_backward", "d_q and d_K, against a central difference", points=1)
def check_backward_query_keys(attention_backward, rng):
    for _ in range(2):
        args = _random_read(rng)
        read, d_out = args[0], args[4]
        grads = _dict(attention_backward(*args), GRAD_KEYS, "attention_backward")
        loss = _read_loss(d_out, len(read["q"]))
        for key, measured in (("q", _central(lambda q: loss(q, read["K"], read["V"]), read["q"])),
                              ("K", _central(lambda K: loss(read["q"], K, read["V"]), read["K"]))):
            expect_close(grads[key], measured, atol=1e-6, what=f"d_{key} against a central difference",
                         mistakes=_backward_mistakes(args, key))
            expect_close(grads[key], ref.attention_backward(*args)[key], **TIGHT, what=f"d_{key}")


@check("attention_backward", "d_W_Q, d_W_K, d_W_V and d_x, against a central difference", points=1)
def check_backward_weights_inputs(attention_backward, rng):
    args = _random_read(rng)
    read, W_Q, W_K, W_V, d_out = args
    grads = _dict(attention_backward(*args), GRAD_KEYS, "attention_backward")
    want = ref.attention_backward(*args)
    loss = _read_loss(d_out, W_Q.shape[1])
    x = read["x"]
    measured = {"W_Q": _central(lambda W: loss(x[-1] @ W, x @ W_K, x @ W_V), W_Q),
                "W_K": _central(lambda W: loss(x[-1] @ W_Q, x @ W, x @ W_V), W_K),
                "W_V": _central(lambda W: loss(x[-1] @ W_Q, x @ W_K, x @ W), W_V),
                "x": _central(lambda X: loss(X[-1] @ W_Q, X @ W_K, X @ W_V), x)}
    for key, value in measured.items():
        expect_close(grads[key], value, atol=1e-6, what=f"d_{key} against a central difference",
                     mistakes=_backward_mistakes(args, key))
        expect_close(grads[key], want[key], **TIGHT, what=f"d_{key}")


# -- train_step ------------------------------------------------------------------------------------
@check("train_step", "step 0 from the text's seed 5: loss 3.927973 and the reference's new weights", points=1)
def check_train_first_step(train_step):
    params, want, _ = _reference_run(5, (), max(TEXT_RUN_STEPS) + 1)[0]
    new, loss = _step(train_step(_writable(params), ref.DATA, LR))
    expect_close(loss, LOSS_STEP_0, what="the loss at step 0 (worked example: 3.927973)",
                 mistakes={LOSSES_SUMMED: len(ref.DATA) * LOSS_STEP_0, LOSS_AFTER_STEP: _loss_after_first_step()})
    _expect_params(new, want, "the weights after step 0", lambda: _unbuffered_step(params, ref.DATA, LR),
                   params)


@functools.lru_cache(maxsize=1)
def _loss_after_first_step():
    """The mean loss of the reference's weights after step 0 from seed 5 (a known mistake's
    value; the same for every student, so computed once per grading process)."""
    want = _reference_run(5, (), max(TEXT_RUN_STEPS) + 1)[0][1]
    return float(np.mean([-np.log(ref.model_forward(want, ids)["probs"][y]) for ids, y in ref.DATA]))


@check("train_step", "steps 0, 1, 2, 5, 10 and 25 of the run from seed 5: loss 0.417768 at step 25 "
                     "(the demo runs all 1,001)", points=1)
def check_train_25_steps(train_step):
    losses = _run(train_step, TEXT_RUN_STEPS, {})
    expect_close([losses[0], losses[25]], [LOSS_STEP_0, LOSS_STEP_25],
                 what="the losses at steps 0 and 25 (worked example: 3.927973, 0.417768)")


@check("train_step", "without positions: 3 steps from seed 5 (the run that stalls at 0.463)", points=1)
def check_train_no_positions(train_step):
    _run(train_step, range(3), {"positions": False})


@check("train_step", "equal weights: 3 steps from seed 5 (the run that stalls at 0.467)", points=1)
def check_train_equal_weights(train_step):
    _run(train_step, range(3), {"equal_weights": True})


@check("train_step", "seed 4: 3 steps (the run whose attention settles on the object, 0.60 on cat)", points=1)
def check_train_seed_4(train_step):
    _run(train_step, range(3), {}, seed=4)


@check("train_step", "random starting weights, sentences and learning rate", points=1)
def check_train_random(train_step, rng):
    params = ref.init_params(int(rng.integers(1000)))
    chosen = sorted(rng.choice(len(ref.DATA), size=int(rng.integers(7, len(ref.DATA) + 1)), replace=False))
    # at least 7 of the 18: one is sure to repeat "the" (only six sentences do not)
    data = [ref.DATA[i] for i in chosen]
    lr = float(rng.uniform(0.05, 0.5))
    new, loss = _step(train_step(_writable(params), data, lr))
    want, want_loss = ref.train_step(params, data, lr)
    expect_close(loss, want_loss, **TIGHT, what=f"the loss on {len(data)} sentences")
    _expect_params(new, want, f"the weights after one step on {len(data)} sentences, lr {lr:.4f}",
                   lambda: _unbuffered_step(params, data, lr), params)


IN_PLACE = ("change the caller's params in place (params[name] -= lr * grad, or np.subtract(..., out=...)): "
            "train_step must return new arrays and leave the params it was given as they were")


def _call_shapes(rng):
    """Every call shape of the train_step checks above, as ``(label, params, data, lr, switches)``:
    the text's run from seed 5 (all 18 sentences, lr 0.3), without positions, with equal weights,
    from seed 4, plus learning rates and slices of the data drawn per student (a first part, a
    last part, every other sentence, one sentence), so a train_step that changes the caller's
    params in only some of its calls is caught whichever they are."""
    shapes = [("seed 5, all 18 sentences", ref.init_params(5), ref.DATA, LR, {}),
              ("seed 5, positions=False", ref.init_params(5), ref.DATA, LR, {"positions": False}),
              ("seed 5, equal_weights=True", ref.init_params(5), ref.DATA, LR, {"equal_weights": True}),
              ("seed 4, all 18 sentences", ref.init_params(4), ref.DATA, LR, {})]
    n = len(ref.DATA)
    cut = int(rng.integers(2, n - 1))
    slices = [("the first", ref.DATA[:cut]), ("the last", ref.DATA[cut:]), ("every other", ref.DATA[::2]),
              ("one", ref.DATA[int(rng.integers(n)):][:1])]
    for name, data in slices:
        lr = float(rng.uniform(0.01, 1.0))
        shapes.append((f"{name} {len(data)} sentence(s), lr {lr:.4f}",
                       ref.init_params(int(rng.integers(1000))), data, lr, {}))
    return shapes


@check("train_step", "leaves the caller's params and data unchanged", points=1)
def check_train_no_mutation(submission, rng):
    """Every call shape of the checks above and learning rates and slices drawn per student
    (``_call_shapes``): a change to the caller's params or data in any of them costs this check."""
    for label, params, data, lr, switches in _call_shapes(rng):
        params = {k: np.array(v, dtype=float) for k, v in params.items()}
        data = [(list(ids), int(y)) for ids, y in data]
        call = f"train_step(params, data, {lr:.4f}{''.join(f', {k}={v}' for k, v in switches.items())}) ({label})"
        _, args_after = submission.call_keeping_args("train_step", _writable(params), data, lr, **switches)
        params_after, data_after = args_after[0], args_after[1]
        if not isinstance(params_after, dict) or set(params_after) != set(params):
            fail(f"{call} changed the keys of the params dict it was given: it must leave the caller's dict "
                 "as it was and return a new one")
        if not all(_unchanged(params_after[key], params[key]) for key in PARAM_KEYS):
            # the reference's step names the mistake: computed only when the params changed
            want, _ = ref.train_step(params, data, lr, **switches)
            for key in PARAM_KEYS:
                expect_close(params_after[key], params[key], atol=0.0, rtol=0.0,
                             what=f"params[{key!r}] as the caller sees it after {call}",
                             mistakes={IN_PLACE: want[key]})
        expect_equal([(list(ids), int(y)) for ids, y in data_after], data,
                     what=f"the data list as the caller sees it after {call}")


def _unchanged(after, before):
    """Whether ``expect_close(after, before, atol=0, rtol=0)`` accepts ``after`` (the test the
    loop below makes, which then needs no mistake's value)."""
    try:
        expect_close(after, before, atol=0.0, rtol=0.0, what="params")
    except Exception:
        return False
    return True


# -- multi_head_attention ------------------------------------------------------------------------------


def _pair(result):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail(f"multi_head_attention should return a tuple (out, weights); got {fmt(result)[:80]}")
    return result


def _case(rng, T, d_model, n_heads, causal):
    X = rng.normal(size=(T, d_model))
    Ws = [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) * 2 for _ in range(4)]
    return (X, *Ws, n_heads, causal)


def _compare_heads(multi_head_attention, args, parts=(0, 1)):
    out, weights = _pair(multi_head_attention(*args[:6], causal=args[6]))
    label = f"T = {args[0].shape[0]}, d_model = {args[0].shape[1]}, {args[5]} heads, causal={args[6]}"
    want = _heads(*args)
    if 1 in parts:
        expect_close(weights, want[1], **TIGHT, what=f"the weights of every head ({label}), shape (n_heads, T, T)",
                     mistakes=_head_mistakes(args, 1))
    if 0 in parts:
        expect_close(out, want[0], **TIGHT, what=f"the output ({label})", mistakes=_head_mistakes(args, 0))


@check("multi_head_attention", "d_model = 8 with 2 heads: each head's weights, scaled by sqrt(4)", points=1)
def check_heads_weights_8_2(multi_head_attention, rng):
    for causal in (False, True):
        _compare_heads(multi_head_attention, _case(rng, int(rng.integers(3, 7)), 8, 2, causal), parts=(1,))


@check("multi_head_attention", "d_model = 8 with 2 heads: the output", points=1)
def check_heads_output_8_2(multi_head_attention, rng):
    for causal in (False, True):
        _compare_heads(multi_head_attention, _case(rng, int(rng.integers(3, 7)), 8, 2, causal), parts=(0,))


@check("multi_head_attention", "random shapes and head counts, causal and not", points=1)
def check_heads_random(multi_head_attention, rng):
    for causal in (False, True, bool(rng.integers(2))):
        n_heads, d_head = int(rng.integers(2, 5)), int(rng.integers(1, 5))
        _compare_heads(multi_head_attention, _case(rng, int(rng.integers(2, 8)), n_heads * d_head, n_heads, causal))


@check("multi_head_attention", "a head count that does not divide d_model raises ValueError", points=1)
def check_heads_not_dividing(multi_head_attention, rng):
    for d_model, n_heads in ((8, 3), (6, 4)):
        X, W_Q, W_K, W_V, W_O, _, _ = _case(rng, 4, d_model, 1, False)
        call = f"multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads={n_heads}) with d_model = {d_model}"
        try:
            got = multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads)
        except StudentCodeError as exc:
            if exc.kind != "raised":
                raise
            if exc.detail.split(":")[0] != "ValueError":
                fail(f"{call} raised {exc.detail}; a head count that does not divide d_model should "
                     "raise ValueError")
            continue
        fail(f"{call} returned {fmt(got)[:80]}; {n_heads} heads cannot split {d_model} columns "
             "evenly, so it should raise ValueError")
