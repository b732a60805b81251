"""Independent styles of the learned_attention exercise (see the package)."""

LOOPS = {
    "positional_encoding": '''import math

import numpy as np


def positional_encoding(T, D):
    table = np.zeros((T, D))
    for t in range(T):
        for c in range(D):
            freq = 10000.0 ** ((c - c % 2) / D)
            table[t, c] = math.sin(t / freq) if c % 2 == 0 else math.cos(t / freq)
    return table
''',
    "model_forward": '''def model_forward(params, ids, positions=True, equal_weights=False):
    E = np.array(params["E"], dtype=np.float64)
    tokens = list(map(int, ids))
    T = len(tokens)
    x = np.stack([E[i] for i in tokens])
    if positions:
        x = x + positional_encoding(T, E.shape[1])
    last = x[T - 1]
    q = last.dot(np.array(params["W_Q"], dtype=np.float64))
    K = x.dot(np.array(params["W_K"], dtype=np.float64))
    V = x.dot(np.array(params["W_V"], dtype=np.float64))
    scores = K.dot(q)
    weights = np.ones(T) / T if equal_weights else softmax(scores / math.sqrt(len(q)))
    out = weights.dot(V)
    h = last + out
    z1 = h.dot(np.array(params["W1"], dtype=np.float64)) + np.array(params["b1"], dtype=np.float64)
    a1 = np.where(z1 > 0, z1, 0.0)
    logits = a1.dot(np.array(params["W2"], dtype=np.float64)) + np.array(params["b2"], dtype=np.float64)
    probs = softmax(logits)
    return dict(x=x, q=q, K=K, V=V, scores=scores, weights=weights, out=out, h=h, z1=z1, a1=a1,
                logits=logits, probs=probs)
''',
    "attention_backward": '''def attention_backward(read, W_Q, W_K, W_V, d_out):
    x = np.array(read["x"], dtype=np.float64)
    q = np.array(read["q"], dtype=np.float64)
    K = np.array(read["K"], dtype=np.float64)
    V = np.array(read["V"], dtype=np.float64)
    w = np.array(read["weights"], dtype=np.float64)
    g = np.array(d_out, dtype=np.float64)
    WQ = np.array(W_Q, dtype=np.float64)
    WK = np.array(W_K, dtype=np.float64)
    WV = np.array(W_V, dtype=np.float64)
    T = len(w)
    g_w = np.array([V[t].dot(g) for t in range(T)])
    g_V = np.zeros_like(V)
    for t in range(T):
        g_V[t] = w[t] * g
    jacobian = np.diag(w) - np.outer(w, w)      # of the softmax
    g_s = jacobian.dot(g_w) / math.sqrt(len(q))
    g_q = np.zeros_like(q)
    g_K = np.zeros_like(K)
    for t in range(T):
        g_q += g_s[t] * K[t]
        g_K[t] = g_s[t] * q
    g_x = g_K.dot(WK.T) + g_V.dot(WV.T)
    g_x[T - 1] = g_x[T - 1] + WQ.dot(g_q)
    return {"weights": g_w, "scores": g_s, "q": g_q, "K": g_K, "V": g_V, "W_Q": np.outer(x[T - 1], g_q),
            "W_K": x.T.dot(g_K), "W_V": x.T.dot(g_V), "x": g_x}
''',
    "train_step": '''def train_step(params, data, lr, positions=True, equal_weights=False):
    weights = {key: np.array(val, dtype=np.float64) for key, val in params.items()}
    totals = {key: np.zeros(val.shape) for key, val in weights.items()}
    losses = []
    for ids, target in data:
        ids = [int(i) for i in ids]
        target = int(target)
        f = model_forward(weights, ids, positions, equal_weights)
        losses.append(-math.log(f["probs"][target]))
        g_logits = np.array(f["probs"])
        g_logits[target] = g_logits[target] - 1.0
        totals["W2"] += np.outer(f["a1"], g_logits)
        totals["b2"] += g_logits
        g_a1 = weights["W2"].dot(g_logits)
        g_z1 = np.where(f["z1"] > 0, g_a1, 0.0)
        totals["W1"] += np.outer(f["h"], g_z1)
        totals["b1"] += g_z1
        g_h = weights["W1"].dot(g_z1)
        back = attention_backward(f, weights["W_Q"], weights["W_K"], weights["W_V"], g_h)
        totals["W_V"] += back["W_V"]
        if equal_weights:
            g_x = back["V"].dot(weights["W_V"].T)
        else:
            totals["W_Q"] += back["W_Q"]
            totals["W_K"] += back["W_K"]
            g_x = back["x"].copy()
        g_x[-1] = g_x[-1] + g_h
        for row, token in enumerate(ids):
            totals["E"][token] += g_x[row]
    n = len(data)
    updated = {key: weights[key] - lr * totals[key] / n for key in weights}
    return updated, float(sum(losses) / n)
''',
    "multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    X = np.array(X, dtype=np.float64)
    T, D = X.shape
    if n_heads < 1 or n_heads != int(n_heads) or D % int(n_heads) != 0:
        raise ValueError("n_heads must divide the model width")
    H = int(n_heads)
    size = D // H
    Q = X.dot(np.array(W_Q, dtype=np.float64))
    K = X.dot(np.array(W_K, dtype=np.float64))
    V = X.dot(np.array(W_V, dtype=np.float64))
    weights = np.zeros((H, T, T))
    outs = []
    for head in range(H):
        cols = slice(head * size, (head + 1) * size)
        s = Q[:, cols].dot(K[:, cols].T) / math.sqrt(size)
        if causal:
            for i in range(T):
                s[i, i + 1:] = -np.inf
        weights[head] = softmax(s, axis=-1)
        outs.append(weights[head].dot(V[:, cols]))
    return np.hstack(outs).dot(np.array(W_O, dtype=np.float64)), weights
''',
}

EINSUM = {
    "positional_encoding": '''def positional_encoding(T, D):
    pos = np.arange(T, dtype=float)[:, None]
    half = np.arange(0, D, 2, dtype=float)
    freqs = np.exp(-np.log(10000.0) * half / D)
    pe = np.empty((T, D))
    pe[:, 0::2] = np.sin(pos * freqs)
    pe[:, 1::2] = np.cos(pos * freqs)[:, : D // 2]
    return pe
''',
    "model_forward": '''def model_forward(params, ids, positions=True, equal_weights=False):
    P = {k: np.asarray(v, float) for k, v in params.items()}
    idx = np.asarray(ids, dtype=int)
    x = P["E"][idx] + (positional_encoding(*P["E"][idx].shape) if positions else 0.0)
    q = x[-1] @ P["W_Q"]
    K, V = x @ P["W_K"], x @ P["W_V"]
    scores = K @ q
    weights = np.full(len(idx), 1 / len(idx)) if equal_weights else softmax(scores / np.sqrt(len(q)))
    out = weights @ V
    h = x[-1] + out
    z1 = h @ P["W1"] + P["b1"]
    a1 = np.maximum(0, z1)
    logits = a1 @ P["W2"] + P["b2"]
    names = ("x", "q", "K", "V", "scores", "weights", "out", "h", "z1", "a1", "logits", "probs")
    return dict(zip(names, (x, q, K, V, scores, weights, out, h, z1, a1, logits, softmax(logits))))
''',
    "attention_backward": '''def attention_backward(read, W_Q, W_K, W_V, d_out):
    x, q, K, V, a = (np.asarray(read[key], float) for key in ("x", "q", "K", "V", "weights"))
    Wq, Wk, Wv = map(lambda M: np.asarray(M, float), (W_Q, W_K, W_V))
    go = np.asarray(d_out, float)
    ga = np.einsum("tv,v->t", V, go)
    gV = np.einsum("t,v->tv", a, go)
    gs = (a * ga - a * np.dot(a, ga)) / np.sqrt(q.size)
    gq = np.einsum("t,tk->k", gs, K)
    gK = np.einsum("t,k->tk", gs, q)
    gx = np.einsum("tk,dk->td", gK, Wk) + np.einsum("tv,dv->td", gV, Wv)
    gx[-1] += np.einsum("k,dk->d", gq, Wq)
    return {"weights": ga, "scores": gs, "q": gq, "K": gK, "V": gV,
            "W_Q": np.einsum("d,k->dk", x[-1], gq), "W_K": np.einsum("td,tk->dk", x, gK),
            "W_V": np.einsum("td,tv->dv", x, gV), "x": gx}
''',
    "train_step": '''def train_step(params, data, lr, positions=True, equal_weights=False):
    P = {k: np.asarray(v, float) for k, v in params.items()}
    G = dict.fromkeys(P, 0.0)
    total = 0.0
    for ids, y in data:
        ids = list(map(int, ids))
        r = model_forward(P, ids, positions=positions, equal_weights=equal_weights)
        total -= np.log(r["probs"][int(y)])
        dz = r["probs"] - np.eye(1, len(r["probs"]), int(y))[0]
        G["W2"] = G["W2"] + np.einsum("i,j->ij", r["a1"], dz)
        G["b2"] = G["b2"] + dz
        dz1 = (P["W2"] @ dz) * (r["z1"] > 0)
        G["W1"] = G["W1"] + np.einsum("i,j->ij", r["h"], dz1)
        G["b1"] = G["b1"] + dz1
        dh = P["W1"] @ dz1
        back = attention_backward(r, P["W_Q"], P["W_K"], P["W_V"], dh)
        dx = back["V"] @ P["W_V"].T if equal_weights else np.array(back["x"])
        if not equal_weights:
            G["W_Q"] = G["W_Q"] + back["W_Q"]
            G["W_K"] = G["W_K"] + back["W_K"]
        G["W_V"] = G["W_V"] + back["W_V"]
        dx[-1] += dh
        dE = np.zeros_like(P["E"])
        np.add.at(dE, ids, dx)
        G["E"] = G["E"] + dE
    m = len(data)
    return {k: P[k] - lr * np.asarray(G[k]) / m for k in P}, float(total / m)
''',
    "multi_head_attention": '''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    X = np.asarray(X, float)
    T, D = X.shape
    if n_heads != int(n_heads) or n_heads <= 0 or D % n_heads != 0:
        raise ValueError(f"{n_heads} heads do not split width {D}")
    H = int(n_heads)
    d = D // H
    Q, K, V = ((X @ np.asarray(W, float)).reshape(T, H, d) for W in (W_Q, W_K, W_V))
    S = np.einsum("thd,shd->hts", Q, K) / np.sqrt(d)
    if causal:
        S = S + np.triu(np.full((T, T), -np.inf), k=1)
    A = softmax(S, axis=-1)
    O = np.einsum("hts,shd->thd", A, V).reshape(T, D)
    return O @ np.asarray(W_O, float), A
''',
}

STYLES = {"loops": LOOPS, "einsum": EINSUM}
