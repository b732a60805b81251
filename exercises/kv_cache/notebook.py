# %% [markdown]
# # Generating text: the KV cache
#
# A language model writes one token at a time. It reads the text so far, scores every
# word of its vocabulary, one token is chosen and glued onto the end, and the model runs
# again on the longer text. Run naively, every step redoes the work of all the steps
# before it. This notebook finds the part of that work that never changes, keeps it in a
# **KV cache**, and measures what that saves, and what it costs in memory.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | name | what it does |
# |---|---|
# | `causal_self_attention(X, W_Q, W_K, W_V)` | the context of every token at once, recomputing everything (the baseline) |
# | `KVCache()` | a growing store of key rows and value rows: `append(k, v)`, `keys`, `values`, `len(cache)` |
# | `decode_step(x_new, cache, W_Q, W_K, W_V)` | the context of one new token, using and extending the cache |
# | `kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2)` | how many numbers and bytes the cache holds |
#
# Conventions, as in the attention notebook: vectors are **rows**, so a projection is
# `x @ W`; scores are divided by $\sqrt{d_k}$; arrays are numpy `float64`.
#
# **Visible checks.** Under each function a locked cell runs it on the course's worked
# examples and prints PASS, or what was expected, what came back and, when your value is
# one a known mistake gives, which mistake that is. The last cell sums up. Passing them is
# a good sign; after you submit, hidden checks with cases randomized for each student grade
# the notebook.
#
# **How it is graded:** your notebook is run as Restart & Run All runs it, every cell from
# top to bottom (a cell that fails does not stop the others), and each function is checked
# at its hidden-test cell, as it stands there, on more cases than you see here. A mistake in
# a function that another one calls costs points only once, where it is made.
#
# One thing the grader looks at besides your numbers: **how much work** `decode_step`
# does. It counts how many token rows your code multiplies through `W_Q`, `W_K` and `W_V`.

# %% module=true
import numpy as np


def softmax(z, axis=-1):
    """Numerically stable softmax along ``axis`` (given, not graded).

    Args:
        z: scores, any shape, float.
        axis: the axis whose entries should sum to 1.
    Returns:
        ndarray of the same shape as ``z``, float64.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)

# %% checker=true

# %% [markdown]
# ## 1. The baseline: recompute everything
#
# Start from what you already know. Stack the $T$ token vectors of the text as the rows of
# $X$, project them to queries, keys and values, score every query against every key,
# hide the future with the causal mask (token $i$ reads only tokens $j \le i$), take a
# softmax along each row and blend the value rows. The result is one context vector per
# token, shape `(T, d_v)`.
#
# The running example is again **"the cat"**, with the course's weights:

# %%
X_the_cat = np.array([[1.0, 0.0],    # "the"
                      [1.0, 1.0]])   # "cat"
W_Q = np.array([[0.0, 1.0], [1.0, 0.0]])
W_K = np.array([[1.0, 1.0], [0.0, 1.0]])
W_V = np.array([[0.0, 1.0], [1.0, 0.0]])

# %% solution="causal_self_attention"
def causal_self_attention(X, W_Q, W_K, W_V):
    """Causal self-attention of a whole sequence, computed from scratch.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q: query weights, shape (d_model, d_k).
        W_K: key weights, shape (d_model, d_k).
        W_V: value weights, shape (d_model, d_v).
    Returns:
        ndarray of shape (T, d_v), float64: row i is the context vector of token i, the
        blend of the value rows of tokens 0..i weighted by
        ``softmax(q_i . k_j / sqrt(d_k))`` over j <= i.
    """
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    queries = X @ W_Q                  # all T tokens, projected from scratch
    keys = X @ W_K
    values = X @ W_V
    scores = queries @ keys.T / np.sqrt(queries.shape[-1])
    allowed = np.tril(np.ones((len(X), len(X)), dtype=bool))
    return softmax(np.where(allowed, scores, -np.inf), axis=-1) @ values
    ### END SOLUTION

# %%
contexts = causal_self_attention(X_the_cat, W_Q, W_K, W_V)
print(contexts.round(6))

# %% visible="causal_self_attention"

# %% tests="causal_self_attention"

# %% [markdown]
# ## 2. What a new token changes, and what it does not
#
# Say the model has read "the" and now "cat" arrives. Compare the two runs:

# %%
def compare_prefixes():
    """Keys, values and contexts of "the" alone, then of "the cat"."""
    for n in (1, 2):
        X = X_the_cat[:n]
        print(f"--- first {n} token(s)")
        print("keys    ", (X @ W_K).tolist())
        print("values  ", (X @ W_V).tolist())
        print("contexts", causal_self_attention(X, W_Q, W_K, W_V).round(6).tolist())


compare_prefixes()

# %% [markdown]
# The key, the value and even the context of "the" are the same in both runs. That is no
# coincidence:
#
# * a key is $x W_K$ and a value is $x W_V$: they depend only on that token's own vector
#   and on weights, which are frozen while the model generates;
# * thanks to the causal mask, "the" never reads "cat", so nothing that arrives later can
#   change what was computed for "the". In a deep model the same holds layer by layer: the
#   input of layer 2 at position 0 is the output of layer 1 at position 0, which never
#   looked ahead either.
#
# So at each new step only the **newest token** needs a query, a key and a value. The keys
# and values of all earlier tokens can be kept from the steps that first computed them.
# (The earlier queries are not needed at all: a query is only used by its own token.)
# Keeping them is exactly what a **KV cache** does.

# %% [markdown]
# ## 3. The cache
#
# `KVCache` holds one key row and one value row per token seen so far, in order:
#
# * `cache.append(k, v)` adds the key `k` (shape `(d_k,)`) and the value `v` (shape `(d_v,)`)
#   of one new token;
# * `cache.keys` is the array of all key rows, shape `(t, d_k)`, and `cache.values` the
#   value rows, shape `(t, d_v)`, where `t = len(cache)` tokens have been appended.
# * A new cache is empty: `len(KVCache())` is 0. Its widths `d_k` and `d_v` are not known
#   until the first `append`, so what `keys` and `values` hold before then is up to you (an
#   empty array such as `np.zeros((0, 0))` is natural): nothing reads them, neither
#   `decode_step` (it appends first) nor the grader.
#
# **Store copies.** A caller may reuse one buffer for every token, writing each new key into
# the same array before calling `append` again. If the cache kept a reference to that array
# (which is what `list.append(k)` or `np.asarray(k)` do), every stored "row" would silently
# turn into the latest one. `np.array(k, dtype=float)` makes a copy.
#
# (`keys` and `values` are *properties*: they are written like methods with `@property`
# above them, and read like attributes, without parentheses.)

# %% solution="KVCache"
class KVCache:
    """The keys and values of every token so far, one row per token, in order.

    ``append(k, v)`` stores copies of one key row, shape (d_k,), and one value row, shape
    (d_v,). ``keys`` is an ndarray of shape (t, d_k) and ``values`` one of shape (t, d_v),
    float64, where ``t = len(cache)``. Rows already stored never change, even when the
    caller later modifies the arrays it passed in.
    """

    def __init__(self):
        ### BEGIN SOLUTION
        self._key_rows = []
        self._value_rows = []
        ### END SOLUTION

    def append(self, k, v):
        """Store (a copy of) the key row ``k`` and the value row ``v`` of one new token."""
        ### BEGIN SOLUTION
        self._key_rows.append(np.array(k, dtype=float))
        self._value_rows.append(np.array(v, dtype=float))
        ### END SOLUTION

    @property
    def keys(self):
        """All key rows so far, shape (t, d_k), float64."""
        ### BEGIN SOLUTION
        return np.stack(self._key_rows) if self._key_rows else np.zeros((0, 0))
        ### END SOLUTION

    @property
    def values(self):
        """All value rows so far, shape (t, d_v), float64."""
        ### BEGIN SOLUTION
        return np.stack(self._value_rows) if self._value_rows else np.zeros((0, 0))
        ### END SOLUTION

    def __len__(self):
        """The number of tokens stored, t."""
        ### BEGIN SOLUTION
        return len(self._key_rows)
        ### END SOLUTION

# %%
demo = KVCache()
buffer_k, buffer_v = np.array([1.0, 1.0]), np.array([0.0, 1.0])
demo.append(buffer_k, buffer_v)
buffer_k[:] = [1.0, 2.0]        # the caller reuses its buffers for the next token
buffer_v[:] = [1.0, 1.0]
demo.append(buffer_k, buffer_v)
print(len(demo), demo.keys.tolist(), demo.values.tolist())

# %% visible="KVCache"

# %% tests="KVCache"

# %% [markdown]
# ## 4. One decode step
#
# `decode_step` handles one new token `x_new` (shape `(d_model,)`):
#
# 1. project **only `x_new`**: its query, key and value;
# 2. append its key and value to the cache, **before** attending: a token reads itself too,
#    so its own row must already be among the keys;
# 3. attend: the scaled scores of its query against every cached key, a softmax, and the
#    blend of every cached value row. Return that context, shape `(d_v,)`.
#
# No mask is needed here: the cache holds only the past and the present, never the future.
# Step 2's order matters: on an empty cache, attending first would leave nothing to attend to.
#
# **How the grader checks it.** It hands `decode_step` real numpy arrays as weights and
# counts the token rows your step multiplies through them: one row per matrix and step. Reading or copying the weights
# (`np.asarray(W_Q)`) costs nothing. Between steps it also appends rows of its own to the
# cache, so a step that recomputes the earlier keys and values from the tokens it was given,
# instead of reading them from the cache, returns a wrong context, however it multiplies.

# %% solution="decode_step"
def decode_step(x_new, cache, W_Q, W_K, W_V):
    """Attention output of one new token, reading earlier keys and values from ``cache``.

    Args:
        x_new: the new token's vector, shape (d_model,), float.
        cache: a ``KVCache`` holding the keys and values of the earlier tokens; the new
            token's key and value are appended to it.
        W_Q, W_K: query and key weights, ndarrays of shape (d_model, d_k).
        W_V: value weights, ndarray of shape (d_model, d_v).
    Returns:
        ndarray of shape (d_v,), float64: the context vector of the new token, attending
        over every cached token, itself included. Only ``x_new`` is projected.
    """
    ### BEGIN SOLUTION
    x = np.asarray(x_new, dtype=float)
    # the only projections of this step: one query, one key, one value
    q = x @ W_Q
    cache.append(x @ W_K, x @ W_V)     # in first, so the new token reads itself too
    weights = softmax(cache.keys @ q / np.sqrt(q.shape[-1]))
    return weights @ cache.values
    ### END SOLUTION

# %%
cache = KVCache()
step_contexts = np.array([decode_step(x, cache, W_Q, W_K, W_V) for x in X_the_cat])
print("decoded one token at a time:", step_contexts.round(6).tolist())
print("recomputed all at once:     ", causal_self_attention(X_the_cat, W_Q, W_K, W_V).round(6).tolist())

# %% visible="decode_step"

# %% tests="decode_step"

# %% [markdown]
# ## 5. Prefill, then decode
#
# A chat model's answer goes through two phases with very different costs.
#
# * **Prefill.** The whole prompt is known at once. Every prompt token needs its key and
#   value (in every layer) before the first new token can be chosen, and they can all be
#   computed together in a few large matrix products, as in `causal_self_attention`. Their
#   rows go into the cache. This phase decides how long you wait for the *first* token.
# * **Decode.** From then on each step adds a single token: one query, one key and one value
#   per layer, plus one pass over the cache. This phase decides how many tokens per second
#   stream out afterwards.
#
# The sketch below runs both phases with random weights. The prefill fills the cache with
# one product per matrix; `decode_step` then carries on one token at a time, and every
# context agrees with recomputing the whole text from scratch.

# %%
def prefill_then_decode(prompt_len=6, new_tokens=4, d_model=8, d_k=4, d_v=4, seed=0):
    """Prefill a random prompt in one go, decode a few more tokens, compare with the baseline."""
    gen = np.random.default_rng(seed)
    Wq, Wk, Wv = gen.normal(size=(d_model, d_k)), gen.normal(size=(d_model, d_k)), gen.normal(size=(d_model, d_v))
    X = gen.normal(size=(prompt_len + new_tokens, d_model))
    cache = KVCache()
    prompt = X[:prompt_len]
    for k, v in zip(prompt @ Wk, prompt @ Wv):          # prefill: all prompt rows at once
        cache.append(k, v)
    decoded = [decode_step(x, cache, Wq, Wk, Wv) for x in X[prompt_len:]]
    full = causal_self_attention(X, Wq, Wk, Wv)[prompt_len:]
    print(f"cache after prefill and {new_tokens} decode steps: {len(cache)} rows")
    print("largest gap to full recomputation:", np.max(np.abs(np.array(decoded) - full)))


prefill_then_decode()

# %% [markdown]
# (A real model would not generate new token vectors at random: each new token is the one
# chosen from the previous step's scores, embedded. The attention work is the same.)

# %% [markdown]
# ## 6. How much work does the cache save?
#
# Count the token rows multiplied through the projection matrices while generating $n$
# tokens. With the cache, step $t$ projects one row: $n$ rows in all. Without it, step $t$
# re-projects the whole prefix of $t$ tokens: $1 + 2 + \dots + n = n(n+1)/2$ rows. For 1,000
# tokens that is 1,000 against 500,500.
#
# The left plot shows the two counts. The right one times both ways of generating on this
# machine, with a wider model so that the projections dominate: the seconds spent so far
# after each new token. (Attention over the cache still grows with every step, so even the
# cached line bends upwards a little.)

# %% demo=true
def plot_work(n=200, d_model=256, d_head=64, repeats=3, seed=0):
    """Rows projected, and seconds spent so far, while generating n tokens with and without the cache."""
    import time
    import matplotlib.pyplot as plt

    gen = np.random.default_rng(seed)
    Wq, Wk, Wv = (gen.normal(size=(d_model, d_head)) / np.sqrt(d_model) for _ in range(3))
    X = gen.normal(size=(n, d_model))

    def elapsed_after_each_step(use_cache):
        cache, elapsed, start = KVCache(), [], time.perf_counter()
        for t in range(1, n + 1):
            if use_cache:
                decode_step(X[t - 1], cache, Wq, Wk, Wv)
            else:
                causal_self_attention(X[:t], Wq, Wk, Wv)[-1]   # redo the whole prefix
            elapsed.append(time.perf_counter() - start)
        return np.array(elapsed)

    steps = np.arange(1, n + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    left.plot(steps, steps, label="with cache: n")
    left.plot(steps, steps * (steps + 1) // 2, label="without: n(n+1)/2")
    left.set_ylabel("token rows projected")
    for use_cache, label in ((True, "decode_step with the cache"), (False, "recompute the prefix")):
        best = np.min([elapsed_after_each_step(use_cache) for _ in range(repeats)], axis=0)
        right.plot(steps, best, label=label)
    right.set_ylabel("seconds (best of %d runs)" % repeats)
    for ax in (left, right):
        ax.set_xlabel("tokens generated, n")
        ax.legend()
    fig.tight_layout()
    plt.show()


plot_work()

# %% [markdown]
# **Questions** (answer in the cell below).
#
# 1. Why does the cache store keys and values but not queries?
# 2. The cached line on the right still bends upwards a little. Which part of a decode step
#    grows with the number of tokens already generated, and why can no cache remove it?
# 3. Prefill and decode were both "attention", yet a model can be fast at one and slow at
#    the other. What is different about the shape of the work in the two phases?

# %% [markdown]
# *Your answers here.*

# %% [markdown]
# ## 7. What the cache costs: memory
#
# Every token leaves one key row and one value row behind **in every layer**. With
# $d_{\text{model}}$ numbers per row (all heads of a layer together), the cache grows by
# $2 \times n_{\text{layers}} \times d_{\text{model}}$ numbers per token. A model of the
# GPT-2-small shape has 12 layers of width 768: $2 \times 12 \times 768 = 18{,}432$ numbers
# for every token it keeps in context. Stored at 16-bit precision, each number takes 2 bytes.

# %% solution="kv_cache_size"
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    """Size of a full KV cache.

    Args:
        n_layers: number of transformer layers (int).
        d_model: width of each key row and each value row (int).
        n_tokens: tokens held in the cache (int).
        bytes_per_number: storage per number (int; 2 for 16-bit floats).
    Returns:
        tuple ``(numbers, bytes)`` of ints: every layer holds one key row and one value row
        of ``d_model`` numbers per token.
    """
    ### BEGIN SOLUTION
    numbers = 2 * n_layers * d_model * n_tokens
    return numbers, numbers * bytes_per_number
    ### END SOLUTION

# %%
def memory_table(n_layers=12, d_model=768):
    """The cache of a 12-layer, 768-wide model for a few context lengths."""
    for n_tokens in (1, 1_000, 8_000, 100_000):
        numbers, size = kv_cache_size(n_layers, d_model, n_tokens)
        print(f"{n_tokens:>8,} tokens: {numbers:>15,} numbers = {size / 1e9:8.4f} GB at 2 bytes each")


memory_table()

# %% visible="kv_cache_size"

# %% tests="kv_cache_size"

# %% [markdown]
# At 100,000 tokens the cache alone is about 3.7 GB, on top of the model's own weights, and
# it is held for as long as the conversation lasts. The size is linear in the context:
# twice the tokens, twice the memory.
#
# **Questions.**
#
# 4. How large is the cache at 100,000 tokens if the numbers are stored as 32-bit floats?
#    And for a model with 32 layers of width 4,096?
# 5. Serving many users at once multiplies this by the number of conversations. Name two
#    ways one could shrink the cache, and what each might cost in quality.

# %% [markdown]
# *Your answers here.*

# %% summary=true
