# %% [markdown]
# # Predicting the next token, and learning from one mistake
#
# The attention notebook ended with one vector per token: the context vector of "cat" in
# the request **"the cat"** was $(0.669762,\ 1.0)$. This notebook follows that vector the
# rest of the way: through a small feed-forward layer, out to one score per vocabulary
# word, into probabilities, and finally into a choice: "sat". Then it turns the question
# around. Suppose "sat" really was the right next word: how wrong was the model, which way
# should one weight move so it is less wrong next time, and how can we be sure our
# derivative is right?
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `forward(context, W1, b1, W_U)` | the hidden vector `h` and one logit per vocabulary word |
# | `cross_entropy(logits, target)` | the loss $-\log p(\text{target})$, without overflow or underflow |
# | `grad_logits(logits, target)` | $\partial L / \partial \text{logits}$: probabilities minus the one-hot target |
# | `grad_unembedding(h, logits, target)` | $\partial L / \partial W_U$, one entry per weight |
# | `sgd_update(W, grad, lr)` | a new matrix one gradient step downhill |
# | `numerical_gradient(loss_fn, W, index, eps)` | the same derivative measured by nudging one weight |
#
# Conventions: vectors are **rows**, so the feed-forward layer is `context @ W1 + b1`. The
# unembedding matrix `W_U` has **one row per vocabulary word**, and the logits are
# `W_U @ h`: logit $i$ is the dot product of row $i$ with `h`. Arrays are numpy `float64`.
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


def softmax(z):
    """Probabilities from scores (given, not graded): shift by the maximum, exponentiate, normalize.

    Args:
        z: scores, shape (V,), float.
    Returns:
        ndarray of shape (V,), float64, positive, summing to 1.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z))
    return e / e.sum()

# %% checker=true

# %% [markdown]
# ## 1. From the context vector to the logits
#
# The course's toy model has a five-word vocabulary. Each word owns one row of the
# unembedding matrix $W_U$ (here the rows simply reuse the words' embedding directions),
# and the feed-forward layer has weights $W_1$ and bias $b_1$:

# %%
vocab = ["the", "cat", "sat", "ran", "mat"]
# The attention output for "cat", recomputed from the attention notebook: weights from the
# scaled scores (2, 3) / sqrt(2), times the value rows of "the" (0, 1) and "cat" (1, 1).
context_cat = softmax(np.array([2.0, 3.0]) / np.sqrt(2)) @ np.array([[0.0, 1.0], [1.0, 1.0]])
W1 = np.array([[1.0, 0.0],
               [1.0, 1.0]])
b1 = np.array([0.0, 0.0])
W_U = np.array([[1.0, 0.0],     # the
                [0.0, 1.0],     # cat
                [1.0, 1.0],     # sat
                [-1.0, 1.0],    # ran
                [1.0, -1.0]])   # mat
SAT = vocab.index("sat")

# %% [markdown]
# Two steps take the context vector to the scores:
#
# 1. **Feed-forward.** $h = \mathrm{ReLU}(\text{context}\, W_1 + b_1)$, where
#    $\mathrm{ReLU}(z) = \max(z, 0)$ entry by entry: negative entries become 0, positive ones
#    pass unchanged. $h$ has one entry per column of $W_1$.
# 2. **Unembedding.** Each vocabulary word scores $h$ with its own row of $W_U$:
#    $\text{logit}_i = W_U[i] \cdot h$, all at once `W_U @ h`. A logit is an unnormalized
#    score: any real number, larger meaning "more likely next".
#
# Do "sat" by hand first. $h = (0.669762 + 1,\ 1) = (1.669762, 1)$, and the row of "sat" is
# $(1, 1)$, so its logit is $2.669762$.

# %% solution="forward"
def forward(context, W1, b1, W_U):
    """Feed-forward layer with ReLU, then one logit per vocabulary word.

    Args:
        context: the token's context vector, shape (d_model,), float.
        W1: feed-forward weights, shape (d_model, d), row convention (``context @ W1``).
        b1: feed-forward bias, shape (d,).
        W_U: unembedding, shape (V, d): one row per vocabulary word.
    Returns:
        tuple ``(h, logits)``: ``h = ReLU(context @ W1 + b1)``, shape (d,), float64, no
        negative entries; ``logits = W_U @ h``, shape (V,), float64.
    """
    ### BEGIN SOLUTION
    context = np.asarray(context, dtype=float)
    h = np.maximum(context @ np.asarray(W1, dtype=float) + np.asarray(b1, dtype=float), 0.0)
    logits = np.asarray(W_U, dtype=float) @ h
    return h, logits
    ### END SOLUTION

# %%
h, logits = forward(context_cat, W1, b1, W_U)
print("h      ", h.round(6))
for word, score in zip(vocab, logits):
    print(f"logit {word:>3}: {score:+.6f}")

# %% visible="forward"

# %% tests="forward"

# %% [markdown]
# ### Probabilities and the prediction
#
# Softmax (given above) turns the five logits into probabilities. The largest logit wins the
# largest share, and always picking the top word ("greedy" decoding) gives "sat". Nothing
# is looked up in a table of sentences: "sat" is simply the row of $W_U$ that points most
# nearly the same way as $h$.

# %%
probs = softmax(logits)
for word, p in zip(vocab, probs):
    print(f"p({word:>3}) = {p:.6f}  " + "#" * int(round(60 * p)))
print("greedy choice:", vocab[int(np.argmax(probs))])

# %% [markdown]
# ## 2. How wrong was the model? Cross-entropy
#
# Training needs one number that says how badly a prediction went. If the right next
# word is `target`, the **cross-entropy loss** is $L = -\log p_{\text{target}}$ (natural
# log, so the unit is nats). It is 0 when the model was certain and right, and it grows
# without limit as the probability of the right word shrinks towards 0.
#
# **Computing it safely.** Taking `np.log(softmax(logits)[target])` fails exactly when the
# model is badly wrong: with logits $(1000, 0)$ and target 1, the probability $e^{-1000}$ is
# far below the smallest positive float, softmax returns 0, and $-\log 0 = \infty$. Take
# the logarithm *before* anything underflows instead:
#
# $$-\log p_t = -\log \frac{e^{z_t}}{\sum_j e^{z_j}} = \log \sum_j e^{z_j} - z_t,$$
#
# and compute the **log-sum-exp** with the same shift as softmax: with $m = \max_j z_j$,
# $\log \sum_j e^{z_j} = m + \log \sum_j e^{z_j - m}$. The largest term of the sum is now
# $e^0 = 1$, so the sum lies between 1 and $V$ and its logarithm is harmless. For
# $(1000, 0)$ and target 1 the loss comes out as $1000 + \log(1 + e^{-1000}) - 0 = 1000$.

# %% solution="cross_entropy"
def cross_entropy(logits, target):
    """Cross-entropy of the softmax of ``logits`` for the right token ``target``.

    Args:
        logits: scores, shape (V,), float (any size, e.g. 1000 or -1000).
        target: index of the right next token, int in [0, V).
    Returns:
        float: ``-log softmax(logits)[target]`` in nats, computed as log-sum-exp minus the
        target's logit, so it stays finite (logits (1000, 0), target 1 give 1000.0).
    """
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=float)
    top = np.max(z)
    log_sum_exp = top + np.log(np.sum(np.exp(z - top)))
    return float(log_sum_exp - z[target])
    ### END SOLUTION

# %%
loss = cross_entropy(logits, SAT)
print(f"loss for target 'sat': {loss:.6f} nats   (p_sat = {np.exp(-loss):.6f})")

# %% visible="cross_entropy"

# %% tests="cross_entropy"

# %% [markdown]
# ## 3. Which way should the logits move? $p - y$
#
# Write $y$ for the **one-hot** target: 1 at the right word, 0 elsewhere. With
# $L = \log \sum_j e^{z_j} - z_t$, differentiate one logit $z_i$:
#
# * the log-sum-exp term gives $e^{z_i} / \sum_j e^{z_j} = p_i$ (the softmax, again);
# * the term $-z_t$ gives $-1$ when $i = t$ and $0$ otherwise, which is $-y_i$.
#
# So $\partial L / \partial z_i = p_i - y_i$. Read it as a to-do list. For the right word
# the entry is $p_t - 1 < 0$: the loss falls if its logit rises, and it is far from 0 when
# the model gave that word little probability. For every other word it is $p_i > 0$:
# lower that logit, more so the more probability it took. The entries always add up to 0.

# %% solution="grad_logits"
def grad_logits(logits, target):
    """Gradient of the cross-entropy with respect to the logits.

    Args:
        logits: scores, shape (V,), float.
        target: index of the right next token, int.
    Returns:
        ndarray of shape (V,), float64: ``softmax(logits) - one_hot(target)``; entries sum to 0.
    """
    ### BEGIN SOLUTION
    g = softmax(logits)
    g[target] -= 1.0
    return g
    ### END SOLUTION

# %%
g = grad_logits(logits, SAT)
for word, gi in zip(vocab, g):
    print(f"dL/dlogit_{word:<3} = {gi:+.6f}")

# %% visible="grad_logits"

# %% tests="grad_logits"

# %% [markdown]
# ## 4. Down to the weights of $W_U$
#
# Weight $W_U[i, j]$ appears in exactly one logit: $z_i = \sum_j W_U[i, j]\, h_j$, so
# $\partial z_i / \partial W_U[i, j] = h_j$. The chain rule multiplies the two factors:
#
# $$\frac{\partial L}{\partial W_U[i, j]} = (p_i - y_i)\, h_j .$$
#
# Every row gets a gradient, not only the right word's row: the wrong words are pushed
# away from $h$ just as the right one is pulled towards it. The whole matrix is the
# **outer product** of the two vectors, shape (V, d), the same shape as $W_U$.
#
# For the weight $W_U[\text{sat}, 0]$: $(p_{\text{sat}} - 1)\, h_0 = -0.420948 \times 1.669762
# = -0.702883$.

# %% solution="grad_unembedding"
def grad_unembedding(h, logits, target):
    """Gradient of the cross-entropy with respect to every weight of the unembedding.

    Args:
        h: the hidden vector the logits were computed from, shape (d,), float.
        logits: ``W_U @ h``, shape (V,), float.
        target: index of the right next token, int.
    Returns:
        ndarray of shape (V, d), float64: entry [i, j] is ``(p_i - y_i) * h_j``.
    """
    ### BEGIN SOLUTION
    return np.outer(grad_logits(logits, target), np.asarray(h, dtype=float))
    ### END SOLUTION

# %%
G = grad_unembedding(h, logits, SAT)
print("dL/dW_U =\n", G.round(6))
print("dL/dW_U[sat, 0] =", round(G[SAT, 0], 6))

# %% visible="grad_unembedding"

# %% tests="grad_unembedding"

# %% [markdown]
# ## 5. One step downhill
#
# The gradient points in the direction in which the loss *grows* fastest, so gradient
# descent moves every weight a little the other way: $W \leftarrow W - \eta\, \nabla L$,
# with a small **learning rate** $\eta$. Write `sgd_update` so that it returns a new array
# and leaves the one it was given alone: the caller may still need the old weights (to
# compare before and after, as below).
#
# To watch a single weight learn, hand `sgd_update` a gradient that is zero everywhere
# except at $W_U[\text{sat}, 0]$. With $\eta = 0.5$ that weight moves from $1.0$ to
# $1.0 - 0.5 \times (-0.702883) = 1.351441$.

# %% solution="sgd_update"
def sgd_update(W, grad, lr):
    """One step of gradient descent.

    Args:
        W: current weights, ndarray of any shape, float.
        grad: the gradient of the loss with respect to ``W``, same shape.
        lr: learning rate, float > 0.
    Returns:
        a NEW ndarray ``W - lr * grad`` (float64, same shape); ``W`` itself is not modified.
    """
    ### BEGIN SOLUTION
    return np.asarray(W, dtype=float) - lr * np.asarray(grad, dtype=float)
    ### END SOLUTION

# %%
one_entry = np.zeros_like(W_U)
one_entry[SAT, 0] = G[SAT, 0]
W_U_after = sgd_update(W_U, one_entry, lr=0.5)


def compare_step(W_before, W_after):
    """Print the "sat" weight, logit, probability and loss before and after a step."""
    for label, W in (("before", W_before), ("after ", W_after)):
        _, z = forward(context_cat, W1, b1, W)
        print(f"{label}: W_U[sat,0] = {W[SAT, 0]:.6f}   logit_sat = {z[SAT]:.6f}   "
              f"p_sat = {softmax(z)[SAT]:.6f}   loss = {cross_entropy(z, SAT):.6f}")


compare_step(W_U, W_U_after)

# %% visible="sgd_update"

# %% tests="sgd_update"

# %% [markdown]
# One weight, one step, and the loss drops from about 0.546 to about 0.340. Training a real
# model is this step repeated for every weight at once, over enormous numbers of examples.
#
# **Questions** (answer in the cell below).
#
# 1. The "sat" weight went *up* although we subtracted. Why? What happens to a weight in
#    the row of a wrong word, say "the"?
# 2. Predict what happens with $\eta = 50$ instead of $0.5$ (then try it with
#    `compare_step`). Why do practitioners keep learning rates small?
# 3. Use the whole of `G` instead of `one_entry` for one step. Does the loss drop more or
#    less than with the single weight, and why would you expect that?

# %% [markdown]
# *Your answers here.*

# %% [markdown]
# ## 6. Is the derivative right? A numerical check
#
# A derivative worked out on paper is easy to get subtly wrong (a sign, a missing factor),
# and the code still runs. A derivative can also be *measured*: nudge one weight by a
# tiny $\varepsilon$ each way and watch the loss,
#
# $$\frac{\partial L}{\partial W[\text{index}]} \approx
#   \frac{L(W + \varepsilon e) - L(W - \varepsilon e)}{2\varepsilon},$$
#
# where $e$ is 1 at `index` and 0 everywhere else: **only that one entry moves**. This
# central difference is much more accurate than the one-sided $(L(W + \varepsilon e) -
# L(W))/\varepsilon$: its error shrinks like $\varepsilon^2$ rather than $\varepsilon$.
#
# `loss_fn` is any function from a matrix to a number. Perturb a copy (or put the entry
# back afterwards): the caller's `W` must come back exactly as it was.

# %% solution="numerical_gradient"
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    """Central-difference estimate of one partial derivative of ``loss_fn`` at ``W``.

    Args:
        loss_fn: a function taking an array shaped like ``W`` and returning a float.
        W: the point, ndarray of any shape, float. Left unchanged.
        index: a tuple, the entry of ``W`` to nudge, e.g. ``(2, 0)``.
        eps: the size of the nudge (float > 0).
    Returns:
        float: ``(loss_fn(W + eps e) - loss_fn(W - eps e)) / (2 * eps)``, where ``e`` is 1
        at ``index`` and 0 elsewhere.
    """
    ### BEGIN SOLUTION
    nudged = np.array(W, dtype=float)
    nudged[index] += eps
    above = loss_fn(nudged)
    nudged[index] -= 2 * eps
    below = loss_fn(nudged)
    return float((above - below) / (2 * eps))
    ### END SOLUTION

# %%
def loss_of_unembedding(W):
    """The loss of the "the cat" -> "sat" example, as a function of W_U alone."""
    _, z = forward(context_cat, W1, b1, W)
    return cross_entropy(z, SAT)


measured = numerical_gradient(loss_of_unembedding, W_U, (SAT, 0))
print(f"measured {measured:.6f}   worked out {G[SAT, 0]:.6f}")

# %% visible="numerical_gradient"

# %% tests="numerical_gradient"

# %% [markdown]
# One entry agreeing could be luck. The cell below measures every entry of $W_U$ and
# compares the whole matrix with `grad_unembedding`.

# %%
def gradient_check(W):
    """Largest gap between the measured and the worked-out gradient of every entry of W."""
    measured = np.zeros_like(W)
    for index in np.ndindex(*W.shape):
        measured[index] = numerical_gradient(loss_of_unembedding, W, index)
    h_W, z = forward(context_cat, W1, b1, W)
    worked_out = grad_unembedding(h_W, z, SAT)
    return np.max(np.abs(measured - worked_out))


print(f"largest difference over all {W_U.size} weights: {gradient_check(W_U):.2e}")

# %% [markdown]
# **Questions.**
#
# 4. Why not simply compute every gradient numerically and skip the calculus? Count the
#    loss evaluations a model with a hundred million weights would need for one step.
# 5. Try `eps=1e-1` and `eps=1e-12` on `W_U[sat, 0]`. Why does the estimate get worse at
#    both ends?

# %% [markdown]
# *Your answers here.*

# %% summary=true
