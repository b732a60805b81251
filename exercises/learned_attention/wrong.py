"""Small wrong implementations of the "learned_attention" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a check (``checks.py``) or a visible case
(``visible.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import functools

import numpy as np

from autograder.authoring import Mismatch, expect_close, fail, fmt
from solutions import learned_attention as ref

from .worked import LR, PARAM_KEYS

SENTENCE = "the dog saw the cat and it"

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
LOSSES_SUMMED = "sum the losses of the sentences instead of averaging them"
LOSS_AFTER_STEP = ("return the loss of the weights after the step (report the one computed in the "
                   "forward pass, before the update)")


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


UPHILL = ("step up the gradient (the learning rate's sign flipped: params + lr * grad); a step goes "
          "against the gradient, params - lr * grad")


def _uphill(before, want):
    """The weights a step up the gradient gives: ``before + lr * grad`` is ``2 * before - want``
    when the reference's step is ``want = before - lr * grad``."""
    return {k: 2 * np.asarray(before[k], dtype=float) - want[k] for k in PARAM_KEYS}


def _expect_params(got, want, what, unbuffered, before):
    """Compare every weight; on a mismatch, ``unbuffered()`` and a step up the gradient from
    ``before`` (the weights the step started from) give the named mistakes' weights."""
    try:
        for key in PARAM_KEYS:
            expect_close(got[key], want[key], atol=1e-8, rtol=1e-7, what=f"{what}: {key}")
    except Mismatch:
        wrong, uphill = unbuffered(), _uphill(before, want)
        for key in PARAM_KEYS:
            expect_close(got[key], want[key], atol=1e-8, rtol=1e-7, what=f"{what}: {key}",
                         mistakes={UNBUFFERED: wrong[key], UPHILL: uphill[key]})


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
                       lambda: _unbuffered_step(before, ref.DATA, LR, **switches), before)
        losses[step] = float(loss)
    return losses


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
