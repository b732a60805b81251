"""Independent styles of the attention exercise (see the package)."""

SIGNATURES = {"softmax": "softmax(z, axis=-1)", "project_qkv": "project_qkv(X, W_Q, W_K, W_V)",
              "attention_row": "attention_row(q, K, V)", "causal_mask": "causal_mask(T)",
              "attention_matrix": "attention_matrix(Q, K, V, causal=False)"}

BODIES = {
    "numpy": {
        "softmax": """z = np.asarray(z, dtype=float)
shifted = z - np.max(z, axis=axis, keepdims=True)
exps = np.exp(shifted)
return exps / np.sum(exps, axis=axis, keepdims=True)""",
        "project_qkv": """X = np.asarray(X, dtype=float)
return X @ np.asarray(W_Q, dtype=float), X @ np.asarray(W_K, dtype=float), X @ np.asarray(W_V, dtype=float)""",
        "attention_row": """q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
scores = K @ q
weights = softmax(scores / np.sqrt(q.shape[-1]))
return scores, weights, weights @ V""",
        "causal_mask": "return np.tril(np.ones((T, T), dtype=bool))",
        "attention_matrix": """Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
scores = Q @ K.T
scaled = scores / np.sqrt(Q.shape[-1])
if causal:
    scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)
weights = softmax(scaled, axis=-1)
return scores, weights, weights @ V""",
    },
    "loops": {
        "softmax": """arr = np.array(z, dtype=np.float64)
moved = np.moveaxis(arr, axis, -1)
out = np.empty_like(moved)
for idx in np.ndindex(moved.shape[:-1]):
    row = moved[idx]
    top = row.max()
    ex = [math.exp(v - top) for v in row]
    total = sum(ex)
    out[idx] = [v / total for v in ex]
return np.moveaxis(out, -1, axis)""",
        "project_qkv": """rows = np.array(X, dtype=np.float64)
outputs = []
for W in (W_Q, W_K, W_V):
    outputs.append(np.dot(rows, np.array(W, dtype=np.float64)))
return tuple(outputs)""",
        "attention_row": """query = np.array(q, dtype=np.float64)
keys = np.array(K, dtype=np.float64)
vals = np.array(V, dtype=np.float64)
raw = np.array([float(np.dot(k, query)) for k in keys])
w = softmax(raw / math.sqrt(len(query)))
ctx = np.zeros(vals.shape[1])
for t in range(len(w)):
    ctx += w[t] * vals[t]
return raw, w, ctx""",
        "causal_mask": """mask = np.zeros((T, T), dtype=bool)
for i in range(T):
    for j in range(i + 1):
        mask[i, j] = True
return mask""",
        "attention_matrix": """Q = np.asarray(Q, dtype=float)
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
return raw, w, w @ np.asarray(V, dtype=float)""",
    },
    "einsum": {
        "softmax": """x = np.asarray(z, float)
e = np.exp(x - x.max(axis=axis, keepdims=True))
return e / e.sum(axis=axis, keepdims=True)""",
        "project_qkv": """X = np.asarray(X, float)
return tuple(np.einsum("td,dk->tk", X, np.asarray(W, float)) for W in (W_Q, W_K, W_V))""",
        "attention_row": """s = np.einsum("tk,k->t", np.asarray(K, float), np.asarray(q, float))
a = softmax(s / len(q) ** 0.5)
return s, a, np.einsum("t,tv->v", a, np.asarray(V, float))""",
        "causal_mask": """idx = np.arange(T)
return idx[:, None] >= idx[None, :]""",
        "attention_matrix": """S = np.einsum("ik,jk->ij", np.asarray(Q, float), np.asarray(K, float))
Z = S / np.sqrt(np.shape(Q)[-1])
if causal:
    Z = Z.copy()
    Z[~causal_mask(len(S))] = -np.inf
A = softmax(Z)
return S, A, np.einsum("ij,jv->iv", A, np.asarray(V, float))""",
    },
    "helpers": {
        "softmax": """values = np.asarray(z, dtype=float)
largest = values.max(axis=axis, keepdims=True)
numerators = np.exp(values - largest)
denominator = numerators.sum(axis=axis, keepdims=True)
probabilities = numerators / denominator
return probabilities""",
        "project_qkv": """tokens = np.asarray(X, dtype=float)
queries = tokens.dot(np.asarray(W_Q, dtype=float))
keys = tokens.dot(np.asarray(W_K, dtype=float))
values = tokens.dot(np.asarray(W_V, dtype=float))
return queries, keys, values""",
        "attention_row": """query = np.asarray(q, dtype=float)
key_rows = np.asarray(K, dtype=float)
value_rows = np.asarray(V, dtype=float)
dot_products = key_rows.dot(query)
scale = 1.0 / np.sqrt(query.size)
attention = softmax(dot_products * scale)
context = attention.dot(value_rows)
return dot_products, attention, context""",
        "causal_mask": """upper = np.triu(np.ones((T, T)), k=1)
return upper == 0""",
        "attention_matrix": """queries = np.asarray(Q, dtype=float)
keys = np.asarray(K, dtype=float)
values = np.asarray(V, dtype=float)
raw_scores = queries.dot(keys.T)
scale = 1.0 / np.sqrt(queries.shape[1])
scaled_scores = raw_scores * scale
if causal:
    blocked = np.logical_not(causal_mask(queries.shape[0]))
    scaled_scores = np.where(blocked, -np.inf, scaled_scores)
attention = softmax(scaled_scores, axis=1)
return raw_scores, attention, attention.dot(values)""",
    },
    "compact": {
        "softmax": """z = np.array(z, dtype=float); z -= z.max(axis, keepdims=True); np.exp(z, out=z)
return z / z.sum(axis, keepdims=True)""",
        "project_qkv": "return tuple(np.asarray(X, float) @ np.asarray(w, float) for w in (W_Q, W_K, W_V))",
        "attention_row": """sc = np.asarray(K, float) @ np.asarray(q, float); wt = softmax(sc / np.sqrt(np.size(q)))
return sc, wt, wt @ np.asarray(V, float)""",
        "causal_mask": "return np.tri(T, dtype=bool)",
        "attention_matrix": """sc = np.asarray(Q, float) @ np.asarray(K, float).T
wt = softmax(np.where(causal_mask(len(sc)) | (not causal), sc / np.sqrt(np.shape(Q)[1]), -np.inf))
return sc, wt, wt @ np.asarray(V, float)""",
    },
}

STYLES = {style: {f: "import math\n\nimport numpy as np\n\n\ndef " + SIGNATURES[f] + ":\n"
                  + "\n".join("    " + line for line in body.splitlines()) + "\n"
                  for f, body in bodies.items()}
          for style, bodies in BODIES.items()}
