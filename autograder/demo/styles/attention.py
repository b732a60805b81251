"""The demo students' own attention code (see the package's docstring)."""

STYLES = {
    # cy: explicit loops, the math module
    "cy": '''
import math

def softmax(z, axis=-1):
    arr = np.array(z, dtype=np.float64)
    moved = np.moveaxis(arr, axis, -1)
    out = np.empty_like(moved)
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx]
        top = row.max()
        ex = [math.exp(v - top) for v in row]
        total = sum(ex)
        out[idx] = [v / total for v in ex]
    return np.moveaxis(out, -1, axis)

def project_qkv(X, W_Q, W_K, W_V):
    rows = np.array(X, dtype=np.float64)
    outputs = []
    for W in (W_Q, W_K, W_V):
        outputs.append(np.dot(rows, np.array(W, dtype=np.float64)))
    return tuple(outputs)

def attention_row(q, K, V):
    query = np.array(q, dtype=np.float64)
    keys = np.array(K, dtype=np.float64)
    vals = np.array(V, dtype=np.float64)
    raw = np.array([float(np.dot(k, query)) for k in keys])
    w = softmax(raw / math.sqrt(len(query)))
    ctx = np.zeros(vals.shape[1])
    for t in range(len(w)):
        ctx += w[t] * vals[t]
    return raw, w, ctx

def causal_mask(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(i + 1):
            mask[i, j] = True
    return mask

def attention_matrix(Q, K, V, causal=False):
    Q = np.array(Q, dtype=np.float64)
    n = len(Q)
    raw = np.zeros((n, len(K)))
    for i in range(n):
        for j in range(len(K)):
            raw[i, j] = np.dot(Q[i], K[j])
    w = np.zeros_like(raw)
    allowed = causal_mask(n)
    for i in range(n):
        cols = [j for j in range(len(K)) if not causal or allowed[i, j]]
        w[i, cols] = softmax(raw[i, cols] / math.sqrt(Q.shape[1]))
    return raw, w, w @ np.asarray(V, dtype=float)
''',
    # dee: np.einsum throughout
    "dee": '''
def softmax(z, axis=-1):
    x = np.asarray(z, float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)

def project_qkv(X, W_Q, W_K, W_V):
    X = np.asarray(X, float)
    return tuple(np.einsum("td,dk->tk", X, np.asarray(W, float)) for W in (W_Q, W_K, W_V))

def attention_row(q, K, V):
    s = np.einsum("tk,k->t", np.asarray(K, float), np.asarray(q, float))
    a = softmax(s / len(q) ** 0.5)
    return s, a, np.einsum("t,tv->v", a, np.asarray(V, float))

def causal_mask(T):
    idx = np.arange(T)
    return idx[:, None] >= idx[None, :]

def attention_matrix(Q, K, V, causal=False):
    S = np.einsum("ik,jk->ij", np.asarray(Q, float), np.asarray(K, float))
    Z = S / np.sqrt(np.shape(Q)[-1])
    if causal:
        Z = Z.copy()
        Z[~causal_mask(len(S))] = -np.inf
    A = softmax(Z)
    return S, A, np.einsum("ij,jv->iv", A, np.asarray(V, float))
''',
    # eve: a named variable for every step, .dot
    "eve": '''
def softmax(z, axis=-1):
    values = np.asarray(z, dtype=float)
    largest = values.max(axis=axis, keepdims=True)
    numerators = np.exp(values - largest)
    denominator = numerators.sum(axis=axis, keepdims=True)
    probabilities = numerators / denominator
    return probabilities

def project_qkv(X, W_Q, W_K, W_V):
    tokens = np.asarray(X, dtype=float)
    queries = tokens.dot(np.asarray(W_Q, dtype=float))
    keys = tokens.dot(np.asarray(W_K, dtype=float))
    values = tokens.dot(np.asarray(W_V, dtype=float))
    return queries, keys, values

def attention_row(q, K, V):
    query = np.asarray(q, dtype=float)
    key_rows = np.asarray(K, dtype=float)
    value_rows = np.asarray(V, dtype=float)
    dot_products = key_rows.dot(query)
    scale = 1.0 / np.sqrt(query.size)
    attention = softmax(dot_products * scale)
    context = attention.dot(value_rows)
    return dot_products, attention, context

def causal_mask(T):
    upper = np.triu(np.ones((T, T)), k=1)
    return upper == 0

def attention_matrix(Q, K, V, causal=False):
    queries = np.asarray(Q, dtype=float)
    keys = np.asarray(K, dtype=float)
    values = np.asarray(V, dtype=float)
    raw_scores = queries.dot(keys.T)
    scale = 1.0 / np.sqrt(queries.shape[1])
    scaled_scores = raw_scores * scale
    if causal:
        blocked = np.logical_not(causal_mask(queries.shape[0]))
        scaled_scores = np.where(blocked, -np.inf, scaled_scores)
    attention = softmax(scaled_scores, axis=1)
    return raw_scores, attention, attention.dot(values)
''',
}
