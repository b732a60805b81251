# %% [markdown]
# # Attention that learns: position, training, and several heads
#
# In the attention notebook every weight matrix was handed to you, and the attention
# weights simply followed from them. Nobody hands a real model its $W_Q$, $W_K$ and $W_V$
# (the "three stamps" of the course text *Text to Attention From Scratch*, section "The reading room"):
# they start as noise and are shaped by the same loop that trained $W_U$ in the next-token
# notebook, so attention itself is something that learns. This notebook closes that loop,
# following the text's sections "Build it: attention in 80 lines" and "Three experiments". You train a
# twelve-word model whose attention, told nothing but "predict the next word", learns that
# in *"the dog saw the cat and it"* the word "it" should look back at **dog**. Then you
# break it on purpose three ways, and finish with the answer to "what are heads?".
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `positional_encoding(T, D)` | the sinusoidal position table, one row per position |
# | `model_forward(params, ids, ...)` | every intermediate value of the toy model on one sentence, as a dict |
# | `attention_backward(read, W_Q, W_K, W_V, d_out)` | the gradients of one attention read, as a dict |
# | `train_step(params, data, lr, ...)` | the weights after one step of gradient descent, and the loss before it |
# | `multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False)` | the output of several heads, and each head's weights |
#
# Conventions, as before: vectors are **rows** (`x @ W`), scores are divided by the square
# root of the query width, arrays are numpy `float64`.
#
# **How this notebook is graded:** under each function, a locked *visible check* cell runs
# it on the course's worked numbers and prints PASS, or what was expected, what came back
# and, when the wrong value is one a known mistake gives, the mistake's name. Passing them is
# a good sign; after you submit, hidden checks call your five functions on the same worked
# numbers and on random cases drawn for you alone. Your notebook is run as Restart & Run All
# runs it, every cell from top to bottom, and each function is checked at its hidden-test
# cell, as it stands there; the cells marked *instructor demo* (the long training runs) are
# skipped when grading.

# %% module=true
import numpy as np

SOUND = {"cat": "purred", "dog": "barked", "bird": "chirped"}   # each animal and its sound
# The text's word order matters: row i of the embedding table is drawn for word i.
VOCAB = ["the", *SOUND, "saw", "moved", "today", "and", "it", *SOUND.values()]
DOG_SENTENCE = "the dog saw the cat and it"
TWINS = [f"the {a} saw the {b} and it" for a, b in (("cat", "dog"), ("dog", "cat"))]


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


def make_sentences():
    """The 18 training sentences of the course text's "Build it: attention in 80 lines".

    For each animal (the subject): "the A moved and it", "today the A moved and it", and,
    for each other animal B (a distractor), "the A saw the B and it" and "today the A saw
    the B and it". The word after "it" is always the subject's sound.
    """
    sentences = []
    for subject in SOUND:
        sentences.append(f"the {subject} moved and it")
        sentences.append(f"today the {subject} moved and it")
        for other in SOUND:
            if other != subject:
                sentences.append(f"the {subject} saw the {other} and it")
                sentences.append(f"today the {subject} saw the {other} and it")
    return sentences


def encode(sentence):
    """Token ids of a space-separated sentence, a list of ints."""
    return [VOCAB.index(word) for word in sentence.split()]


def next_word(sentence):
    """Id of the right next word: the sound of the first animal in ``sentence``."""
    subject = next(word for word in sentence.split() if word in SOUND)
    return VOCAB.index(SOUND[subject])


SENTENCES = make_sentences()
DATA = [(encode(s), next_word(s)) for s in SENTENCES]   # 18 pairs (ids, target id)


def init_params(seed, d_model=8, d_ff=12):
    """The toy model's starting weights, drawn as the course text draws them.

    ``np.random.RandomState(seed)`` gives the same numbers as the text's
    ``np.random.seed(seed)`` followed by ``np.random.randn`` calls, in this order.

    Args:
        seed: int (the text uses 5; its third experiment uses 4).
        d_model: width of every token vector, query, key and value (8 in the text).
        d_ff: number of hidden units of the feed-forward layer (12 in the text).
    Returns:
        dict of float64 arrays: ``E`` (V, d_model) embedding rows; ``W_Q``, ``W_K``, ``W_V``
        (d_model, d_model); ``W1`` (d_model, d_ff) and ``b1`` (d_ff,); ``W2`` (d_ff, V) and
        ``b2`` (V,), which turn the hidden units into one logit per word. V = 12.
    """
    draw = np.random.RandomState(seed)
    V = len(VOCAB)
    E = draw.randn(V, d_model) * 0.5
    W_Q = draw.randn(d_model, d_model) * 0.3
    W_K = draw.randn(d_model, d_model) * 0.3
    W_V = draw.randn(d_model, d_model) * 0.3
    W1 = draw.randn(d_model, d_ff) * 0.3
    W2 = draw.randn(d_ff, V) * 0.3
    return {"E": E, "W_Q": W_Q, "W_K": W_K, "W_V": W_V,
            "W1": W1, "b1": np.zeros(d_ff), "W2": W2, "b2": np.zeros(V)}

# %% checker=true

# %% [markdown]
# ## 1. Where is each word? The position table
#
# Attention blends value rows with weights that come from dot products. Shuffle the
# tokens and the same keys meet the same query: the blend is a sum, and sums do not care
# about order. So *"the dog saw the cat"* and *"the cat saw the dog"* would look identical
# to "it". The fix used by the original transformer is to add to every token's embedding a
# vector that depends only on its position $t$:
#
# $$PE[t, 2i] = \sin\!\left(\frac{t}{10000^{2i/D}}\right), \qquad
#   PE[t, 2i+1] = \cos\!\left(\frac{t}{10000^{2i/D}}\right).$$
#
# Columns come in pairs that share one frequency: pair 0 turns fastest (one radian per
# position), later pairs ever more slowly. Positions count from 0, so row 0 is
# $(0, 1, 0, 1, \dots)$. The table is a formula, not a weight: training never changes it.

# %% solution="positional_encoding"
def positional_encoding(T, D):
    """Sinusoidal position table (the course text's "Why the stamps are sine waves").

    Args:
        T: number of positions (int >= 1); positions are 0, 1, ..., T-1.
        D: width of the table, the model width (int >= 1; even in this course).
    Returns:
        ndarray of shape (T, D), float64. Column ``2i`` holds ``sin(t / 10000**(2i / D))``
        and column ``2i + 1`` holds ``cos(t / 10000**(2i / D))`` for row ``t``.
    """
    ### BEGIN SOLUTION
    column = np.arange(D)
    rate = 10000.0 ** (-2.0 * (column // 2) / D)      # each sine/cosine pair shares a rate
    angle = np.arange(T)[:, None] * rate[None, :]     # (T, D)
    return np.where(column % 2 == 0, np.sin(angle), np.cos(angle))
    ### END SOLUTION

# %%
table = positional_encoding(8, 8)
print(table.round(3))

# %% visible="positional_encoding"

# %% tests="positional_encoding"

# %% [markdown]
# ## 2. The toy model, forward
#
# The course text's model reads a sentence that ends in "it" and scores the word that
# comes next. Its vocabulary is twelve words and its eighteen training sentences follow
# one rule: "it" means the **first** animal, and the next word is that animal's sound.
# Twelve of them contain a second animal to mislead, and some begin with "today" so the
# subject is not always in the same place.

# %%
for sentence in SENTENCES[:4]:
    print(f"{sentence:30} -> {VOCAB[next_word(sentence)]}")
print("...", len(SENTENCES), "sentences")

# %% [markdown]
# One pass over a sentence of $T$ tokens, with $D = 8$:
#
# 1. **Inputs**: $x = E[\text{ids}] + PE[:T]$, shape $(T, D)$: what each token is, plus where it sits.
# 2. **Keys and values** of every token, $K = x W_K$ and $V = x W_V$; a **query** for the
#    last token only, $q = x_{T-1} W_Q$. Only "it" reads here, because only its result
#    feeds the prediction.
# 3. **Scores** $K q$ (raw, shape $(T,)$), **weights** $\mathrm{softmax}(Kq / \sqrt{D})$,
#    and the read's **output**, the weighted blend of value rows $w V$.
# 4. **Residual**: $h = x_{T-1} + \text{output}$. The token keeps its own vector and adds what it read.
# 5. **Feed-forward**: $z_1 = h W_1 + b_1$, $a_1 = \mathrm{ReLU}(z_1)$, then
#    $\text{logits} = a_1 W_2 + b_2$ (one per vocabulary word) and $\text{probs} = \mathrm{softmax}(\text{logits})$.
#
# Two switches serve the experiments at the end: `positions=False` leaves out the
# position table ($x = E[\text{ids}]$), and `equal_weights=True` replaces the softmax by
# the same weight $1/T$ for every token (the scores are still computed, but unused).
#
# Return every intermediate value in a dict: the backward pass needs them all.

# %% solution="model_forward"
def model_forward(params, ids, positions=True, equal_weights=False):
    """The course text's toy model on one sentence, keeping every intermediate value.

    Args:
        params: dict of weights as made by ``init_params``: ``E`` (V, D), ``W_Q``, ``W_K``,
            ``W_V`` (D, D), ``W1`` (D, d_ff), ``b1`` (d_ff,), ``W2`` (d_ff, V), ``b2`` (V,).
        ids: token ids of the sentence, a list of T ints; the last token does the reading.
        positions: add ``positional_encoding(T, D)`` to the embeddings (default True).
        equal_weights: use weight 1/T for every token instead of the softmax (default False).
    Returns:
        dict of float64 arrays: ``x`` (T, D) the inputs; ``q`` (D,) the last token's query;
        ``K`` (T, D) keys; ``V`` (T, D) values; ``scores`` (T,) raw ``K @ q``; ``weights``
        (T,) ``softmax(scores / sqrt(D))``, summing to 1; ``out`` (D,) ``weights @ V``;
        ``h`` (D,) ``x[-1] + out``; ``z1`` (d_ff,) ``h @ W1 + b1``; ``a1`` (d_ff,) its ReLU;
        ``logits`` (V,) ``a1 @ W2 + b2``; ``probs`` (V,) their softmax.
    """
    ### BEGIN SOLUTION
    p = {name: np.asarray(value, dtype=float) for name, value in params.items()}
    ids = [int(i) for i in ids]
    x = p["E"][ids]
    if positions:
        x = x + positional_encoding(len(ids), x.shape[1])
    q = x[-1] @ p["W_Q"]
    K = x @ p["W_K"]
    V = x @ p["W_V"]
    scores = K @ q
    if equal_weights:
        weights = np.full(len(ids), 1.0 / len(ids))
    else:
        weights = softmax(scores / np.sqrt(q.shape[0]))
    out = weights @ V
    h = x[-1] + out
    z1 = h @ p["W1"] + p["b1"]
    a1 = np.maximum(z1, 0.0)
    logits = a1 @ p["W2"] + p["b2"]
    return {"x": x, "q": q, "K": K, "V": V, "scores": scores, "weights": weights, "out": out,
            "h": h, "z1": z1, "a1": a1, "logits": logits, "probs": softmax(logits)}
    ### END SOLUTION

# %% [markdown]
# Before any training, with the text's starting weights (seed 5), the model is sure of
# itself and wrong: it predicts "it" again, with about 65%, and spreads its attention
# almost at random. A random model is not a neutral one; its starting loss (3.93 below) is
# worse than guessing uniformly among twelve words ($\ln 12 \approx 2.48$).

# %%
def where_it_looks(params, sentence, **switches):
    """Print the two likeliest next words and the weight "it" puts on every token."""
    record = model_forward(params, encode(sentence), **switches)
    best = np.argsort(record["probs"])[::-1][:2]
    guesses = ", ".join(f"{VOCAB[i]} {100 * record['probs'][i]:.1f}%" for i in best)
    print(f"{sentence:34} -> {guesses}")
    print(" " * 6 + "  ".join(f"{w}:{a:.2f}" for w, a in zip(sentence.split(), record["weights"])))
    return record


start = init_params(5)
record = where_it_looks(start, DOG_SENTENCE)

# %% visible="model_forward"

# %% tests="model_forward"

# %% [markdown]
# ## 3. Backward through one attention read
#
# Training needs, for every weight, how the loss changes when that weight moves. The
# feed-forward layer is the next-token notebook again. What is new is the read. Suppose the
# gradient arriving at its output, $\delta = \partial L / \partial\,\text{out}$ (shape $(d_v,)$),
# is known. Walk back through the forward steps in reverse order:
#
# * **Blend** $\text{out} = w V$: each weight's gradient is how well its value row lines up
#   with $\delta$, $\partial L/\partial w = V \delta$; and value row $j$ receives $w_j\,\delta$,
#   so $\partial L/\partial V = w \otimes \delta$ (an outer product).
# * **Softmax**: every weight depends on every score, through the shared denominator.
#   With $g = \partial L/\partial w$, the result is
#   $\partial L/\partial u_j = w_j\,(g_j - \sum_k w_k g_k)$ for $u = s/\sqrt{d_k}$.
#   The subtracted sum is what the normalisation contributes: raising one score takes
#   weight away from all the others.
# * **Scaling**: $u = s / \sqrt{d_k}$, so $\partial L/\partial s = (\partial L/\partial u) / \sqrt{d_k}$, once.
# * **Scores** $s = K q$: $\partial L/\partial q = K^\top\, \partial L/\partial s$ and
#   $\partial L/\partial K = (\partial L/\partial s) \otimes q$.
# * **Projections** $q = x_{T-1} W_Q$, $K = x W_K$, $V = x W_V$: $\partial L/\partial W_K =
#   x^\top\, \partial L/\partial K$, $\partial L/\partial W_V = x^\top\, \partial L/\partial V$,
#   $\partial L/\partial W_Q = x_{T-1} \otimes \partial L/\partial q$. Every row of $x$ made a key and a
#   value, and the last row also made the query, so $\partial L/\partial x$ collects
#   $(\partial L/\partial K) W_K^\top + (\partial L/\partial V) W_V^\top$ on every row, plus
#   $(\partial L/\partial q) W_Q^\top$ on the last one.
#
# Leave the residual path ($h = x_{T-1} + \text{out}$) to the caller: this function covers the
# read alone. The attention weights get a gradient, but they are not parameters of the
# model (they are recomputed for every sentence): the gradient flows *through* them into
# $W_Q$, $W_K$ and the embeddings, which are.

# %% solution="attention_backward"
def attention_backward(read, W_Q, W_K, W_V, d_out):
    """Gradients of one attention read (the last token's) from the gradient at its output.

    The read is ``q = x[-1] @ W_Q``, ``K = x @ W_K``, ``V = x @ W_V``, ``scores = K @ q``,
    ``weights = softmax(scores / sqrt(d_k))``, ``out = weights @ V``.

    Args:
        read: dict of the forward values (float arrays): ``x`` (T, d_model), ``q`` (d_k,),
            ``K`` (T, d_k), ``V`` (T, d_v), ``scores`` (T,) and ``weights`` (T,). A record of
            ``model_forward`` will do; other keys are ignored.
        W_Q, W_K: projections, shape (d_model, d_k). W_V: projection, shape (d_model, d_v).
        d_out: dL/d(out), shape (d_v,).
    Returns:
        dict of float64 arrays, each the gradient of L with respect to the value of the
        same name: ``weights`` (T,), ``scores`` (T,) (the RAW scores: through the softmax and
        the 1/sqrt(d_k) scaling), ``q`` (d_k,), ``K`` (T, d_k), ``V`` (T, d_v), ``W_Q``,
        ``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v), ``x`` (T, d_model) (through the
        three projections only).
    """
    ### BEGIN SOLUTION
    x, q, K, V, w = (np.asarray(read[k], dtype=float) for k in ("x", "q", "K", "V", "weights"))
    W_Q, W_K, W_V = (np.asarray(W, dtype=float) for W in (W_Q, W_K, W_V))
    d_out = np.asarray(d_out, dtype=float)
    d_weights = V @ d_out
    d_V = np.outer(w, d_out)
    d_scores = w * (d_weights - w @ d_weights) / np.sqrt(q.shape[0])
    d_q = K.T @ d_scores
    d_K = np.outer(d_scores, q)
    d_x = d_K @ W_K.T + d_V @ W_V.T
    d_x[-1] += d_q @ W_Q.T
    return {"weights": d_weights, "scores": d_scores, "q": d_q, "K": d_K, "V": d_V,
            "W_Q": np.outer(x[-1], d_q), "W_K": x.T @ d_K, "W_V": x.T @ d_V, "x": d_x}
    ### END SOLUTION

# %% [markdown]
# A derivative worked out on paper deserves to be measured. As in the next-token notebook,
# nudge one entry by $\pm\varepsilon$ and watch $L = \delta \cdot \text{out}$ (whose gradient at the
# output is exactly $\delta$). The cell below does this for every entry of every input on
# a small random read and prints the largest gap.

# %%
def read_output(x, W_Q, W_K, W_V):
    """The output of the last token's read (the forward of the cell above)."""
    keys, values = x @ W_K, x @ W_V
    query = x[-1] @ W_Q
    return softmax(keys @ query / np.sqrt(query.shape[0])) @ values


def measured_gradient(loss, M, eps=1e-6):
    """Central differences of ``loss`` in every entry of ``M`` (M is left unchanged)."""
    grad = np.zeros_like(M)
    for index in np.ndindex(*M.shape):
        saved = M[index]
        M[index] = saved + eps
        above = loss()
        M[index] = saved - eps
        below = loss()
        M[index] = saved
        grad[index] = (above - below) / (2 * eps)
    return grad


draw = np.random.default_rng(0)
x_small = draw.normal(size=(5, 4))
Wq_small, Wk_small, Wv_small = (draw.normal(size=(4, 3)) for _ in range(3))
delta = draw.normal(size=3)
q_small, K_small, V_small = x_small[-1] @ Wq_small, x_small @ Wk_small, x_small @ Wv_small
s_small = K_small @ q_small
small_read = {"x": x_small, "q": q_small, "K": K_small, "V": V_small, "scores": s_small,
              "weights": softmax(s_small / np.sqrt(3))}
grads = attention_backward(small_read, Wq_small, Wk_small, Wv_small, delta)


def loss_small():
    return float(delta @ read_output(x_small, Wq_small, Wk_small, Wv_small))


for name, M in (("x", x_small), ("W_Q", Wq_small), ("W_K", Wk_small), ("W_V", Wv_small)):
    gap = np.max(np.abs(measured_gradient(loss_small, M) - grads[name]))
    print(f"dL/d{name:4} largest gap to the central difference: {gap:.1e}"
          + ("" if gap < 1e-6 else "   <- too large: this gradient is not right yet"))

# %% visible="attention_backward"

# %% tests="attention_backward"

# %% [markdown]
# ## 4. One training step
#
# The loss of the model over the data set is the **average** cross-entropy of the right
# next words. One step of gradient descent:
#
# 1. **Forward** every sentence with `model_forward`, and add $-\log p_{\text{target}} / N$ to the loss.
# 2. **Backward**, from the top down. The logits get $(p - y)/N$ (the next-token notebook's
#    rule, divided by $N$ because of the average). Then $W_2$, $b_2$, back through the ReLU
#    (a unit that was off passes nothing back) into $W_1$, $b_1$, and into $h$.
# 3. The gradient at $h$ splits in two, as $h$ was a sum: one copy goes into the read
#    (`attention_backward` with $\delta = \partial L / \partial h$), the other straight into
#    $x_{T-1}$, the residual path.
# 4. $x$ was $E[\text{ids}]$ plus positions, so each row of $\partial L/\partial x$ belongs to the
#    embedding row of its word. Only words that appeared get a gradient, and a word that
#    appears twice ("the" in "the dog saw the cat") collects **both** rows. Beware:
#    `grad_E[ids] += d_x` keeps only one of the two; `np.add.at(grad_E, ids, d_x)` adds both.
# 5. **Sum** the gradients over the sentences, then move every weight once:
#    $W \leftarrow W - \eta\, \partial L/\partial W$, for $E$, $W_Q$, $W_K$, $W_V$, $W_1$, $b_1$, $W_2$, $b_2$.
#
# With `equal_weights=True` the weights no longer depend on the scores, so nothing flows
# back into the scores, $q$ and $K$: $W_Q$ and $W_K$ get zero gradient, and $x$ gets only
# the value path, $(\partial L / \partial V) W_V^\top$. The switches are passed on to `model_forward`.

# %% solution="train_step"
def train_step(params, data, lr, positions=True, equal_weights=False):
    """One step of full-batch gradient descent on the course text's toy model.

    Args:
        params: dict of weights as made by ``init_params`` (see ``model_forward``).
        data: list of ``(ids, target)`` pairs: a list of token ids ending in "it", and the
            id of the right next word.
        lr: learning rate, float (the text uses 0.3).
        positions, equal_weights: passed on to ``model_forward`` (see there).
    Returns:
        tuple ``(new_params, loss)``: a new dict with the same keys and shapes, each weight
        moved by ``-lr`` times the gradient of the loss; and the loss, a float in nats, the
        mean over ``data`` of ``-log probs[target]`` computed with the weights BEFORE the
        step. ``params`` is not modified.
    """
    ### BEGIN SOLUTION
    p = {name: np.asarray(value, dtype=float) for name, value in params.items()}
    grads = {name: np.zeros_like(value) for name, value in p.items()}
    loss = 0.0
    n = len(data)
    for ids, target in data:
        ids, target = [int(i) for i in ids], int(target)
        rec = model_forward(p, ids, positions=positions, equal_weights=equal_weights)
        loss += -np.log(rec["probs"][target]) / n
        d_logits = rec["probs"].copy()
        d_logits[target] -= 1.0
        d_logits /= n
        grads["W2"] += np.outer(rec["a1"], d_logits)
        grads["b2"] += d_logits
        d_z1 = (d_logits @ p["W2"].T) * (rec["z1"] > 0)
        grads["W1"] += np.outer(rec["h"], d_z1)
        grads["b1"] += d_z1
        d_h = d_z1 @ p["W1"].T
        read = attention_backward(rec, p["W_Q"], p["W_K"], p["W_V"], d_h)
        if equal_weights:       # the weights are constants: no path back into the scores
            d_x = np.asarray(read["V"], dtype=float) @ p["W_V"].T
        else:
            d_x = np.array(read["x"], dtype=float)
            grads["W_Q"] += read["W_Q"]
            grads["W_K"] += read["W_K"]
        grads["W_V"] += read["W_V"]
        d_x[-1] += d_h                               # the residual path
        np.add.at(grads["E"], ids, d_x)              # a repeated word collects every row
    new_params = {name: p[name] - lr * grads[name] for name in p}
    return new_params, float(loss)
    ### END SOLUTION

# %%
params, first_loss = train_step(init_params(5), DATA, 0.3)
_, second_loss = train_step(params, DATA, 0.3)
print(f"loss at step 0: {first_loss:.6f} (the text: 3.928), at step 1: {second_loss:.6f}")

# %% visible="train_step"

# %% tests="train_step"

# %% [markdown]
# ### Training it
#
# The helpers below train from a seed and draw where "it" looks. The next cells are
# **instructor demos**: each runs 1,001 steps (a few seconds) and is skipped when
# grading, but run them yourself. Their `assert`s are the course text's printed numbers:
# if your functions are right, they pass.

# %%
REPORT_AT = (0, 25, 50, 100, 200, 500, 1000)
TRAINED = {}   # filled by the demo cells below: seed and switches -> trained weights


def train(seed=5, steps=1001, lr=0.3, **switches):
    """Train from ``init_params(seed)``; print and return the losses at REPORT_AT, keep the weights."""
    params = init_params(seed)
    losses = {}
    for step in range(steps):
        params, loss = train_step(params, DATA, lr, **switches)
        if step in REPORT_AT:
            losses[step] = loss
            print(f"step {step:4d}   loss {loss:.3f}")
    TRAINED[(seed, tuple(sorted(switches.items())))] = params
    return losses


def plot_where_it_looks(rows, sentence):
    """Heatmap: one row of attention weights of "it" per labelled set of weights."""
    import matplotlib.pyplot as plt
    words = sentence.split()
    grid = np.array([model_forward(p, encode(sentence))["weights"] for _, p in rows])
    fig, ax = plt.subplots(figsize=(6.5, 0.6 + 0.55 * len(rows)))
    ax.imshow(grid, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(words)), words)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center",
                    color="black" if grid[i, j] > 0.6 else "white")
    ax.set_title(f'where "it" looks in "{sentence}"')
    plt.show()


TEST_SENTENCES = [DOG_SENTENCE, "the cat moved and it", "today the bird saw the cat and it",
                  "today the dog moved and it", TWINS[0]]

# %% demo=true
# Instructor demo (skipped when grading): the course text's run, 1,001 steps from seed 5.
def the_text_run():
    losses = train(seed=5)
    printed = {0: 3.928, 25: 0.418, 50: 0.022, 100: 0.003, 200: 0.001, 500: 0.000, 1000: 0.000}
    assert all(round(losses[s], 3) == printed[s] for s in REPORT_AT), losses
    trained = TRAINED[(5, ())]
    for sentence in TEST_SENTENCES:
        rec = where_it_looks(trained, sentence)
        assert VOCAB[int(np.argmax(rec["probs"]))] == VOCAB[next_word(sentence)]
    dog_share = model_forward(trained, encode(DOG_SENTENCE))["weights"][1]
    assert round(dog_share, 2) == 0.99, dog_share
    plot_where_it_looks([("before", init_params(5)), ("after 1,000 steps", trained)],
                        DOG_SENTENCE)


the_text_run()

# %% [markdown]
# Nothing told the model what "it" means. Its loss fell from 3.93 to almost 0, and the
# only way to get these sentences right is to know which animal is the subject, so the
# attention weights were pushed, through $W_Q$, $W_K$ and the embeddings, until "it"
# looks at the first animal: about 0.99 on "dog", between 0.95 and 1.00 on the subject in
# all five test sentences, wherever the subject stands and whatever else is in the sentence.
#
# ## 5. Three experiments
#
# **Without the position table** (`positions=False`). The loss no longer reaches 0: it is
# 0.467 at step 500 and 0.463 at step 1000. The sentences with one animal are still right.
# But a sentence and its twin with the two animals swapped (the `TWINS`) hold the same
# words, so without positions they give the model the same keys and values in another
# order, and a weighted sum does not see order. Both get the same answer, purred 54%,
# barked 46%: right for one, wrong for the other. The floor is exact: six sentences
# perfect (loss 0) and twelve at best 50/50 (loss $\ln 2$ each) average to
# $12 \ln 2 / 18 \approx 0.462$.

# %% demo=true
# Instructor demo (skipped when grading): experiment 1, no position table.
def without_positions():
    losses = train(seed=5, positions=False)
    assert round(losses[500], 3) == 0.467 and round(losses[1000], 3) == 0.463, losses
    print(f"the floor, 12 ln 2 / 18 = {12 * np.log(2) / 18:.3f}")
    trained = TRAINED[(5, (("positions", False),))]
    for twin in TWINS:
        probs = where_it_looks(trained, twin, positions=False)["probs"]
        assert round(100 * probs[VOCAB.index("purred")]) == 54
        assert round(100 * probs[VOCAB.index("barked")]) == 46


without_positions()

# %% [markdown]
# **Equal weights for everyone** (`equal_weights=True`): the blend becomes a plain average
# of the value rows, and nothing is learned about where to look. The loss stalls at 0.467,
# and the two twin sentences again get one shared answer (barked 54%, purred 46%). An
# average cannot tie a word to its position; only scores that compare a query with each
# key can pick one token out.

# %% demo=true
# Instructor demo (skipped when grading): experiment 2, equal weights.
def with_equal_weights():
    losses = train(seed=5, equal_weights=True)
    assert round(losses[1000], 3) == 0.467, losses
    trained = TRAINED[(5, (("equal_weights", True),))]
    for twin in TWINS:
        probs = where_it_looks(trained, twin, equal_weights=True)["probs"]
        assert round(100 * probs[VOCAB.index("barked")]) == 54
        assert round(100 * probs[VOCAB.index("purred")]) == 46


with_equal_weights()

# %% [markdown]
# **Another seed** (4 instead of 5). Every prediction is still right, yet in *"the dog saw
# the cat and it"* the largest weight, 0.60, sits on **cat**. Eighteen sentences leave
# room for more than one solution: this run reads the *object* and lets the feed-forward
# layer conclude that the subject must be the other animal. A trained attention map is
# under no obligation to be readable, which is worth remembering before reading meaning
# into a heatmap of a real model.

# %% demo=true
# Instructor demo (skipped when grading): experiment 3, seed 4.
def another_seed():
    train(seed=4)
    trained = TRAINED[(4, ())]
    for sentence in TEST_SENTENCES:
        rec = where_it_looks(trained, sentence)
        assert VOCAB[int(np.argmax(rec["probs"]))] == VOCAB[next_word(sentence)]
    rec = model_forward(trained, encode(DOG_SENTENCE))
    assert int(np.argmax(rec["weights"])) == 4 and round(rec["weights"][4], 2) == 0.60
    plot_where_it_looks([("seed 5", TRAINED[(5, ())]), ("seed 4", trained)], DOG_SENTENCE)


another_seed()

# %% [markdown]
# **Questions** (answer in the cell below).
#
# 1. The starting loss, 3.93, is worse than uniform guessing ($\ln 12 \approx 2.48$). How
#    can a model with random weights be worse than one that knows nothing?
# 2. Why are the one-animal sentences still learned perfectly without the position table?
# 3. In the equal-weights run, $W_Q$ and $W_K$ never change. Which weights does the model
#    still learn, and why is that not enough for the twins?
# 4. After training with seed 4, would you call the attention map "wrong"? What would you
#    need to check before concluding that a head "does" something?

# %% [markdown]
# *Your answers here.*

# %% [markdown]
# ## 6. Several heads
#
# One read gives one set of weights per token: one question asked of the context. A
# sentence poses many at once (who is the subject? which word came just before? which
# noun does this adjective describe?), and one query has to serve them all.
#
# **Multi-head attention** asks several questions side by side without widening the
# model. Split the $d_{\text{model}}$ columns of $Q = X W_Q$, $K = X W_K$ and $V = X W_V$
# into $n_{\text{heads}}$ consecutive blocks of width $d_{\text{head}} = d_{\text{model}} / n_{\text{heads}}$:
# head $h$ owns columns $h\, d_{\text{head}}$ to $(h+1)\, d_{\text{head}} - 1$. Each head is the
# attention of the attention notebook on its own block, scores divided by $\sqrt{d_{\text{head}}}$ (its
# own query width, not $d_{\text{model}}$). Lay the heads' outputs side by side again, head 0
# first, to get a $(T, d_{\text{model}})$ matrix, and mix them with one more learned matrix,
# $W_O$. The original transformer used 8 heads of 64 on a width of 512; GPT-2 small uses 12
# of 64 on 768.
#
# In numpy, `Q.reshape(T, n_heads, d_head).transpose(1, 0, 2)` gives the heads as a
# `(n_heads, T, d_head)` stack; a plain `Q.reshape(n_heads, T, d_head)` does **not** (it
# cuts the rows of different tokens into one head). Putting them back takes the reverse
# transpose before the reshape. A head count that does not divide $d_{\text{model}}$ has no
# sensible split: raise `ValueError`.

# %% solution="multi_head_attention"
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    """Multi-head scaled dot-product attention over all tokens.

    Args:
        X: token vectors, shape (T, d_model), float.
        W_Q, W_K, W_V: projections, shape (d_model, d_model); head h uses columns
            ``h * d_head`` to ``(h + 1) * d_head - 1`` of each, with ``d_head = d_model // n_heads``.
        W_O: output projection, shape (d_model, d_model).
        n_heads: number of heads, an int that divides d_model.
        causal: if True, token t reads only tokens 0..t.
    Returns:
        tuple ``(out, weights)``: ``out`` (T, d_model), float64, the heads' outputs laid side
        by side (head 0 first) times ``W_O``; ``weights`` (n_heads, T, T), float64, head h's
        ``softmax(Q_h K_h^T / sqrt(d_head))``, each row summing to 1 (masked entries 0).
    Raises:
        ValueError: ``n_heads`` is not a positive divisor of d_model.
    """
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    T, d_model = X.shape
    if int(n_heads) != n_heads or n_heads < 1 or d_model % n_heads:
        raise ValueError(f"n_heads = {n_heads} does not divide d_model = {d_model}")
    n_heads = int(n_heads)
    d_head = d_model // n_heads

    def split(M):                                   # (T, d_model) -> (n_heads, T, d_head)
        return M.reshape(T, n_heads, d_head).transpose(1, 0, 2)
    Q, K, V = (split(X @ np.asarray(W, dtype=float)) for W in (W_Q, W_K, W_V))
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)          # (n_heads, T, T)
    if causal:
        scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = weights @ V                                          # (n_heads, T, d_head)
    joined = heads.transpose(1, 0, 2).reshape(T, d_model)        # head 0's columns first
    return joined @ np.asarray(W_O, dtype=float), weights
    ### END SOLUTION

# %%
# d_model = 8 and 2 heads: compare each head with plain attention on its own 4 columns.
draw = np.random.default_rng(1)
X8 = draw.normal(size=(5, 8))
W8 = [draw.normal(size=(8, 8)) for _ in range(4)]
out8, weights8 = multi_head_attention(X8, *W8, n_heads=2, causal=True)
print("out", np.shape(out8), " weights", np.shape(weights8), " (expected (5, 8) and (2, 5, 5))")
for h in range(2):
    cols = slice(4 * h, 4 * h + 4)
    s = (X8 @ W8[0])[:, cols] @ (X8 @ W8[1])[:, cols].T / np.sqrt(4)
    s[np.triu_indices(5, 1)] = -np.inf
    gap = np.max(np.abs(np.asarray(weights8)[h] - softmax(s)))
    print(f"head {h}: largest gap to attention on columns {4 * h}..{4 * h + 3}: {gap:.1e}")

# %% visible="multi_head_attention"

# %% tests="multi_head_attention"

# %% [markdown]
# ### Two heads, two jobs
#
# To see what heads buy, build two by hand on the sentence *"the cat saw the cat"* with
# $d_{\text{model}} = 8$. Each token's vector is its word as a one-hot in columns 0 to 3,
# followed by a position table four columns wide, `positional_encoding(T, 4)`. That is
# not the first four columns of the 8-wide `table` of section 1 (*Where is each word?*):
# the first pair, $\sin t$ and $\cos t$, is the same, but the second pair turns at $t/100$
# where the 8-wide table's turns at $t/10$, because the rates depend on the width $D$. The
# position part sits in columns 4 to 7 of $X$; head 0 (columns 0 to 3 of $Q$ and $K$) reads
# only those, head 1 (columns 4 to 7 of $Q$ and $K$) only the word.
#
# * **Head 0** uses the fastest sine/cosine pair. Moving one position back turns that
#   pair by one radian, which is a fixed rotation matrix $R$: so a query of $PE_t R$ matches
#   the key $PE_{t-1}$ best. Head 0 learns nothing of words and looks at the previous token.
# * **Head 1** compares one-hot words: a token's query matches the keys of the same word,
#   wherever they are.

# %%
def two_head_example(scale=6.0):
    """The sentence, its inputs and the four matrices of the hand-built two-head layer."""
    words = "the cat saw the cat".split()
    kinds = ["the", "cat", "saw", "it"]
    T = len(words)
    X = np.hstack([np.eye(4)[[kinds.index(w) for w in words]], positional_encoding(T, 4)])
    back_one = np.array([[np.cos(1.0), np.sin(1.0)], [-np.sin(1.0), np.cos(1.0)]])
    W_Q, W_K = np.zeros((8, 8)), np.zeros((8, 8))
    W_Q[4:6, 0:2] = scale * back_one    # head 0: sin/cos of t, turned back one position
    W_K[4:6, 0:2] = scale * np.eye(2)
    W_Q[0:4, 4:8] = scale * np.eye(4)   # head 1: the word itself
    W_K[0:4, 4:8] = scale * np.eye(4)
    return words, X, W_Q, W_K, np.eye(8), np.eye(8)


words2, X2, Wq2, Wk2, Wv2, Wo2 = two_head_example()
out2, weights2 = multi_head_attention(X2, Wq2, Wk2, Wv2, Wo2, n_heads=2, causal=True)
print("head 0, largest weight of each token from the second on:", weights2[0].argmax(axis=1)[1:],
      "(the previous token: 0 1 2 3)")
print(f'head 1, weights of the second "cat" on both cats: {weights2[1][4, 1]:.2f}, {weights2[1][4, 4]:.2f}')


def plot_heads(weights, words):
    """One heatmap per head: row = the token reading, column = the token read."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(weights), figsize=(3.4 * len(weights), 3.2))
    for h, (ax, grid) in enumerate(zip(axes, weights)):
        ax.imshow(grid, cmap="viridis", vmin=0, vmax=1)
        ax.set_xticks(range(len(words)), words)
        ax.set_yticks(range(len(words)), words)
        for i in range(len(words)):
            for j in range(len(words)):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8,
                        color="black" if grid[i, j] > 0.6 else "white")
        ax.set_title(["head 0: position", "head 1: content"][h] if len(weights) == 2 else f"head {h}")
    plt.show()


plot_heads(weights2, words2)

# %% [markdown]
# Head 0's grid is a diagonal just below the main one: every token looks one step back,
# whatever the words. Head 1's grid lights up where the words agree: the second "cat"
# splits its attention between both "cat"s, the second "the" between both "the"s. One
# head with a single query could not do both at once. In a trained model nobody assigns
# these jobs: each head starts random and drifts towards whatever question helps the
# loss, and, as seed 4 showed, the job it ends up with may not be one we can name.
#
# **Questions.**
#
# 5. Why does head 0 scale by $\sqrt{4}$ and not $\sqrt{8}$? What would dividing by
#    $\sqrt{8}$ do to its weights?
# 6. The course text (section "The budget") asks why a model of width 768 uses 8 or 12
#    heads and not 80. 80 does not divide 768 (your function raises `ValueError`; that
#    is not the point of the question), so take 96 heads instead: what is $d_{\text{head}}$,
#    and why might that be too small?
# 7. What does $W_O$ add, given that the heads' outputs are already laid side by side?

# %% [markdown]
# *Your answers here.*

# %% summary=true
