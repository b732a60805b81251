"""The demo students' own learned-attention code (see the package's docstring). A function a
student's planted mistake replaces is left out of their style."""

STYLES = {
    # cy: loops and the math module, one head at a time (attention_backward: his mistake)
    "cy": '''
import math

def positional_encoding(T, D):
    table = np.zeros((T, D))
    for t in range(T):
        for j in range(0, D, 2):
            angle = t / 10000 ** (j / D)
            table[t, j] = math.sin(angle)
            if j + 1 < D:
                table[t, j + 1] = math.cos(angle)
    return table

def model_forward(params, ids, positions=True, equal_weights=False):
    E = np.asarray(params["E"], dtype=float)
    W_Q = np.asarray(params["W_Q"], dtype=float)
    W_K = np.asarray(params["W_K"], dtype=float)
    W_V = np.asarray(params["W_V"], dtype=float)
    tokens = [int(i) for i in ids]
    T = len(tokens)
    x = np.array([E[i] for i in tokens])
    if positions:
        x = x + positional_encoding(T, E.shape[1])
    q = x[-1] @ W_Q
    K = x @ W_K
    V = x @ W_V
    scores = np.array([K[t] @ q for t in range(T)])
    if equal_weights:
        weights = np.ones(T) / T
    else:
        weights = softmax(scores / math.sqrt(len(q)))
    out = np.zeros(V.shape[1])
    for t in range(T):
        out += weights[t] * V[t]
    h = x[-1] + out
    z1 = h @ np.asarray(params["W1"], dtype=float) + np.asarray(params["b1"], dtype=float)
    a1 = np.where(z1 > 0, z1, 0.0)
    logits = a1 @ np.asarray(params["W2"], dtype=float) + np.asarray(params["b2"], dtype=float)
    return dict(x=x, q=q, K=K, V=V, scores=scores, weights=weights, out=out, h=h, z1=z1, a1=a1,
                logits=logits, probs=softmax(logits))

def train_step(params, data, lr, positions=True, equal_weights=False):
    weights = {k: np.array(v, dtype=float) for k, v in params.items()}
    total = {k: np.zeros_like(v) for k, v in weights.items()}
    losses = []
    n = len(data)
    for ids, target in data:
        ids = [int(i) for i in ids]
        f = model_forward(weights, ids, positions, equal_weights)
        losses.append(-math.log(f["probs"][int(target)]))
        g_logits = (f["probs"] - np.eye(len(f["probs"]))[int(target)]) / n     # the mean's 1/n first
        total["W2"] += np.outer(f["a1"], g_logits)
        total["b2"] += g_logits
        g_z1 = (weights["W2"] @ g_logits) * (f["z1"] > 0)
        total["W1"] += np.outer(f["h"], g_z1)
        total["b1"] += g_z1
        g_h = weights["W1"] @ g_z1
        back = attention_backward(f, weights["W_Q"], weights["W_K"], weights["W_V"], g_h)
        total["W_V"] += back["W_V"]
        if equal_weights:
            g_x = np.asarray(back["V"], dtype=float) @ weights["W_V"].T
        else:
            total["W_Q"] += back["W_Q"]
            total["W_K"] += back["W_K"]
            g_x = np.array(back["x"], dtype=float)
        g_x[-1] += g_h
        for row, token in enumerate(ids):
            total["E"][token] += g_x[row]
    new = {k: weights[k] - lr * total[k] for k in weights}
    return new, float(sum(losses) / n)

def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    T, d_model = X.shape
    if n_heads < 1 or n_heads != int(n_heads) or d_model % int(n_heads) != 0:
        raise ValueError(f"{n_heads} heads cannot split {d_model} columns")
    n_heads = int(n_heads)
    d = d_model // n_heads
    Wq, Wk, Wv, Wo = (np.asarray(W, dtype=float) for W in (W_Q, W_K, W_V, W_O))
    all_weights = np.zeros((n_heads, T, T))
    pieces = []
    for h in range(n_heads):
        cols = slice(h * d, (h + 1) * d)
        q, k, v = X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols]
        s = q @ k.T / math.sqrt(d)
        if causal:
            for i in range(T):
                s[i, i + 1:] = -np.inf
        w = softmax(s, axis=-1)
        all_weights[h] = w
        pieces.append(w @ v)
    return np.hstack(pieces) @ Wo, all_weights
''',
    # dee: vectorised numpy and einsum, the softmax's Jacobian written out (multi-head: her mistake)
    "dee": '''
def positional_encoding(T, D):
    t = np.arange(T, dtype=float).reshape(-1, 1)
    freq = np.exp(-np.log(10000.0) * np.arange(0, D, 2, dtype=float) / D)
    table = np.empty((T, D))
    table[:, 0::2] = np.sin(t * freq)
    table[:, 1::2] = np.cos(t * freq)[:, :D // 2]
    return table

def model_forward(params, ids, positions=True, equal_weights=False):
    P = {k: np.asarray(v, float) for k, v in params.items()}
    x = np.take(P["E"], list(map(int, ids)), axis=0)
    T, D = x.shape
    if positions:
        x = x + positional_encoding(T, D)
    K, V = x @ P["W_K"], x @ P["W_V"]
    q = P["W_Q"].T @ x[-1]
    scores = np.einsum("td,d->t", K, q)
    weights = np.full(T, 1 / T) if equal_weights else softmax(scores / np.sqrt(len(q)))
    out = np.einsum("t,tv->v", weights, V)
    h = out + x[-1]
    z1 = P["b1"] + h @ P["W1"]
    a1 = z1.clip(min=0)
    logits = P["b2"] + a1 @ P["W2"]
    rec = dict(x=x, q=q, K=K, V=V, scores=scores, weights=weights, out=out, h=h, z1=z1, a1=a1,
               logits=logits)
    rec["probs"] = softmax(logits)
    return rec

def attention_backward(read, W_Q, W_K, W_V, d_out):
    x, q, K, V, a = (np.asarray(read[k], float) for k in ("x", "q", "K", "V", "weights"))
    g = np.asarray(d_out, float)
    g_a = np.einsum("tv,v->t", V, g)
    jacobian = np.diag(a) - np.outer(a, a)          # of the softmax
    g_s = jacobian @ g_a / np.sqrt(len(q))
    g_q = np.einsum("td,t->d", K, g_s)
    g_K = np.einsum("t,d->td", g_s, q)
    g_V = np.einsum("t,v->tv", a, g)
    W_Q, W_K, W_V = (np.asarray(W, float) for W in (W_Q, W_K, W_V))
    g_x = g_K @ W_K.T + g_V @ W_V.T
    g_x[-1] = g_x[-1] + W_Q @ g_q
    return {"weights": g_a, "scores": g_s, "q": g_q, "K": g_K, "V": g_V,
            "W_Q": np.einsum("d,k->dk", x[-1], g_q), "W_K": np.einsum("td,tk->dk", x, g_K),
            "W_V": np.einsum("td,tv->dv", x, g_V), "x": g_x}

def train_step(params, data, lr, positions=True, equal_weights=False):
    P = {k: np.asarray(v, float) for k, v in params.items()}

    def one(ids, target):
        ids = list(map(int, ids))
        r = model_forward(P, ids, positions, equal_weights)
        d_logits = r["probs"].copy()
        d_logits[int(target)] -= 1
        d_z1 = (P["W2"] @ d_logits) * (r["z1"] > 0)
        d_h = P["W1"] @ d_z1
        b = attention_backward(r, P["W_Q"], P["W_K"], P["W_V"], d_h)
        g = {k: np.zeros_like(v) for k, v in P.items()}
        g.update(W2=np.outer(r["a1"], d_logits), b2=d_logits, W1=np.outer(r["h"], d_z1), b1=d_z1,
                 W_V=b["W_V"])
        if equal_weights:
            d_x = b["V"] @ P["W_V"].T
        else:
            g["W_Q"], g["W_K"], d_x = b["W_Q"], b["W_K"], np.array(b["x"], float)
        d_x[-1] += d_h
        np.add.at(g["E"], ids, d_x)
        return -np.log(r["probs"][int(target)]), g

    results = [one(ids, t) for ids, t in data]
    loss = np.mean([value for value, _ in results])
    new = {k: P[k] - lr * np.mean([g[k] for _, g in results], axis=0) for k in P}
    return new, float(loss)
''',
    # eve: long-hand, a step per line, lists of heads (model_forward: her mistake)
    "eve": '''
import math

def positional_encoding(T, D):
    rows = []
    for pos in range(T):
        row = []
        for col in range(D):
            rate = 1.0 / (10000 ** ((col - col % 2) / D))
            row.append(math.sin(pos * rate) if col % 2 == 0 else math.cos(pos * rate))
        rows.append(row)
    return np.array(rows, dtype=float).reshape(T, D)

def attention_backward(read, W_Q, W_K, W_V, d_out):
    x = np.asarray(read["x"], dtype=float)
    q = np.asarray(read["q"], dtype=float)
    K = np.asarray(read["K"], dtype=float)
    V = np.asarray(read["V"], dtype=float)
    w = np.asarray(read["weights"], dtype=float)
    d_out = np.asarray(d_out, dtype=float)
    T = len(w)
    root = np.sqrt(len(q))
    d_w = np.array([V[t] @ d_out for t in range(T)])
    mean = sum(w[t] * d_w[t] for t in range(T))
    d_s = np.array([w[t] * (d_w[t] - mean) for t in range(T)]) / root
    d_q = sum(d_s[t] * K[t] for t in range(T))
    d_K = np.array([d_s[t] * q for t in range(T)])
    d_V = np.array([w[t] * d_out for t in range(T)])
    WQ = np.asarray(W_Q, dtype=float)
    WK = np.asarray(W_K, dtype=float)
    WV = np.asarray(W_V, dtype=float)
    d_x = d_K @ WK.T + d_V @ WV.T
    d_x[-1] = d_x[-1] + d_q @ WQ.T
    grads = {"weights": d_w, "scores": d_s, "q": d_q, "K": d_K, "V": d_V, "x": d_x}
    grads["W_Q"] = np.outer(x[-1], d_q)
    grads["W_K"] = x.T @ d_K
    grads["W_V"] = x.T @ d_V
    return grads

def train_step(params, data, lr, positions=True, equal_weights=False):
    old = {}
    for name in params:
        old[name] = np.array(params[name], dtype=float)
    grad = {}
    for name in old:
        grad[name] = np.zeros(old[name].shape)
    count = len(data)
    loss = 0.0
    for sentence, answer in data:
        sentence = [int(t) for t in sentence]
        answer = int(answer)
        fw = model_forward(old, sentence, positions=positions, equal_weights=equal_weights)
        loss = loss - np.log(fw["probs"][answer])
        err = fw["probs"].copy()
        err[answer] = err[answer] - 1.0
        grad["b2"] = grad["b2"] + err
        grad["W2"] = grad["W2"] + fw["a1"][:, None] * err[None, :]
        back_z1 = err @ old["W2"].T
        back_z1[fw["z1"] <= 0] = 0.0
        grad["b1"] = grad["b1"] + back_z1
        grad["W1"] = grad["W1"] + fw["h"][:, None] * back_z1[None, :]
        back_h = back_z1 @ old["W1"].T
        att = attention_backward(fw, old["W_Q"], old["W_K"], old["W_V"], back_h)
        grad["W_V"] = grad["W_V"] + att["W_V"]
        if not equal_weights:
            grad["W_Q"] = grad["W_Q"] + att["W_Q"]
            grad["W_K"] = grad["W_K"] + att["W_K"]
            back_x = np.array(att["x"], dtype=float)
        else:
            back_x = np.asarray(att["V"], dtype=float) @ old["W_V"].T
        back_x[-1] = back_x[-1] + back_h
        for pos in range(len(sentence)):
            grad["E"][sentence[pos]] = grad["E"][sentence[pos]] + back_x[pos]
    updated = {}
    for name in old:
        updated[name] = old[name] - lr * grad[name] / count
    return updated, float(loss / count)

def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    X = np.asarray(X, dtype=float)
    T, width = X.shape
    if n_heads <= 0 or n_heads % 1 != 0 or width % n_heads != 0:
        raise ValueError("n_heads must divide d_model")
    heads = int(n_heads)
    Qs = np.split(X @ np.asarray(W_Q, dtype=float), heads, axis=1)
    Ks = np.split(X @ np.asarray(W_K, dtype=float), heads, axis=1)
    Vs = np.split(X @ np.asarray(W_V, dtype=float), heads, axis=1)
    blocked = np.triu(np.ones((T, T), dtype=bool), 1)
    outs, maps = [], []
    for Qh, Kh, Vh in zip(Qs, Ks, Vs):
        sc = Qh @ Kh.T / np.sqrt(Qh.shape[1])
        if causal:
            sc = np.where(blocked, -np.inf, sc)
        a = softmax(sc, axis=-1)
        maps.append(a)
        outs.append(a @ Vh)
    return np.concatenate(outs, axis=1) @ np.asarray(W_O, dtype=float), np.stack(maps)
''',
}
