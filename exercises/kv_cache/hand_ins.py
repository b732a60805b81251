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
''', failing=("check_decode_first",
              "check_decode_second",
              "check_decode_the_cat",
              "check_decode_random",
              # the efficiency points are judged on the same calls' outputs
              "check_decode_counts"),
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
''', failing=("check_decode_second",
              "check_decode_counts"),
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
''', failing=("check_decode_second",
              "check_decode_counts"),
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
''', failing=("check_cache_copies",),
        feedback="instead of a copy"),

    # A KVCache bug costs KVCache's checks only: decode_step's checks decode into the grader's
    # cache of the contract (checks._cache), not into the student's class.
    Mistake(E, "KVCache", "keys_and_values_swapped", '''
class KVCache:
    def __init__(self):
        self.key_rows, self.value_rows = [], []

    def append(self, k, v):
        self.key_rows.append(np.array(v, dtype=float))        # the value row kept as the key
        self.value_rows.append(np.array(k, dtype=float))

    @property
    def keys(self):
        return np.array(self.key_rows)

    @property
    def values(self):
        return np.array(self.value_rows)

    def __len__(self):
        return len(self.key_rows)
''', failing=("check_cache_append",
              "check_cache_copies"),
        feedback="cache.keys after 4 appends"),

    Mistake(E, "KVCache", "rows_as_columns", '''
class KVCache:
    def __init__(self):
        self.key_rows, self.value_rows = [], []

    def append(self, k, v):
        self.key_rows.append(np.array(k, dtype=float))
        self.value_rows.append(np.array(v, dtype=float))

    @property
    def keys(self):
        return np.stack(self.key_rows, axis=1) if self.key_rows else np.zeros((0, 0))   # one column per token

    @property
    def values(self):
        return np.stack(self.value_rows, axis=1) if self.value_rows else np.zeros((0, 0))

    def __len__(self):
        return len(self.key_rows)
''', failing=("check_cache_append",
              "check_cache_copies"),
        feedback="stack the rows side by side"),

    Mistake(E, "kv_cache_size", "size_no_factor_2", '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    numbers = n_layers * d_model * n_tokens          # keys only
    return numbers, numbers * bytes_per_number
''', failing=("check_size_per_token",
              "check_size_long_context",
              "check_size_random"),
        feedback="leave out the factor 2"),

    Mistake(E, "kv_cache_size", "missing_layers", '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    numbers = 2 * d_model * n_tokens                  # one layer's worth
    return numbers, numbers * bytes_per_number
''', failing=("check_size_per_token",
              "check_size_long_context",
              "check_size_random"),
        feedback="leave out the layers"),

    Mistake(E, "causal_self_attention", "no_causal_mask", '''
def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    Q = X @ W_Q
    K = X @ W_K
    return softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=-1) @ (X @ W_V)   # reads the future too
''', failing=("check_attention_the_cat",
              "check_attention_random"),
        feedback="leave out the causal mask"),

    Mistake(E, "causal_self_attention", "mask_transposed", '''
def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    scores[np.tril(np.ones(scores.shape, dtype=bool), k=-1)] = -np.inf   # hides the past, not the future
    return softmax(scores, axis=-1) @ V
''', failing=("check_attention_the_cat",
              "check_attention_random"),
        feedback="allow reading ahead instead of behind"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
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
