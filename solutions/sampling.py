"""Reference solutions for the "sampling" exercise.

GENERATED from exercises/sampling/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import functools

import numpy as np


def softmax(z):
    """Shares from scores: ``exp(z - max z)`` divided by its sum (given, not graded).

    Args:
        z: 1-D array-like of floats, shape (V,).
    Returns:
        ndarray of shape (V,), float64, non-negative, summing to 1.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


TOY_VOCAB = ("long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now")
TOY_INDEX = {word: i for i, word in enumerate(TOY_VOCAB)}
TOY_SENTENCES = tuple([f"long live the {royal}" for royal in ("king", "queen")]
                      + [f"the {royal} said yes" for royal in ("king", "queen")]
                      + ["peel the banana now"])


def train_toy_model(steps=3001, lr=0.5, width=4, hidden=12, seed=0):
    """Toy model 1 trained by full-batch gradient descent on the 10 (two words, next word) pairs.

    Args:
        steps: gradient updates (the course's run counts steps 0 to 3000: 3001 updates).
        lr: learning rate. width: embedding width. hidden: ReLU units.
        seed: seed of numpy's legacy generator (``np.random.RandomState``), drawn in the
            order table, hidden weights, output weights, each scaled by 0.3.
    Returns:
        dict of float64 arrays: ``table`` (10, width), ``W_hidden`` (2 width, hidden),
        ``b_hidden`` (hidden,), ``W_out`` (hidden, 10), ``b_out`` (10,).
    """
    draw = np.random.RandomState(seed)
    V = len(TOY_VOCAB)
    w = {"table": 0.3 * draw.randn(V, width)}
    w["W_hidden"], w["b_hidden"] = 0.3 * draw.randn(2 * width, hidden), np.zeros(hidden)
    w["W_out"], w["b_out"] = 0.3 * draw.randn(hidden, V), np.zeros(V)
    pairs = [[TOY_INDEX[word] for word in s.split()] for s in TOY_SENTENCES]
    contexts = np.array([ids[t - 2:t] for ids in pairs for t in range(2, len(ids))])
    targets = np.array([ids[t] for ids in pairs for t in range(2, len(ids))])
    n = len(targets)
    for _ in range(steps):
        x = w["table"][contexts].reshape(n, 2 * width)
        pre = x @ w["W_hidden"] + w["b_hidden"]
        h = np.maximum(pre, 0.0)
        z = h @ w["W_out"] + w["b_out"]
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g = p.copy()                                   # d(mean loss) / d logits
        g[np.arange(n), targets] -= 1.0
        g /= n
        g_pre = (g @ w["W_out"].T) * (pre > 0)
        g_x = (g_pre @ w["W_hidden"].T).reshape(n, 2, width)
        g_table = np.zeros_like(w["table"])
        np.add.at(g_table, contexts, g_x)              # only rows used as context move
        w["W_out"] -= lr * (h.T @ g)
        w["b_out"] -= lr * g.sum(axis=0)
        w["W_hidden"] -= lr * (x.T @ g_pre)
        w["b_hidden"] -= lr * g_pre.sum(axis=0)
        w["table"] -= lr * g_table
    return w


def toy_scores(weights, ids):
    """The ten logits toy model 1 gives after the last two of ``ids`` (a list of ints, length >= 2)."""
    x = weights["table"][list(ids)[-2:]].reshape(-1)
    return np.maximum(x @ weights["W_hidden"] + weights["b_hidden"], 0.0) @ weights["W_out"] + weights["b_out"]


def apply_temperature(logits, T):
    """Next-token shares at temperature ``T``.

    Args:
        logits: 1-D array-like of floats, shape (V,): the model's scores.
        T: temperature, a float >= 0.
    Returns:
        ndarray of shape (V,), float64, summing to 1: ``softmax(logits / T)``; for ``T == 0``
        the greedy choice, 1.0 at the largest score (the first one, as ``np.argmax``, when
        several tie) and 0.0 elsewhere.
    Raises:
        ValueError: when ``T`` is negative.
    """
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError(f"the temperature must be 0 or more, got T = {T}")
    if T == 0:
        greedy = np.zeros(len(z))
        greedy[int(np.argmax(z))] = 1.0
        return greedy
    return softmax(z / T)


def sample_next(probs, rng):
    """Draw one token id with the given shares.

    Args:
        probs: 1-D array-like of floats, shape (V,): non-negative shares summing to 1.
        rng: a ``numpy.random.Generator``; the only source of randomness used.
    Returns:
        int in ``range(V)``: id ``i`` with probability ``probs[i]``.
    """
    probs = np.asarray(probs, dtype=float)
    return int(rng.choice(len(probs), p=probs / probs.sum()))


def top_p_filter(probs, p):
    """The shares of the smallest set of most likely tokens whose shares reach ``p``, renormalised.

    Args:
        probs: 1-D array-like of floats, shape (V,): non-negative shares summing to 1.
        p: the share to reach, 0 < p <= 1.
    Returns:
        ndarray of shape (V,), float64, summing to 1: tokens outside the set get 0.0, the
        ones inside their share divided by the set's total. The set is the first k tokens in
        order of decreasing share (ties: lower id first), k the smallest count whose shares
        add up to p or more (the token that crosses p is kept); p = 1 keeps every token.
    Raises:
        ValueError: when p is not in (0, 1].
    """
    probs = np.asarray(probs, dtype=float)
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p}")
    order = np.argsort(-probs, kind="stable")
    total = np.cumsum(probs[order])
    k = len(probs) if p >= 1 else min(int(np.sum(total < p)) + 1, len(probs))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    return kept / kept.sum()


def generate(model, prompt, n, T, rng):
    """Extend ``prompt`` by ``n`` token ids chosen one at a time.

    Args:
        model: a function from a list of token ids to the next-token logits, shape (V,); it
            keeps nothing between calls.
        prompt: list of int token ids (not changed).
        n: number of ids to add (int >= 0).
        T: temperature (float >= 0); 0 means greedy decoding.
        rng: a ``numpy.random.Generator`` for the draws (unused, and may be None, when T == 0).
    Returns:
        list of ``len(prompt) + n`` ints: the prompt, then the chosen ids in order.
    """
    ids = [int(i) for i in prompt]
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        ids.append(int(np.argmax(shares)) if T == 0 else sample_next(shares, rng))
    return ids
