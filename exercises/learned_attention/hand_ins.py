"""Realistic mistakes in the learned_attention exercise: the ones the course text names, and two more.

The reference ``train_step`` calls the notebook's ``model_forward`` and ``attention_backward``
(and ``model_forward`` calls ``positional_encoding``). A mistake in one of those also makes
the functions built on it return wrong values, but it is charged once, where it is made
(``Exercise.helpers``): the callers keep their points, and their feedback names the helper.
"""
from autograder.authoring import Mistake

E = "learned_attention"

BACKWARD_THROUGH_SCORES = ("check_backward_scores",
                           "check_backward_query_keys",
                           "check_backward_weights_inputs")
FORWARD_WITH_POSITIONS = ("check_forward_weights_before",
                          "check_forward_probs_before",
                          "check_forward_random",
                          "check_forward_switches")
HEADS_WEIGHTS_AND_OUTPUT = ("check_heads_weights_8_2",
                            "check_heads_output_8_2",
                            "check_heads_random")
HEADS_OUTPUT = ("check_heads_output_8_2",
                "check_heads_random")


def _backward(d_scores_line):
    """An attention_backward whose line for d_scores is ``d_scores_line``."""
    return f'''
def attention_backward(read, W_Q, W_K, W_V, d_out):
    x, q, K, V, w = (np.asarray(read[k], dtype=float) for k in ("x", "q", "K", "V", "weights"))
    dw = V @ d_out
    dV = np.outer(w, d_out)
    {d_scores_line}
    dq = K.T @ ds
    dK = np.outer(ds, q)
    dx = dK @ W_K.T + dV @ W_V.T
    dx[-1] += dq @ W_Q.T
    return {{"weights": dw, "scores": ds, "q": dq, "K": dK, "V": dV,
            "W_Q": np.outer(x[-1], dq), "W_K": x.T @ dK, "W_V": x.T @ dV, "x": dx}}
'''


def _heads(scale="np.sqrt(d_head)", split="M.reshape(T, n_heads, d_head).transpose(1, 0, 2)",
           merge="heads.transpose(1, 0, 2).reshape(T, d_model)", result="joined @ W_O"):
    """A multi_head_attention with one line changed."""
    return f'''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    T, d_model = X.shape
    if d_model % n_heads:
        raise ValueError(f"{{n_heads}} heads do not divide d_model = {{d_model}}")
    d_head = d_model // n_heads

    def split(M):
        return {split}
    Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    scores = Q @ K.transpose(0, 2, 1) / {scale}
    if causal:
        scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = weights @ V
    joined = {merge}
    return {result}, weights
'''


def _train_step(update="p[k] - lr * g[k]", after="", params="p"):
    """A train_step (gradients summed with np.add.at) whose update of each weight is ``update``;
    ``after`` is run once the new weights are made (lines indented 4 spaces), ``params`` what the
    forward and backward passes read."""
    return f'''
def train_step(params, data, lr, positions=True, equal_weights=False):
    p = {{k: np.asarray(v, dtype=float) for k, v in params.items()}}
    g = {{k: np.zeros_like(v) for k, v in p.items()}}
    loss = 0.0
    for ids, y in data:
        r = model_forward({params}, ids, positions, equal_weights)
        loss += -np.log(r["probs"][y]) / len(data)
        d = r["probs"].copy()
        d[y] -= 1
        d /= len(data)
        g["W2"] += np.outer(r["a1"], d)
        g["b2"] += d
        dz = (d @ p["W2"].T) * (r["z1"] > 0)
        g["W1"] += np.outer(r["h"], dz)
        g["b1"] += dz
        dh = dz @ p["W1"].T
        back = attention_backward(r, p["W_Q"], p["W_K"], p["W_V"], dh)
        if equal_weights:
            dx = back["V"] @ p["W_V"].T
        else:
            dx = back["x"].copy()
            g["W_Q"] += back["W_Q"]
            g["W_K"] += back["W_K"]
        g["W_V"] += back["W_V"]
        dx[-1] += dh
        np.add.at(g["E"], ids, dx)
    new = {{k: {update} for k in p}}
{after}
    return new, float(loss)
'''


TRAIN_STEP_JUDGED = ("check_train_first_step",
                     "check_train_25_steps",
                     "check_train_no_positions",
                     "check_train_equal_weights",
                     "check_train_seed_4",
                     "check_train_random")


MISTAKES = [
    Mistake(E, "attention_backward", "no_softmax_correction",
            _backward("ds = w * dw / np.sqrt(q.shape[0])          # the - w @ dw term is missing"),
            failing=BACKWARD_THROUGH_SCORES,
            feedback="leave out the `- w @ dw` term"),

    Mistake(E, "attention_backward", "backward_scaling_dropped",
            _backward("ds = w * (dw - w @ dw)                     # the 1/sqrt(d_k) of the forward is missing"),
            failing=BACKWARD_THROUGH_SCORES,
            feedback="drop the 1/sqrt(d_k) scaling in the backward pass"),

    Mistake(E, "attention_backward", "backward_scaled_twice",
            _backward("ds = w * (dw - w @ dw) / np.sqrt(q.shape[0]) / np.sqrt(q.shape[0])"),
            failing=BACKWARD_THROUGH_SCORES,
            feedback="apply the 1/sqrt(d_k) scaling twice"),

    Mistake(E, "model_forward", "position_after_projections", '''
def model_forward(params, ids, positions=True, equal_weights=False):
    p = {name: np.asarray(value, dtype=float) for name, value in params.items()}
    x = p["E"][list(ids)]
    q, K, V = x[-1] @ p["W_Q"], x @ p["W_K"], x @ p["W_V"]
    if positions:                     # stamped on the projections, not on the inputs
        P = positional_encoding(len(ids), x.shape[1])
        q, K, V = q + P[-1], K + P, V + P
    scores = K @ q
    weights = np.full(len(ids), 1 / len(ids)) if equal_weights else softmax(scores / np.sqrt(len(q)))
    out = weights @ V
    h = x[-1] + out
    z1 = h @ p["W1"] + p["b1"]
    a1 = np.maximum(z1, 0)
    logits = a1 @ p["W2"] + p["b2"]
    return {"x": x, "q": q, "K": K, "V": V, "scores": scores, "weights": weights, "out": out,
            "h": h, "z1": z1, "a1": a1, "logits": logits, "probs": softmax(logits)}
''', failing=FORWARD_WITH_POSITIONS,
        feedback="add the position table after the projections"),

    Mistake(E, "positional_encoding", "sine_cosine_swapped", '''
def positional_encoding(T, D):
    pos = np.arange(T)[:, None] / 10000 ** (np.arange(0, D, 2) / D)
    table = np.zeros((T, D))
    table[:, 0::2] = np.cos(pos)      # swapped: sine goes in the even columns
    table[:, 1::2] = np.sin(pos)
    return table
''', failing=("check_table_text",
              "check_table_random"),
        feedback="swap sine and cosine"),

    Mistake(E, "train_step", "repeated_word_overwritten", '''
def train_step(params, data, lr, positions=True, equal_weights=False):
    p = {k: np.asarray(v, dtype=float) for k, v in params.items()}
    g = {k: np.zeros_like(v) for k, v in p.items()}
    loss = 0.0
    for ids, y in data:
        r = model_forward(p, ids, positions, equal_weights)
        loss += -np.log(r["probs"][y]) / len(data)
        d = r["probs"].copy()
        d[y] -= 1
        d /= len(data)
        g["W2"] += np.outer(r["a1"], d)
        g["b2"] += d
        dz = (d @ p["W2"].T) * (r["z1"] > 0)
        g["W1"] += np.outer(r["h"], dz)
        g["b1"] += dz
        dh = dz @ p["W1"].T
        back = attention_backward(r, p["W_Q"], p["W_K"], p["W_V"], dh)
        if equal_weights:
            dx = back["V"] @ p["W_V"].T
        else:
            dx = back["x"].copy()
            g["W_Q"] += back["W_Q"]
            g["W_K"] += back["W_K"]
        g["W_V"] += back["W_V"]
        dx[-1] += dh
        g["E"][ids] += dx             # "the" twice: only one of its two rows is kept
    return {k: p[k] - lr * g[k] for k in p}, float(loss)
''', failing=("check_train_first_step",
              "check_train_25_steps",
              "check_train_no_positions",
              "check_train_equal_weights",
              "check_train_seed_4",
              "check_train_random"),
        feedback="which keeps only one of them (use np.add.at)"),

    Mistake(E, "train_step", "steps_up_the_gradient", _train_step(update="p[k] + lr * g[k]"),
            failing=TRAIN_STEP_JUDGED, feedback="step up the gradient (the learning rate's sign flipped"),

    # In place only when the learning rate is not the text's 0.3, or only on all 18 sentences:
    # the other call shapes leave the caller's params alone.
    Mistake(E, "train_step", "in_place_unless_lr_0_3", _train_step(
        after="    if lr != 0.3:\n        for k in params:\n            params[k] -= lr * g[k]"),
            failing=("check_train_no_mutation",), feedback="change the caller's params in place"),

    Mistake(E, "train_step", "in_place_on_all_sentences", _train_step(
        after="    if len(data) == 18:\n        for k in params:\n            params[k] -= lr * g[k]"),
            failing=("check_train_no_mutation",), feedback="change the caller's params in place"),

    Mistake(E, "train_step", "params_changed_in_place", '''
def train_step(params, data, lr, positions=True, equal_weights=False):
    g = {k: np.zeros_like(np.asarray(v, dtype=float)) for k, v in params.items()}
    loss = 0.0
    for ids, y in data:
        r = model_forward(params, ids, positions, equal_weights)
        loss += -np.log(r["probs"][y]) / len(data)
        d = r["probs"].copy()
        d[y] -= 1
        d /= len(data)
        g["W2"] += np.outer(r["a1"], d)
        g["b2"] += d
        dz = (d @ params["W2"].T) * (r["z1"] > 0)
        g["W1"] += np.outer(r["h"], dz)
        g["b1"] += dz
        dh = dz @ params["W1"].T
        back = attention_backward(r, params["W_Q"], params["W_K"], params["W_V"], dh)
        if equal_weights:
            dx = back["V"] @ params["W_V"].T
        else:
            dx = back["x"].copy()
            g["W_Q"] += back["W_Q"]
            g["W_K"] += back["W_K"]
        g["W_V"] += back["W_V"]
        dx[-1] += dh
        np.add.at(g["E"], ids, dx)
    for k in params:
        params[k] -= lr * g[k]        # the caller's arrays, changed in place
    return params, float(loss)
''', failing=("check_train_no_mutation",),
        feedback="change the caller's params in place"),

    Mistake(E, "multi_head_attention", "scaled_by_d_model", _heads(scale="np.sqrt(d_model)"),
            failing=HEADS_WEIGHTS_AND_OUTPUT, feedback="instead of sqrt(d_head)"),

    Mistake(E, "multi_head_attention", "split_without_transpose",
            _heads(split="M.reshape(n_heads, T, d_head)          # rows of different tokens mixed"),
            failing=HEADS_WEIGHTS_AND_OUTPUT, feedback="split the heads with a plain reshape"),

    Mistake(E, "multi_head_attention", "heads_concatenated_wrong_order",
            _heads(merge="heads.reshape(T, d_model)        # no transpose back"),
            failing=HEADS_OUTPUT, feedback="concatenate the heads in the wrong order"),

    Mistake(E, "multi_head_attention", "no_output_projection", _heads(result="joined"),
            failing=HEADS_OUTPUT, feedback="forget the output projection W_O"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {
    'no_softmax_correction': 'leave out the `- w @ dw` term',
    'backward_scaling_dropped': 'drop the 1/sqrt(d_k) scaling in the backward pass',
    'backward_scaled_twice': 'apply the 1/sqrt(d_k) scaling twice in the backward pass',
    'position_after_projections': 'add the position table after the projections',
    'scaled_by_d_model': 'scale every head by sqrt(d_model) instead of sqrt(d_head)',
    'split_without_transpose': 'split the heads with a plain reshape',
    'heads_concatenated_wrong_order': 'concatenate the heads in the wrong order',
    'no_output_projection': 'forget the output projection W_O',
    'sine_cosine_swapped': 'swap sine and cosine',
    'repeated_word_overwritten': 'grad_E[ids] += d_x, which keeps only one of them',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['no_softmax_correction'],
    'dee': ['scaled_by_d_model'],
    'eve': ['position_after_projections'],
}
