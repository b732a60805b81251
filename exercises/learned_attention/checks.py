"""Hidden checks of the "learned_attention" exercise: attention that learns what "it" refers
to, position, the backward pass of one read, and multi-head attention.

Worked values are the course text's (``worked.py`` lists where each comes from: its toy model
2, np.random.seed(5)): the shares and the prediction before training, and the losses at steps
0 and 25. The long runs of that section (1,001 steps, the experiments, seed 4) are not rerun
here: the student's ``train_step`` is compared with the reference at chosen steps of the
reference's own runs (each step from the reference's weights; those runs reproduce the
long-run figures, tests/test_learned_attention.py, and are computed once per grading
process); the notebook keeps the full runs as instructor demos. Gradients are checked against central
differences computed here, in the grader, and against the reference. Randomized cases are
seeded per student. Known mistakes are small wrong variants below, so feedback can name them.
"""
import functools

import numpy as np

from autograder.authoring import Mismatch, check, expect_close, expect_equal, fail, fmt
from autograder.authoring import StudentCodeError
from autograder.authoring import Visible
from solutions import learned_attention as ref

TIGHT = {"atol": 1e-9, "rtol": 1e-9}
SENTENCE = "the dog saw the cat and it"
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

POSITIONS_AFTER = ("add the position table after the projections (to q, K and V) instead of "
                   "to the embeddings before them")
NO_CORRECTION = "leave out the `- w @ dw` term of the softmax backward (d_scores = w * dw / sqrt(d_k))"
NO_SCALE = "drop the 1/sqrt(d_k) scaling in the backward pass"
TWICE_SCALED = "apply the 1/sqrt(d_k) scaling twice in the backward pass (dividing by d_k)"
HEAD_SCALE = "scale every head by sqrt(d_model) instead of sqrt(d_head), the width of the head"
PLAIN_SPLIT = ("split the heads with a plain reshape (T, d_model) -> (n_heads, T, d_head); reshape to "
               "(T, n_heads, d_head) and move the head axis first with a transpose")
MERGE_ORDER = ("concatenate the heads in the wrong order (merging the (n_heads, T, d_head) stack with a "
               "plain reshape, or head n-1 first); transpose to (T, n_heads, d_head) before reshaping")
NO_W_O = "forget the output projection W_O"


# -- independent formulas and known mistakes -------------------------------------------------
def _table(T, D, *, swap=False, start=0, pairs=True):
    """Sinusoidal table written out entry by entry; the keywords make the known mistakes."""
    out = np.zeros((T, D))
    for t in range(T):
        for j in range(D):
            exponent = 2 * (j // 2) / D if pairs else j / D
            angle = (t + start) / 10000.0 ** exponent
            out[t, j] = np.cos(angle) if (j % 2 == 0) == swap else np.sin(angle)
    return out


def _table_mistakes(T, D):
    return {"swap sine and cosine (the sine belongs in the even columns 0, 2, 4, ...)": _table(T, D, swap=True),
            "count positions from 1 (the first token is position 0: its row is (0, 1, 0, 1, ...))":
                _table(T, D, start=1),
            "use the column index j in the exponent (10000**(j / D)) where each sine/cosine pair "
            "shares 10000**(2i / D)": _table(T, D, pairs=False)}


def _forward(params, ids, positions=True, equal_weights=False, *, after=False, unscaled=False):
    """The reference forward, plus the known wrong variants of the forward."""
    p = {k: np.asarray(v, dtype=float) for k, v in params.items()}
    x = p["E"][list(ids)]
    table = ref.positional_encoding(len(ids), x.shape[1])
    if positions and not after:
        x = x + table
    q, K, V = x[-1] @ p["W_Q"], x @ p["W_K"], x @ p["W_V"]
    if positions and after:
        q, K, V = q + table[-1], K + table, V + table
    scores = K @ q
    if equal_weights:
        weights = np.full(len(ids), 1.0 / len(ids))
    else:
        weights = ref.softmax(scores if unscaled else scores / np.sqrt(len(q)))
    h = x[-1] + weights @ V
    logits = np.maximum(h @ p["W1"] + p["b1"], 0) @ p["W2"] + p["b2"]
    return weights, ref.softmax(logits)


def _forward_mistakes(params, ids, index, **switches):
    """``{mistake: its weights (index 0) or probabilities (index 1)}``."""
    return {POSITIONS_AFTER: _forward(params, ids, after=True, **switches)[index],
            "leave out the position table": _forward(params, ids, positions=False,
                                                     equal_weights=switches.get("equal_weights", False))[index],
            "forget to divide the scores by sqrt(d_k) before the softmax":
                _forward(params, ids, unscaled=True, **switches)[index]}


def _backward_variant(read, W_Q, W_K, W_V, d_out, variant):
    """The read's gradients with one known mistake: "no correction", "no scale" or "twice"."""
    x, q, K, V, w = (np.asarray(read[k], dtype=float) for k in ("x", "q", "K", "V", "weights"))
    d_w = V @ d_out
    d_V = np.outer(w, d_out)
    through = w * d_w if variant == "no correction" else w * (d_w - w @ d_w)
    scale = {"no scale": 1.0, "twice": len(q)}.get(variant, np.sqrt(len(q)))
    d_s = through / scale
    d_q, d_K = K.T @ d_s, np.outer(d_s, q)
    d_x = d_K @ W_K.T + d_V @ W_V.T
    d_x[-1] += d_q @ W_Q.T
    return {"weights": d_w, "scores": d_s, "q": d_q, "K": d_K, "V": d_V,
            "W_Q": np.outer(x[-1], d_q), "W_K": x.T @ d_K, "W_V": x.T @ d_V, "x": d_x}


def _backward_mistakes(args, key):
    names = {"no correction": NO_CORRECTION, "no scale": NO_SCALE, "twice": TWICE_SCALED}
    return {name: _backward_variant(*args, variant)[key] for variant, name in names.items()}


def _central(loss, M, eps=1e-6):
    """Central differences of ``loss(M)`` in every entry of a copy of ``M``."""
    M = np.array(M, dtype=float)
    grad = np.zeros_like(M)
    for index in np.ndindex(*M.shape):
        saved = M[index]
        M[index] = saved + eps
        above = loss(M)
        M[index] = saved - eps
        below = loss(M)
        M[index] = saved
        grad[index] = (above - below) / (2 * eps)
    return grad


def _random_read(rng):
    """A random read: x (T, d_model), weights for q/k width d_k >= 2, d_out; and its record."""
    T, d_model, d_k, d_v = (int(rng.integers(3, 7)), int(rng.integers(2, 6)),
                            int(rng.integers(2, 5)), int(rng.integers(2, 5)))
    x = rng.normal(size=(T, d_model))
    W_Q, W_K, W_V = rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))
    K, V = x @ W_K, x @ W_V
    q = x[-1] @ W_Q
    scores = K @ q
    read = {"x": x, "q": q, "K": K, "V": V, "scores": scores, "weights": ref.softmax(scores / np.sqrt(d_k))}
    return read, W_Q, W_K, W_V, rng.normal(size=d_v)


def _read_loss(d_out, d_k):
    """L(q, K, V) = d_out . softmax(K q / sqrt(d_k)) V, the loss whose output gradient is d_out."""
    return lambda q, K, V: float(d_out @ (ref.softmax(K @ q / np.sqrt(d_k)) @ V))


def _dict(result, keys, what):
    if not isinstance(result, dict):
        fail(f"{what} should return a dict with keys {', '.join(keys)}; got {fmt(result)[:80]}")
    missing = [k for k in keys if k not in result]
    if missing:
        fail(f"{what} returned a dict without the key(s) {', '.join(repr(k) for k in missing)}")
    return result


def _step(result, what="train_step"):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail(f"{what} should return a tuple (new_params, loss); got {fmt(result)[:80]}")
    return _dict(result[0], PARAM_KEYS, f"{what}'s new_params"), result[1]


def _unbuffered_step(params, data, lr, **switches):
    """The reference step, but with grad_E[ids] += d_x, which keeps one row of a repeated word."""
    p = {k: np.asarray(v, dtype=float) for k, v in params.items()}
    new, _ = ref.train_step(p, data, lr, **switches)
    buffered, unbuffered = np.zeros_like(p["E"]), np.zeros_like(p["E"])
    for ids, target in data:   # only the embedding gradient differs: redo it both ways
        rec = ref.model_forward(p, ids, **switches)
        d_logits = rec["probs"].copy()
        d_logits[target] -= 1.0
        d_logits /= len(data)
        d_h = ((d_logits @ p["W2"].T) * (rec["z1"] > 0)) @ p["W1"].T
        back = ref.attention_backward(rec, p["W_Q"], p["W_K"], p["W_V"], d_h)
        d_x = back["V"] @ p["W_V"].T if switches.get("equal_weights") else back["x"].copy()
        d_x[-1] += d_h
        np.add.at(buffered, ids, d_x)
        unbuffered[ids] += d_x
    new["E"] = new["E"] + lr * buffered - lr * unbuffered
    return new


UNBUFFERED = ("collect a repeated word's rows with grad_E[ids] += d_x, which keeps only one of them "
              "(use np.add.at)")


def _expect_params(got, want, what, unbuffered):
    """Compare every weight; on a mismatch, ``unbuffered()`` gives the named mistake's weights."""
    try:
        for key in PARAM_KEYS:
            expect_close(got[key], want[key], atol=1e-8, rtol=1e-7, what=f"{what}: {key}")
    except Mismatch:
        wrong = unbuffered()
        for key in PARAM_KEYS:
            expect_close(got[key], want[key], atol=1e-8, rtol=1e-7, what=f"{what}: {key}",
                         mistakes={UNBUFFERED: wrong[key]})


@functools.lru_cache(maxsize=None)
def _reference_run(seed, switches, steps):
    """The reference's own run from ``init_params(seed)``: ``steps`` steps on all 18 sentences at
    LR, ``switches`` given as sorted ``(name, value)`` pairs. Returns a tuple of ``(weights
    before the step, weights after it, loss)`` per step, the arrays read-only. The same for
    every student, so it is computed once per grading process."""
    params = ref.init_params(seed)
    run = []
    for _ in range(steps):
        new, loss = ref.train_step(params, ref.DATA, LR, **dict(switches))
        run.append((_frozen(params), _frozen(new), float(loss)))
        params = new
    return tuple(run)


def _frozen(params):
    out = {k: np.array(params[k], dtype=float) for k in PARAM_KEYS}
    for value in out.values():
        value.setflags(write=False)
    return out


def _writable(params):
    """A copy of cached weights for the student's function (which may write into them)."""
    return {k: v.copy() for k, v in params.items()}


def _run(train_step, at, switches, seed=5):
    """The student's ``train_step`` from the reference's weights before each step in ``at`` of
    the reference's run from ``init_params(seed)``, each step's loss and new weights compared
    with the reference's. Every step starts from the reference's weights (not the student's
    previous answer), so the step-25 loss is the course text's whatever came before, a wrong
    step is named where it happens, and the reference's run is shared by the whole class.
    Returns ``{step: loss}``."""
    run = _reference_run(seed, tuple(sorted(switches.items())), max(at) + 1)
    losses = {}
    for step in at:
        before, want, want_loss = run[step]
        new, loss = _step(train_step(_writable(before), ref.DATA, LR, **switches))
        label = f"step {step} from seed {seed}" + "".join(f", {k}={v}" for k, v in switches.items())
        expect_close(loss, want_loss, atol=1e-9, rtol=1e-9, what=f"the loss returned at {label}")
        _expect_params(new, want, f"the weights after {label}",
                       lambda: _unbuffered_step(before, ref.DATA, LR, **switches))
        losses[step] = float(loss)
    return losses


# -- positional_encoding ------------------------------------------------------------------------
@check("positional_encoding", "the text's table, 8 positions by 8 columns", points=1)
def check_table_text(positional_encoding):
    expect_close(positional_encoding(8, 8), _table(8, 8), atol=1e-9,
                 what="positional_encoding(8, 8)", mistakes=_table_mistakes(8, 8))


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
    after = np.mean([-np.log(ref.model_forward(want, ids)["probs"][y]) for ids, y in ref.DATA])
    expect_close(loss, LOSS_STEP_0, what="the loss at step 0 (worked example: 3.927973)",
                 mistakes={"sum the losses of the sentences instead of averaging them": len(ref.DATA) * LOSS_STEP_0,
                           "return the loss of the weights after the step (report the one computed in the "
                           "forward pass, before the update)": after})
    _expect_params(new, want, "the weights after step 0", lambda: _unbuffered_step(params, ref.DATA, LR))


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
    new, loss = _step(train_step(params, data, lr))
    want, want_loss = ref.train_step(params, data, lr)
    expect_close(loss, want_loss, **TIGHT, what=f"the loss on {len(data)} sentences")
    _expect_params(new, want, f"the weights after one step on {len(data)} sentences, lr {lr:.4f}",
                   lambda: _unbuffered_step(params, data, lr))


IN_PLACE = ("change the caller's params in place (params[name] -= lr * grad, or np.subtract(..., out=...)): "
            "train_step must return new arrays and leave the params it was given as they were")


@check("train_step", "leaves the caller's params and data unchanged", points=1)
def check_train_no_mutation(submission, rng):
    params = ref.init_params(int(rng.integers(1000)))
    data = [(list(ids), int(y)) for ids, y in ref.DATA[:6]]
    lr = 0.3
    want, _ = ref.train_step(params, data, lr)
    _, args_after = submission.call_keeping_args("train_step", params, data, lr)
    params_after, data_after = args_after[0], args_after[1]
    if not isinstance(params_after, dict) or set(params_after) != set(params):
        fail("train_step changed the keys of the params dict it was given: it must leave the caller's dict "
             "as it was and return a new one")
    for key in PARAM_KEYS:
        expect_close(params_after[key], params[key], atol=0.0, rtol=0.0,
                     what=f"params[{key!r}] as the caller sees it after train_step(params, data, {lr})",
                     mistakes={IN_PLACE: want[key]})
    expect_equal([(list(ids), int(y)) for ids, y in data_after], data,
                 what=f"the data list as the caller sees it after train_step(params, data, {lr})")


# -- multi_head_attention ------------------------------------------------------------------------------
def _heads(X, W_Q, W_K, W_V, W_O, n_heads, causal, *, scale=None, plain_split=False, merge="right",
           project=True):
    """Multi-head attention one head at a time (slices), plus the known wrong variants."""
    T, d_model = X.shape
    d_head = d_model // n_heads
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    if plain_split:
        parts = [M.reshape(n_heads, T, d_head) for M in (Q, K, V)]
    else:
        parts = [np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)]) for M in (Q, K, V)]
    weights, outputs = [], []
    for h in range(n_heads):
        s = parts[0][h] @ parts[1][h].T / np.sqrt(scale or d_head)
        if causal:
            s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
        w = ref.softmax(s, axis=-1)
        weights.append(w)
        outputs.append(w @ parts[2][h])
    stack = np.stack(outputs)
    if merge == "plain":
        joined = stack.reshape(T, d_model)
    elif merge == "reversed":
        joined = np.hstack(outputs[::-1])
    else:
        joined = np.hstack(outputs)
    return (joined @ W_O if project else joined), np.stack(weights)


def _head_mistakes(args, index):
    X, n_heads = args[0], args[5]
    found = {HEAD_SCALE: _heads(*args, scale=X.shape[1])[index],
             PLAIN_SPLIT: _heads(*args, plain_split=True)[index]}
    if index == 0:
        found.update({MERGE_ORDER: _heads(*args, merge="plain")[0],
                      MERGE_ORDER + " ": _heads(*args, merge="reversed")[0] if n_heads > 1 else None,
                      NO_W_O: _heads(*args, project=False)[0]})
    return found


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


# -- visible checks: written into the notebook by the build, as values (see visible.py) --------
# Public inputs only: the text's seed-5 model on "the dog saw the cat and it" (section 8), a
# small hand-made read and a small multi-head case whose entries are multiples of 0.5 (so the
# literals stay short). Expected values are section 8's numbers or the reference on these
# inputs; mistakes are the wrong variants above.
_START = ref.init_params(5)
_IDS = ref.encode(SENTENCE)
_FORWARD = "model_forward(init_params(5), encode({sentence}){switches})[{key!r}]"


def _forward_case(label, key, expected, switches="", atol=1e-4, **mistake_switches):
    index = {"weights": 0, "probs": 1}[key]
    call = _FORWARD.replace("{switches}", switches).replace("{key!r}", repr(key))
    return Visible("model_forward", label, call, inputs={"sentence": SENTENCE}, expected=expected,
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
    return Visible("attention_backward", f"{what} ({_READ_LABEL})",
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
    return Visible("train_step", label, call, expected=expected, atol=1e-6)


_X_HEADS = np.array([[1.0, 0.0, 0.5, -0.5], [0.5, 1.0, -1.0, 0.0], [-0.5, 0.5, 1.0, 1.0]])
_W_HEADS = {"W_Q": np.array([[1.0, 0.5, 0.0, -0.5], [0.0, 1.0, 0.5, 0.5], [-0.5, 0.0, 1.0, 0.0], [0.5, -0.5, 0.0, 1.0]]),
            "W_K": np.array([[0.5, 0.0, 1.0, 0.0], [1.0, -0.5, 0.0, 0.5], [0.0, 0.5, -0.5, 1.0], [-0.5, 1.0, 0.5, 0.0]]),
            "W_V": np.array([[1.0, 0.0, 0.0, 0.5], [0.0, 1.0, -0.5, 0.0], [0.5, 0.0, 1.0, 0.0], [0.0, -0.5, 0.0, 1.0]]),
            "W_O": np.array([[0.0, 1.0, 0.5, 0.0], [1.0, 0.0, 0.0, -0.5], [0.5, 0.0, 0.0, 1.0], [0.0, -0.5, 1.0, 0.0]])}
_HEADS_INPUTS = {"X": _X_HEADS, **_W_HEADS}
_HEADS_CALL = "multi_head_attention({X}, {W_Q}, {W_K}, {W_V}, {W_O}, n_heads=2{causal})"


def _heads_case(label, part, causal):
    args = (_X_HEADS, *_W_HEADS.values(), 2, causal)
    return Visible("multi_head_attention", label, _HEADS_CALL.replace("{causal}", ", causal=True" if causal else ""),
                   inputs=_HEADS_INPUTS, part=part, parts=2, expected=_heads(*args)[part],
                   mistakes=_head_mistakes(args, part))


VISIBLE = [
    Visible("positional_encoding", "4 positions by 8 columns (row 0 is 0, 1, 0, 1, ...)", "positional_encoding(4, 8)",
            expected=_table(4, 8), mistakes=_table_mistakes(4, 8)),
    Visible("positional_encoding", "a table of one position and two columns is (0, 1)", "positional_encoding(1, 2)",
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
    Visible("train_step", "step 0 from seed 5: the loss 3.927973 (3.928 in the course text)", _STEP_CALL,
            part=1, parts=2,
            expected=LOSS_STEP_0, atol=1e-6,
            mistakes={"sum the losses of the sentences instead of averaging them": len(ref.DATA) * LOSS_STEP_0,
                      "return the loss of the weights after the step (report the one computed in the "
                      "forward pass, before the update)": _LOSS_AFTER_STEP_0}),
    Visible("train_step", 'step 0 from seed 5: the embedding row of "the" (twice in most sentences)',
            _STEP_CALL + '[0]["E"][0]', expected=_AFTER_STEP_0["E"][0], atol=1e-6,
            mistakes={UNBUFFERED: _unbuffered_step(_START, ref.DATA, LR)["E"][0]}),
    _steps_case("positions=False: the losses of steps 0 and 1", 2, _losses(2, positions=False),
                ", positions=False"),
    _steps_case("equal_weights=True: the losses of steps 0, 1 and 2", 3, _losses(3, equal_weights=True),
                ", equal_weights=True"),
    Visible("train_step",
            "26 steps from seed 5: loss 0.417768 at step 25 (0.418 in the course text; the demo runs all 1,001)",
            _STEPS.replace("{steps}", "26").replace("{switches}", "").replace("return losses",
                                                                                  "return losses[25]"),
            expected=LOSS_STEP_25, atol=1e-6),
    _heads_case("T = 3, d_model = 4, 2 heads: each head's weights, scaled by sqrt(2)", 1, False),
    _heads_case("T = 3, d_model = 4, 2 heads: the output", 0, False),
    _heads_case("causal, 2 heads: each head's weights", 1, True),
    _heads_case("causal, 2 heads: the output", 0, True),
    Visible("multi_head_attention", "3 heads cannot split d_model = 4: ValueError",
            "multi_head_attention({X}, {W_Q}, {W_K}, {W_V}, {W_O}, n_heads=3)", inputs=_HEADS_INPUTS,
            compare="raises", expected="ValueError"),
]
