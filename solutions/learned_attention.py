"""Reference solutions for the "learned_attention" exercise.

GENERATED from exercises/learned_attention/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import numpy as np

SOUND = {"cat": "purred", "dog": "barked", "bird": "chirped"}   # each animal and its sound
# The text's word order matters: row i of the embedding table is drawn for word i.
VOCAB = ["the", *SOUND, "saw", "moved", "today", "and", "it", *SOUND.values()]
DOG_SENTENCE = "the dog saw the cat and it"
TWINS = [f"the {a} saw the {b} and it" for a, b in (("cat", "dog"), ("dog", "cat"))]


def softmax(z, axis=-1):
    """Numerically stable softmax along ``axis`` (given, not graded).

    Args:
        z: scores, any shape, float.
        axis: the axis whose entries should sum to 1.
    Returns:
        ndarray of the same shape as ``z``, float64.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def make_sentences():
    """The 18 training sentences of the course text's "Build it: attention in 80 lines".

    For each animal (the subject): "the A moved and it", "today the A moved and it", and,
    for each other animal B (a distractor), "the A saw the B and it" and "today the A saw
    the B and it". The word after "it" is always the subject's sound.
    """
    sentences = []
    for subject in SOUND:
        sentences.append(f"the {subject} moved and it")
        sentences.append(f"today the {subject} moved and it")
        for other in SOUND:
            if other != subject:
                sentences.append(f"the {subject} saw the {other} and it")
                sentences.append(f"today the {subject} saw the {other} and it")
    return sentences


def encode(sentence):
    """Token ids of a space-separated sentence, a list of ints."""
    return [VOCAB.index(word) for word in sentence.split()]


def next_word(sentence):
    """Id of the right next word: the sound of the first animal in ``sentence``."""
    subject = next(word for word in sentence.split() if word in SOUND)
    return VOCAB.index(SOUND[subject])


SENTENCES = make_sentences()
DATA = [(encode(s), next_word(s)) for s in SENTENCES]   # 18 pairs (ids, target id)


def init_params(seed, d_model=8, d_ff=12):
    """The toy model's starting weights, drawn as the course text draws them.

    ``np.random.RandomState(seed)`` gives the same numbers as the text's
    ``np.random.seed(seed)`` followed by ``np.random.randn`` calls, in this order.

    Args:
        seed: int (the text uses 5; its third experiment uses 4).
        d_model: width of every token vector, query, key and value (8 in the text).
        d_ff: number of hidden units of the feed-forward layer (12 in the text).
    Returns:
        dict of float64 arrays: ``E`` (V, d_model) embedding rows; ``W_Q``, ``W_K``, ``W_V``
        (d_model, d_model); ``W1`` (d_model, d_ff) and ``b1`` (d_ff,); ``W2`` (d_ff, V) and
        ``b2`` (V,), which turn the hidden units into one logit per word. V = 12.
    """
    draw = np.random.RandomState(seed)
    V = len(VOCAB)
    E = draw.randn(V, d_model) * 0.5
    W_Q = draw.randn(d_model, d_model) * 0.3
    W_K = draw.randn(d_model, d_model) * 0.3
    W_V = draw.randn(d_model, d_model) * 0.3
    W1 = draw.randn(d_model, d_ff) * 0.3
    W2 = draw.randn(d_ff, V) * 0.3
    return {"E": E, "W_Q": W_Q, "W_K": W_K, "W_V": W_V,
            "W1": W1, "b1": np.zeros(d_ff), "W2": W2, "b2": np.zeros(V)}


def positional_encoding(T, D):
    """Sinusoidal position table (the course text's "Why the stamps are sine waves").

    Args:
        T: number of positions (int >= 1); positions are 0, 1, ..., T-1.
        D: width of the table, the model width (int >= 1; even in this course).
    Returns:
        ndarray of shape (T, D), float64. Column ``2i`` holds ``sin(t / 10000**(2i / D))``
        and column ``2i + 1`` holds ``cos(t / 10000**(2i / D))`` for row ``t``.
    """
    column = np.arange(D)
    rate = 10000.0 ** (-2.0 * (column // 2) / D)      # each sine/cosine pair shares a rate
    angle = np.arange(T)[:, None] * rate[None, :]     # (T, D)
    return np.where(column % 2 == 0, np.sin(angle), np.cos(angle))


def model_forward(params, ids, positions=True, equal_weights=False):
    """The course text's toy model on one sentence, keeping every intermediate value.

    Args:
        params: dict of weights as made by ``init_params``: ``E`` (V, D), ``W_Q``, ``W_K``,
            ``W_V`` (D, D), ``W1`` (D, d_ff), ``b1`` (d_ff,), ``W2`` (d_ff, V), ``b2`` (V,).
        ids: token ids of the sentence, a list of T ints; the last token does the reading.
        positions: add ``positional_encoding(T, D)`` to the embeddings (default True).
        equal_weights: use weight 1/T for every token instead of the softmax (default False).
    Returns:
        dict of float64 arrays: ``x`` (T, D) the inputs; ``q`` (D,) the last token's query;
        ``K`` (T, D) keys; ``V`` (T, D) values; ``scores`` (T,) raw ``K @ q``; ``weights``
        (T,) ``softmax(scores / sqrt(D))``, summing to 1; ``out`` (D,) ``weights @ V``;
        ``h`` (D,) ``x[-1] + out``; ``z1`` (d_ff,) ``h @ W1 + b1``; ``a1`` (d_ff,) its ReLU;
        ``logits`` (V,) ``a1 @ W2 + b2``; ``probs`` (V,) their softmax.
    """
    p = {name: np.asarray(value, dtype=float) for name, value in params.items()}
    ids = [int(i) for i in ids]
    x = p["E"][ids]
    if positions:
        x = x + positional_encoding(len(ids), x.shape[1])
    q = x[-1] @ p["W_Q"]
    K = x @ p["W_K"]
    V = x @ p["W_V"]
    scores = K @ q
    if equal_weights:
        weights = np.full(len(ids), 1.0 / len(ids))
    else:
        weights = softmax(scores / np.sqrt(q.shape[0]))
    out = weights @ V
    h = x[-1] + out
    z1 = h @ p["W1"] + p["b1"]
    a1 = np.maximum(z1, 0.0)
    logits = a1 @ p["W2"] + p["b2"]
    return {"x": x, "q": q, "K": K, "V": V, "scores": scores, "weights": weights, "out": out,
            "h": h, "z1": z1, "a1": a1, "logits": logits, "probs": softmax(logits)}


def attention_backward(read, W_Q, W_K, W_V, d_out):
    """Gradients of one attention read (the last token's) from the gradient at its output.

    The read is ``q = x[-1] @ W_Q``, ``K = x @ W_K``, ``V = x @ W_V``, ``scores = K @ q``,
    ``weights = softmax(scores / sqrt(d_k))``, ``out = weights @ V``.

    Args:
        read: dict of the forward values (float arrays): ``x`` (T, d_model), ``q`` (d_k,),
            ``K`` (T, d_k), ``V`` (T, d_v), ``scores`` (T,) and ``weights`` (T,). A record of
            ``model_forward`` will do; other keys are ignored.
        W_Q, W_K: projections, shape (d_model, d_k). W_V: projection, shape (d_model, d_v).
        d_out: dL/d(out), shape (d_v,).
    Returns:
        dict of float64 arrays, each the gradient of L with respect to the value of the
        same name: ``weights`` (T,), ``scores`` (T,) (the RAW scores: through the softmax and
        the 1/sqrt(d_k) scaling), ``q`` (d_k,), ``K`` (T, d_k), ``V`` (T, d_v), ``W_Q``,
        ``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v), ``x`` (T, d_model) (through the
        three projections only).
    """
    x, q, K, V, w = (np.asarray(read[k], dtype=float) for k in ("x", "q", "K", "V", "weights"))
    W_Q, W_K, W_V = (np.asarray(W, dtype=float) for W in (W_Q, W_K, W_V))
    d_out = np.asarray(d_out, dtype=float)
    d_weights = V @ d_out
    d_V = np.outer(w, d_out)
    d_scores = w * (d_weights - w @ d_weights) / np.sqrt(q.shape[0])
    d_q = K.T @ d_scores
    d_K = np.outer(d_scores, q)
    d_x = d_K @ W_K.T + d_V @ W_V.T
    d_x[-1] += d_q @ W_Q.T
    return {"weights": d_weights, "scores": d_scores, "q": d_q, "K": d_K, "V": d_V,
            "W_Q": np.outer(x[-1], d_q), "W_K": x.T @ d_K, "W_V": x.T @ d_V, "x": d_x}


def train_step(params, data, lr, positions=True, equal_weights=False):
    """One step of full-batch gradient descent on the course text's toy model.

    Args:
        params: dict of weights as made by ``init_params`` (see ``model_forward``).
        data: list of ``(ids, target)`` pairs: a list of token ids ending in "it", and the
            id of the right next word.
        lr: learning rate, float (the text uses 0.3).
        positions, equal_weights: passed on to ``model_forward`` (see there).
    Returns:
        tuple ``(new_params, loss)``: a new dict with the same keys and shapes, each weight
        moved by ``-lr`` times the gradient of the loss; and the loss, a float in nats, the
        mean over ``data`` of ``-log probs[target]`` computed with the weights BEFORE the
        step. ``params`` is not modified.
    """
    p = {name: np.asarray(value, dtype=float) for name, value in params.items()}
    grads = {name: np.zeros_like(value) for name, value in p.items()}
    loss = 0.0
    n = len(data)
    for ids, target in data:
        ids, target = [int(i) for i in ids], int(target)
        rec = model_forward(p, ids, positions=positions, equal_weights=equal_weights)
        loss += -np.log(rec["probs"][target]) / n
        d_logits = rec["probs"].copy()
        d_logits[target] -= 1.0
        d_logits /= n
        grads["W2"] += np.outer(rec["a1"], d_logits)
        grads["b2"] += d_logits
        d_z1 = (d_logits @ p["W2"].T) * (rec["z1"] > 0)
        grads["W1"] += np.outer(rec["h"], d_z1)
        grads["b1"] += d_z1
        d_h = d_z1 @ p["W1"].T
        read = attention_backward(rec, p["W_Q"], p["W_K"], p["W_V"], d_h)
        if equal_weights:       # the weights are constants: no path back into the scores
            d_x = np.asarray(read["V"], dtype=float) @ p["W_V"].T
        else:
            d_x = np.array(read["x"], dtype=float)
            grads["W_Q"] += read["W_Q"]
            grads["W_K"] += read["W_K"]
        grads["W_V"] += read["W_V"]
        d_x[-1] += d_h                               # the residual path
        np.add.at(grads["E"], ids, d_x)              # a repeated word collects every row
    new_params = {name: p[name] - lr * grads[name] for name in p}
    return new_params, float(loss)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    """Multi-head scaled dot-product attention over all tokens.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q, W_K, W_V: projections, shape (d_model, d_model); head h uses columns
            ``h * d_head`` to ``(h + 1) * d_head - 1`` of each, with ``d_head = d_model // n_heads``.
        W_O: output projection, shape (d_model, d_model).
        n_heads: number of heads, an int that divides d_model.
        causal: if True, token t reads only tokens 0..t.
    Returns:
        tuple ``(out, weights)``: ``out`` (T, d_model), float64, the heads' outputs laid side
        by side (head 0 first) times ``W_O``; ``weights`` (n_heads, T, T), float64, head h's
        ``softmax(Q_h K_h^T / sqrt(d_head))``, each row summing to 1 (masked entries 0).
    Raises:
        ValueError: ``n_heads`` is not a positive divisor of d_model.
    """
    X = np.asarray(X, dtype=float)
    T, d_model = X.shape
    if int(n_heads) != n_heads or n_heads < 1 or d_model % n_heads:
        raise ValueError(f"n_heads = {n_heads} does not divide d_model = {d_model}")
    n_heads = int(n_heads)
    d_head = d_model // n_heads

    def split(M):                                   # (T, d_model) -> (n_heads, T, d_head)
        return M.reshape(T, n_heads, d_head).transpose(1, 0, 2)
    Q, K, V = (split(X @ np.asarray(W, dtype=float)) for W in (W_Q, W_K, W_V))
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)          # (n_heads, T, T)
    if causal:
        scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = weights @ V                                          # (n_heads, T, d_head)
    joined = heads.transpose(1, 0, 2).reshape(T, d_model)        # head 0's columns first
    return joined @ np.asarray(W_O, dtype=float), weights
