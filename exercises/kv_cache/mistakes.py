"""Realistic mistakes in the kv_cache exercise: the ones the course text names, and a few more."""
from autograder.authoring import Mistake

E = "kv_cache"

MISTAKES = [
    Mistake(E, "decode_step", "attends_before_appending", '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    x = np.asarray(x_new, dtype=float)
    q = x @ W_Q
    weights = softmax(cache.keys @ q / np.sqrt(len(q)))   # the new row is not in the cache yet
    context = weights @ cache.values
    cache.append(x @ W_K, x @ W_V)
    return context
''', failing=('decode_step: "the" on an empty cache',
              'decode_step: "cat" with "the" already in the cache',
              'decode_step: decoding "the" then "cat" gives the rows of the full computation',
              "decode_step: random sequences (T up to 16) match the full recomputation within 1e-9",
              # the efficiency points are judged on the same calls' outputs
              "decode_step: each step projects only the new token (rows counted through W_Q, W_K, W_V)"),
        feedback="attend before appending"),

    Mistake(E, "decode_step", "recomputes_prefix", '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    # keep every input seen so far and project them all again at each step
    if not hasattr(cache, "inputs"):
        cache.inputs = []
    cache.inputs.append(np.asarray(x_new, dtype=float))
    X = np.array(cache.inputs)
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    cache.append(K[-1], V[-1])
    weights = softmax(K @ Q[-1] / np.sqrt(Q.shape[1]))
    return weights @ V
''', failing=('decode_step: "cat" with "the" already in the cache',
              "decode_step: each step projects only the new token (rows counted through W_Q, W_K, W_V)"),
        feedback="instead of reading them from the cache"),

    Mistake(E, "decode_step", "recomputes_prefix_uncountable", '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    # the same waste, with copies of the weights (uncounted: the cache rows the grader
    # changed before each step still give it away)
    W_Q, W_K, W_V = (np.asarray(W, dtype=float) for W in (W_Q, W_K, W_V))
    if not hasattr(cache, "inputs"):
        cache.inputs = []
    cache.inputs.append(np.asarray(x_new, dtype=float))
    X = np.array(cache.inputs)
    Q = X @ W_Q
    K = X @ W_K
    V = X @ W_V
    cache.append(K[-1], V[-1])
    weights = softmax(K @ Q[-1] / np.sqrt(Q.shape[1]))
    return weights @ V
''', failing=('decode_step: "cat" with "the" already in the cache',
              "decode_step: each step projects only the new token (rows counted through W_Q, W_K, W_V)"),
        feedback="instead of reading them from the cache"),

    Mistake(E, "KVCache", "aliases_inputs", '''
class KVCache:
    def __init__(self):
        self.key_rows, self.value_rows = [], []

    def append(self, k, v):
        self.key_rows.append(np.asarray(k, dtype=float))      # no copy: the caller's array itself
        self.value_rows.append(np.asarray(v, dtype=float))

    @property
    def keys(self):
        return np.array(self.key_rows)

    @property
    def values(self):
        return np.array(self.value_rows)

    def __len__(self):
        return len(self.key_rows)
''', failing=("KVCache: stored rows stay put when the caller reuses its arrays",),
        feedback="instead of a copy"),

    Mistake(E, "kv_cache_size", "size_no_factor_2", '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    numbers = n_layers * d_model * n_tokens          # keys only
    return numbers, numbers * bytes_per_number
''', failing=("kv_cache_size: 12 layers of width 768: 18,432 numbers per token",
              "kv_cache_size: 100,000 tokens: 1,843,200,000 numbers, 3,686,400,000 bytes",
              "kv_cache_size: other models and bytes per number"),
        feedback="leave out the factor 2"),

    Mistake(E, "kv_cache_size", "missing_layers", '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    numbers = 2 * d_model * n_tokens                  # one layer's worth
    return numbers, numbers * bytes_per_number
''', failing=("kv_cache_size: 12 layers of width 768: 18,432 numbers per token",
              "kv_cache_size: 100,000 tokens: 1,843,200,000 numbers, 3,686,400,000 bytes",
              "kv_cache_size: other models and bytes per number"),
        feedback="leave out the layers"),

    Mistake(E, "causal_self_attention", "no_causal_mask", '''
def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    Q = X @ W_Q
    K = X @ W_K
    return softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=-1) @ (X @ W_V)   # reads the future too
''', failing=('causal_self_attention: the contexts of "the cat"',
              "causal_self_attention: random sequences (T up to 16, d_k != d_v)"),
        feedback="leave out the causal mask"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/test_visible.py hands each in to the released notebook).
NAMED = {
    'aliases_inputs': "keep a reference to the caller's array instead of a copy",
    'size_no_factor_2': 'leave out the factor 2',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['recomputes_prefix'],
    'dee': ['size_no_factor_2'],
    'eve': ['aliases_inputs'],
}
