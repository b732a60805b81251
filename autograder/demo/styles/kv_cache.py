"""The demo students' own KV-cache code (see the package's docstring). The weights may be the
grader's counting matrices (only ``@`` on them), so every style projects with ``@``."""

STYLES = {
    # cy: preallocated arrays that grow by doubling, a mask built with a loop
    "cy": '''
class KVCache:
    def __init__(self):
        self.n = 0
        self.k_store = None
        self.v_store = None

    def append(self, k, v):
        k = np.array(k, dtype=float).ravel()
        v = np.array(v, dtype=float).ravel()
        if self.k_store is None:
            self.k_store = np.zeros((4, k.size))
            self.v_store = np.zeros((4, v.size))
        if self.n == len(self.k_store):
            self.k_store = np.concatenate([self.k_store, np.zeros_like(self.k_store)])
            self.v_store = np.concatenate([self.v_store, np.zeros_like(self.v_store)])
        self.k_store[self.n] = k
        self.v_store[self.n] = v
        self.n += 1

    @property
    def keys(self):
        return np.zeros((0, 0)) if self.k_store is None else self.k_store[:self.n].copy()

    @property
    def values(self):
        return np.zeros((0, 0)) if self.v_store is None else self.v_store[:self.n].copy()

    def __len__(self):
        return self.n

def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    cache.append(x @ W_K, x @ W_V)
    query = x @ W_Q
    logits = cache.keys @ query / math.sqrt(len(query))
    return softmax(logits) @ cache.values

import math

def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    queries = X @ W_Q
    keys = X @ W_K
    values = X @ W_V
    out = np.zeros((len(X), values.shape[1]))
    for t in range(len(X)):
        s = keys[:t + 1] @ queries[t] / math.sqrt(queries.shape[1])
        out[t] = softmax(s) @ values[:t + 1]
    return out

def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    per_token_per_layer = d_model + d_model        # one key row and one value row
    count = per_token_per_layer * n_layers * n_tokens
    return int(count), int(count * bytes_per_number)
''',
    # dee: a list of (key, value) pairs, zip and np.array when read
    "dee": '''
class KVCache:
    def __init__(self):
        self.pairs = []

    def append(self, k, v):
        self.pairs.append((np.copy(np.asarray(k, float)), np.copy(np.asarray(v, float))))

    @property
    def keys(self):
        return np.array([k for k, _ in self.pairs], dtype=float) if self.pairs else np.zeros((0, 0))

    @property
    def values(self):
        return np.array([v for _, v in self.pairs], dtype=float) if self.pairs else np.zeros((0, 0))

    def __len__(self):
        return len(self.pairs)

def decode_step(x_new, cache, W_Q, W_K, W_V):
    x_new = np.asarray(x_new, float)
    k, v, q = x_new @ W_K, x_new @ W_V, x_new @ W_Q
    cache.append(k, v)
    s = cache.keys @ q
    w = softmax(s / np.sqrt(np.size(q)))
    return w @ cache.values

def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, float)
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    S[np.triu_indices(len(X), k=1)] = -np.inf
    return softmax(S, axis=-1) @ V

def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    numbers = 2 * n_layers * d_model * n_tokens
    return numbers, numbers * bytes_per_number
''',
    # eve: np.vstack on every append, comprehensions over the rows
    "eve": '''
class KVCache:
    def __init__(self):
        self.K = None
        self.V = None

    def append(self, k, v):
        k_row = np.array(k, dtype=float)[None, :]
        v_row = np.array(v, dtype=float)[None, :]
        self.K = k_row if self.K is None else np.vstack([self.K, k_row])
        self.V = v_row if self.V is None else np.vstack([self.V, v_row])

    @property
    def keys(self):
        return np.zeros((0, 0)) if self.K is None else self.K.copy()

    @property
    def values(self):
        return np.zeros((0, 0)) if self.V is None else self.V.copy()

    def __len__(self):
        return 0 if self.K is None else self.K.shape[0]

def decode_step(x_new, cache, W_Q, W_K, W_V):
    vec = np.asarray(x_new, dtype=float)
    q_vec = vec @ W_Q
    cache.append(vec @ W_K, vec @ W_V)
    keys = cache.keys
    sims = np.array([key @ q_vec for key in keys]) / np.sqrt(q_vec.shape[0])
    att = softmax(sims)
    return att @ cache.values

def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    queries, keys, vals = X @ W_Q, X @ W_K, X @ W_V
    rows = []
    for t, q_vec in enumerate(queries):
        sims = np.array([keys[j] @ q_vec for j in range(t + 1)]) / np.sqrt(len(q_vec))
        rows.append(softmax(sims) @ vals[:t + 1])
    return np.array(rows)

def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    keys = n_layers * n_tokens * d_model
    values = keys
    return keys + values, (keys + values) * bytes_per_number
''',
}
