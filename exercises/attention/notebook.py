# %% [markdown]
# # Attention: one row, then the whole grid
#
# A token on its own is ambiguous: "bank" next to "river" is not "bank" next to "loan".
# Attention is the step where every token looks at the other tokens of the text and
# rebuilds its own vector as a blend of theirs. In this notebook you build that step
# from its parts and check every number against the course's worked examples.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `softmax(z, axis=-1)` | probabilities along one axis, computed without overflow |
# | `project_qkv(X, W_Q, W_K, W_V)` | the queries, keys and values of every token |
# | `attention_row(q, K, V)` | raw scores, weights and context vector of one token |
# | `causal_mask(T)` | which token may read which |
# | `attention_matrix(Q, K, V, causal=False)` | the same for all tokens at once |
#
# Conventions: vectors are **rows**, so a projection is `x @ W`. Arrays are numpy
# `float64`.
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

# %% module=true
import numpy as np

# %% checker=true

# %% [markdown]
# ## 1. Softmax, computed safely
#
# Softmax turns a list of scores into weights that are positive and sum to 1:
# $\mathrm{softmax}(z)_i = e^{z_i} / \sum_j e^{z_j}$.
# Exponentials overflow quickly: `np.exp(1000.0)` is `inf`, and `inf / inf` is `nan`.
# The fix costs one line. Adding the same constant $c$ to every score multiplies every
# $e^{z_i}$ by $e^{c}$, which cancels in the ratio, so subtract the largest score first:
# the biggest exponent becomes $e^0 = 1$ and nothing can overflow.
#
# `softmax` takes an `axis`: with a 2-D grid of scores, `axis=-1` makes **each row** sum to 1.

# %% solution="softmax"
def softmax(z, axis=-1):
    """Numerically stable softmax of ``z`` along ``axis``.

    Args:
        z: array-like of scores, any shape (float).
        axis: the axis whose entries should sum to 1 (default: the last one).
    Returns:
        ndarray of the same shape as ``z``, float64, positive, summing to 1 along ``axis``.
    """
    ### BEGIN SOLUTION
    z = np.asarray(z, dtype=float)
    shifted = z - np.max(z, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)
    ### END SOLUTION

# %% visible="softmax"

# %% tests="softmax"

# %% [markdown]
# ## 2. Queries, keys and values
#
# Each token's vector $x$ is projected three ways, with three learned matrices:
#
# * the **query** $q = x W_Q$: what this token is looking for;
# * the **key** $k = x W_K$: what this token offers to a query that looks at it;
# * the **value** $v = x W_V$: what this token hands over once it is chosen.
#
# Stack the $T$ token vectors as the rows of $X$ (shape `(T, d_model)`) and all three
# projections are single matrix products.
#
# The running example is the two-token request **"the cat"**. Its inputs (word embedding
# plus position stamp) are $x_{\text{the}} = (1, 0)$ and $x_{\text{cat}} = (1, 1)$, and
# the course's weights are below.

# %%
X_the_cat = np.array([[1.0, 0.0],    # "the"
                      [1.0, 1.0]])   # "cat"
W_Q = np.array([[0.0, 1.0], [1.0, 0.0]])
W_K = np.array([[1.0, 1.0], [0.0, 1.0]])
W_V = np.array([[0.0, 1.0], [1.0, 0.0]])

# %% solution="project_qkv"
def project_qkv(X, W_Q, W_K, W_V):
    """Project every token (a row of ``X``) to its query, key and value.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q: query weights, shape (d_model, d_k).
        W_K: key weights, shape (d_model, d_k).
        W_V: value weights, shape (d_model, d_v).
    Returns:
        tuple ``(Q, K, V)`` of float64 arrays with shapes (T, d_k), (T, d_k), (T, d_v).
    """
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    return X @ np.asarray(W_Q, dtype=float), X @ np.asarray(W_K, dtype=float), X @ np.asarray(W_V, dtype=float)
    ### END SOLUTION

# %%
Q, K, V = project_qkv(X_the_cat, W_Q, W_K, W_V)
for label, rows in (("queries", Q), ("keys", K), ("values", V)):
    print(f"{label:>7}: {rows.tolist()}")

# %% visible="project_qkv"

# %% tests="project_qkv"

# %% [markdown]
# ## 3. One attention row
#
# Take the last token, "cat". Its query is compared with the key of every token it may
# read (itself included) by a dot product: a large dot product means "this key answers my
# question". Three steps turn those comparisons into a new vector for "cat":
#
# 1. **Raw scores**: $s_j = k_j \cdot q$, one per token. With all keys as rows of $K$ this is `K @ q`.
# 2. **Weights**: softmax of the scores divided by $\sqrt{d_k}$. Dot products of longer
#    vectors are larger, and a softmax of large numbers puts almost all weight on one token;
#    dividing by $\sqrt{d_k}$ keeps their spread the same whatever the vector length.
# 3. **Context**: the weighted sum of the value rows, `weights @ V`.
#
# Work it by hand for "cat" before you code it: $q_{\text{cat}} = (1, 1)$, keys $(1,1)$ and
# $(1,2)$, so the raw scores are $(2, 3)$. What are the weights after scaling by $\sqrt 2$?

# %% solution="attention_row"
def attention_row(q, K, V):
    """Scaled dot-product attention for one query.

    Args:
        q: the query, shape (d_k,), float.
        K: the keys of the tokens it may read, shape (T, d_k).
        V: their values, shape (T, d_v).
    Returns:
        tuple ``(scores, weights, context)``: raw dot products ``K @ q``, shape (T,);
        ``softmax(scores / sqrt(d_k))``, shape (T,), summing to 1; and ``weights @ V``,
        shape (d_v,). All float64.
    """
    ### BEGIN SOLUTION
    q = np.asarray(q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    scores = K @ q
    weights = softmax(scores / np.sqrt(q.shape[-1]))
    return scores, weights, weights @ V
    ### END SOLUTION

# %%
scores, weights, context = attention_row(Q[1], K, V)
print("scores ", scores)
print("weights", weights.round(6))
print("context", context.round(6))

# %% visible="attention_row"

# %% tests="attention_row"

# %% [markdown]
# **Question.** Without the division by $\sqrt{d_k}$ the weights for "cat" would be
# $(0.2689, 0.7311)$ instead of $(0.3302, 0.6698)$. In a real model $d_k$ is 64 or 128.
# What would happen to the weights there if you forgot the scaling?

# %% [markdown]
# ## 4. Every row at once: the $QK^\top$ grid
#
# Each token runs the same recipe with its own query, so all rows can be computed in one
# go: `Q @ K.T` holds the raw score of token $i$ (row) reading token $j$ (column). Softmax
# goes **along each row**: every token distributes its own attention, so each row sums to 1
# (the columns do not have to).
#
# The example is **"river bank loan"**, with the course's queries, keys and values:

# %%
Q_rbl = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])   # river, bank, loan
K_rbl = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V_rbl = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])

# %% [markdown]
# ### The causal mask
#
# A model that writes text one token at a time must not look ahead: when it predicts the
# token after "bank", "loan" does not exist yet. A **causal mask** allows token $i$ to read
# token $j$ only when $j \le i$ (itself and everything before it). Masked entries get a
# score of $-\infty$ *before* the softmax, so their weight is exactly 0 and the remaining
# weights of the row still sum to 1.

# %% solution="causal_mask"
def causal_mask(T):
    """Which token may read which, for a sequence of ``T`` tokens.

    Args:
        T: number of tokens (int, at least 1).
    Returns:
        ndarray of shape (T, T), dtype bool: entry [i, j] is True when token i may read
        token j, that is when j <= i.
    """
    ### BEGIN SOLUTION
    return np.tril(np.ones((T, T), dtype=bool))
    ### END SOLUTION

# %%
print(causal_mask(3).astype(int))

# %% visible="causal_mask"

# %% tests="causal_mask"

# %% solution="attention_matrix"
def attention_matrix(Q, K, V, causal=False):
    """Scaled dot-product attention for every token at once.

    Args:
        Q: queries, shape (T, d_k), float.
        K: keys, shape (T, d_k).
        V: values, shape (T, d_v).
        causal: when True, token i reads only tokens j <= i.
    Returns:
        tuple ``(scores, weights, output)``: the raw scores ``Q @ K.T``, shape (T, T),
        never masked; the attention weights, shape (T, T), softmax of the scaled (and, if
        causal, masked) scores along each row, with masked entries exactly 0; and
        ``weights @ V``, shape (T, d_v). All float64.
    """
    ### BEGIN SOLUTION
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    scores = Q @ K.T
    scaled = scores / np.sqrt(Q.shape[-1])
    if causal:
        scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)
    weights = softmax(scaled, axis=-1)
    return scores, weights, weights @ V
    ### END SOLUTION

# %%
grid_scores, grid_weights, grid_output = attention_matrix(Q_rbl, K_rbl, V_rbl)
print("raw scores\n", grid_scores)
print("weights\n", grid_weights.round(4))
print("outputs\n", grid_output.round(4))

# %% visible="attention_matrix"

# %% tests="attention_matrix"

# %%
def show_weights(weights, labels, title):
    """Draw an attention grid as a heatmap: row = the token reading, column = the token read."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(3.6, 3.2))
    image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("reads (key)")
    ax.set_ylabel("token (query)")
    for i in range(len(labels)):
        for j in range(len(labels)):
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", color="white")
    ax.set_title(title)
    fig.colorbar(image, ax=ax)
    plt.show()


show_weights(attention_matrix(Q_rbl, K_rbl, V_rbl)[1], ["river", "bank", "loan"], "full attention")
show_weights(attention_matrix(Q_rbl, K_rbl, V_rbl, causal=True)[1], ["river", "bank", "loan"], "causal attention")

# %% [markdown]
# **Questions** (answer in the cell below).
#
# 1. The grid is not symmetric: "river" gives "bank" a weight of about 0.20, but "bank"
#    gives "river" about 0.25. Why can the two directions differ?
# 2. The rows of "bank" and "loan" are identical. Which of Q, K, V makes that so? And if
#    the value rows of "bank" and "loan" (their rows of V) were made different, with Q and
#    K unchanged, would the outputs of "bank" and "loan" still be identical?
# 3. With the causal mask, "river" can only read itself. What is its output, and why?
# 4. If you zeroed the masked weights *after* the softmax instead of before, what would go
#    wrong with the rows?

# %% [markdown]
# *Your answers here.*

# %% summary=true
