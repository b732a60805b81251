"""Reference solutions for the "embeddings" exercise.

GENERATED from exercises/embeddings/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import functools
import re

import numpy as np


def cosine_similarity(a, b):
    """Cosine of the angle between two vectors.

    Args:
        a: 1-D array-like of floats, shape (d,).
        b: 1-D array-like of floats, shape (d,), as many entries as ``a``.
    Returns:
        float in [-1, 1]: ``a . b / (|a| |b|)``; ``0.0`` when either vector is all zeros.
    Raises:
        ValueError: when ``a`` and ``b`` are not 1-D vectors with the same number of entries.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"cosine_similarity needs two 1-D vectors of one size, got shapes {a.shape} and {b.shape}")
    lengths = np.linalg.norm(a) * np.linalg.norm(b)
    if lengths == 0.0:
        return 0.0
    return float(np.clip(a @ b / lengths, -1.0, 1.0))


def cosine_similarity_matrix(A, B):
    """Cosine similarity of every row of ``A`` with every row of ``B``.

    Args:
        A: 2-D array-like of floats, shape (n, d): one vector per row.
        B: 2-D array-like of floats, shape (m, d).
    Returns:
        ndarray of shape (n, m), float64: entry [i, j] is the cosine of ``A[i]`` and ``B[j]``,
        in [-1, 1]; ``0.0`` wherever either row is all zeros.
    Raises:
        ValueError: when ``A`` and ``B`` are not 2-D or their rows differ in length.
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"cosine_similarity_matrix needs (n, d) and (m, d) arrays, got {A.shape} and {B.shape}")

    def unit_rows(M):
        lengths = np.linalg.norm(M, axis=1, keepdims=True)
        return np.divide(M, lengths, out=np.zeros_like(M), where=lengths > 0)

    return np.clip(unit_rows(A) @ unit_rows(B).T, -1.0, 1.0)


def semantic_search(query, documents, k):
    """The ``k`` documents whose vectors point most nearly the same way as ``query``.

    Args:
        query: 1-D array-like of floats, shape (d,).
        documents: 2-D array-like of floats, shape (n, d): one document vector per row.
        k: how many results to return (int, at least 1).
    Returns:
        list of ``min(k, n)`` pairs ``(index, score)``: ``index`` an int row of ``documents``,
        ``score`` its cosine similarity with ``query`` (float). Sorted by score, highest
        first; equal scores in order of index, lowest first. (Copies of one document can
        come out of a matrix product a rounding error apart, 1e-16 or so; such near-ties
        may be ordered either way.)
    """
    query = np.asarray(query, dtype=float)
    scores = cosine_similarity_matrix(query[None, :], documents)[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]


TOY_VOCAB = ("long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now")
TOY_INDEX = {word: i for i, word in enumerate(TOY_VOCAB)}
TOY_SENTENCES = ([f"long live the {royal}" for royal in ("king", "queen")]
                 + [f"the {royal} said yes" for royal in ("king", "queen")]
                 + ["peel the banana now"])


def toy_examples():
    """The toy corpus as (two-word context, next word) training pairs.

    Returns:
        ``(contexts, targets)``: int arrays of word ids, shapes (N, 2) and (N,), N = 10.
    """
    contexts, targets = [], []
    for sentence in TOY_SENTENCES:
        ids = [TOY_INDEX[word] for word in sentence.split()]
        for t in range(2, len(ids)):
            contexts.append(ids[t - 2:t])
            targets.append(ids[t])
    return np.array(contexts), np.array(targets)


def train_toy_model(steps=3001, lr=0.5, width=4, hidden=12, seed=0):
    """Train toy model 1 by full-batch gradient descent on its 10 examples.

    Args:
        steps: number of gradient updates (the course's run: steps 0 to 3000, so 3001).
        lr: learning rate.
        width: embedding width (columns of the table).
        hidden: number of ReLU units.
        seed: seed of numpy's legacy generator (``np.random.RandomState``).
    Returns:
        dict with ``"start"``, the embedding table before training, shape (10, width);
        ``"table"``, the table after training, same shape; ``"losses"``, the mean
        cross-entropy (nats) before each step, a list of ``steps`` floats; and
        ``"predict"``, a function from a two-word context to the 10 next-word probabilities.
    """
    draw = np.random.RandomState(seed)
    n_words = len(TOY_VOCAB)
    table = 0.3 * draw.randn(n_words, width)
    W_hidden = 0.3 * draw.randn(2 * width, hidden)
    b_hidden = np.zeros(hidden)
    W_out = 0.3 * draw.randn(hidden, n_words)
    b_out = np.zeros(n_words)
    start = table.copy()
    contexts, targets = toy_examples()
    n, rows = len(targets), np.arange(len(targets))

    def forward(ctx):
        x = table[ctx].reshape(len(ctx), 2 * width)          # the two context rows, side by side
        pre = x @ W_hidden + b_hidden
        h = np.maximum(pre, 0.0)
        logits = h @ W_out + b_out
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return x, pre, h, e / e.sum(axis=1, keepdims=True)

    losses = []
    for _ in range(steps):
        x, pre, h, probs = forward(contexts)
        losses.append(float(-np.log(probs[rows, targets]).mean()))
        g_logits = probs.copy()                              # d loss / d logits, averaged over examples
        g_logits[rows, targets] -= 1.0
        g_logits /= n
        g_pre = (g_logits @ W_out.T) * (pre > 0)             # back through the ReLU
        g_x = (g_pre @ W_hidden.T).reshape(n, 2, width)
        g_table = np.zeros_like(table)
        np.add.at(g_table, contexts, g_x)                    # only rows used as context get a gradient
        W_out -= lr * (h.T @ g_logits)
        b_out -= lr * g_logits.sum(axis=0)
        W_hidden -= lr * (x.T @ g_pre)
        b_hidden -= lr * g_pre.sum(axis=0)
        table -= lr * g_table

    def predict(two_words):
        ids = np.array([[TOY_INDEX[w] for w in two_words]])
        return forward(ids)[3][0]

    return {"start": start, "table": table, "losses": losses, "predict": predict}
