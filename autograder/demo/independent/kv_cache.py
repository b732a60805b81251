"""Independent styles of the kv_cache exercise (see the package)."""

PLAIN = {
    "causal_self_attention": '''import math

import numpy as np


def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.array(X, dtype=np.float64)
    Q = X.dot(W_Q)
    K = X.dot(W_K)
    V = X.dot(W_V)
    out = []
    for i in range(X.shape[0]):
        s = K[: i + 1].dot(Q[i]) / math.sqrt(Q.shape[1])
        w = softmax(s)
        out.append(w.dot(V[: i + 1]))
    return np.array(out)
''',
    "KVCache": '''class KVCache:
    def __init__(self):
        self.keys = np.zeros((0, 0))
        self.values = np.zeros((0, 0))

    def append(self, k, v):
        k = np.array(k, dtype=float).reshape(1, -1)
        v = np.array(v, dtype=float).reshape(1, -1)
        if len(self.keys) == 0:
            self.keys, self.values = k, v
        else:
            self.keys = np.vstack([self.keys, k])
            self.values = np.vstack([self.values, v])

    def __len__(self):
        return self.keys.shape[0]
''',
    "decode_step": '''def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.array(x_new, dtype=np.float64)
    k = x @ W_K
    v = x @ W_V
    cache.append(k, v)
    q = np.asarray(x @ W_Q, dtype=float)
    scores = cache.keys.dot(q) / math.sqrt(len(q))
    w = softmax(scores)
    return w.dot(cache.values)
''',
    "kv_cache_size": '''def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    per_token = 2 * d_model * n_layers
    total = per_token * n_tokens
    return total, total * bytes_per_number
''',
}

BUFFER = {
    "causal_self_attention": '''def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, float)
    Q, K, V = (X @ np.asarray(W, float) for W in (W_Q, W_K, W_V))
    logits = np.einsum("id,jd->ij", Q, K) / Q.shape[1] ** 0.5
    logits[np.triu_indices(len(X), k=1)] = -np.inf
    return softmax(logits) @ V
''',
    "KVCache": '''class KVCache:
    """Rows kept in buffers that double when full."""

    def __init__(self):
        self.n = 0
        self.store_k = None
        self.store_v = None

    def append(self, k, v):
        k = np.asarray(k, float).ravel()
        v = np.asarray(v, float).ravel()
        if self.store_k is None:
            self.store_k = np.empty((8, k.size))
            self.store_v = np.empty((8, v.size))
        if self.n == len(self.store_k):
            self.store_k = np.concatenate([self.store_k, np.empty_like(self.store_k)])
            self.store_v = np.concatenate([self.store_v, np.empty_like(self.store_v)])
        self.store_k[self.n] = k
        self.store_v[self.n] = v
        self.n += 1

    def __len__(self):
        return self.n

    @property
    def keys(self):
        return np.zeros((0, 0)) if self.store_k is None else self.store_k[: self.n].copy()

    @property
    def values(self):
        return np.zeros((0, 0)) if self.store_v is None else self.store_v[: self.n].copy()
''',
    "decode_step": '''def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, float)
    cache.append(x @ W_K, x @ W_V)
    query = np.asarray(x @ W_Q, float)
    att = softmax(np.einsum("td,d->t", cache.keys, query) / np.sqrt(query.size))
    return np.einsum("t,tv->v", att, cache.values)
''',
    "kv_cache_size": '''def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    count = n_layers * n_tokens * d_model * 2
    return int(count), int(count) * bytes_per_number
''',
}

STYLES = {"plain": PLAIN, "buffer": BUFFER}
