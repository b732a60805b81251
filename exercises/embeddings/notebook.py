# %% [markdown]
# # Embeddings: meaning as a direction
#
# A model cannot do arithmetic on the word "soup". Before anything else happens, every piece
# of text is swapped for a vector of numbers, its **embedding**, and the vectors are laid out
# so that texts about the same thing point the same way. This notebook is about the one
# measurement that makes such vectors useful, the cosine of the angle between two of them,
# and the search engine you get almost for free once you have it.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `cosine_similarity(a, b)` | how closely two vectors point the same way, from -1 to 1 |
# | `cosine_similarity_matrix(A, B)` | the same for every row of `A` against every row of `B` |
# | `semantic_search(query, documents, k)` | the `k` documents closest in direction to the query |
#
# Conventions: one vector per **row**, so a stack of `n` embeddings of width `d` has shape
# `(n, d)`. Arrays are numpy `float64`.
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
# Near the end you train a ten-word language model from scratch (it takes under a second)
# and watch your own functions discover that two of its words mean nearly the same thing.

# %% module=true
import functools
import re

import numpy as np

# %% checker=true

# %% [markdown]
# ## 1. Direction, not length
#
# Suppose a document's vector is built by adding up one vector per word it contains. Write
# the same note twice in a row and every entry doubles: the vector gets twice as long, yet the
# note says nothing new. A short question and a long answer about the same subject should
# count as close even though one vector is much longer than the other. So length is noise
# here, and the information is in the **direction**.
#
# The dot product alone mixes the two: $a \cdot b = \lVert a \rVert \, \lVert b \rVert \cos\theta$,
# where $\theta$ is the angle between the vectors and $\lVert a \rVert = \sqrt{a \cdot a}$ is a
# length. Divide by **both** lengths and only the angle is left:
#
# $$\cos(a, b) = \frac{a \cdot b}{\lVert a \rVert \, \lVert b \rVert}.$$
#
# * $1$: same direction. $(1, 2, 2)$ and $(2, 4, 4)$ score exactly 1, although one is twice
#   the other.
# * $0$: perpendicular, nothing in common. $-1$: opposite directions.
#
# Two edge cases are part of the contract:
#
# * A **zero vector** has no direction at all, and the formula would compute $0/0$, which
#   numpy turns into `nan` (with a warning). A `nan` poisons everything it touches: sorting,
#   averages, comparisons. Return `0.0` instead, the convention scikit-learn uses too.
# * Vectors with **different numbers of entries** come from different embedding models, or
#   from a bug; comparing them means nothing. Raise `ValueError`. (Careful: numpy
#   broadcasting will happily multiply an array of 1 entry with an array of 3.)

# %% solution="cosine_similarity"
def cosine_similarity(a, b):
    """Cosine of the angle between two vectors.

    Args:
        a: 1-D array-like of floats, shape (d,).
        b: 1-D array-like of floats, shape (d,), as many entries as ``a``.
    Returns:
        float in [-1, 1]: ``a . b / (|a| |b|)``; ``0.0`` when either vector is all zeros.
    Raises:
        ValueError: when ``a`` and ``b`` are not 1-D vectors with the same number of entries.
    """
    ### BEGIN SOLUTION
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"cosine_similarity needs two 1-D vectors of one size, got shapes {a.shape} and {b.shape}")
    lengths = np.linalg.norm(a) * np.linalg.norm(b)
    if lengths == 0.0:
        return 0.0
    return float(np.clip(a @ b / lengths, -1.0, 1.0))
    ### END SOLUTION

# %% visible="cosine_similarity"

# %% tests="cosine_similarity"

# %% [markdown]
# ## 2. Every pair at once
#
# A search engine compares one query with thousands of documents, and a heatmap compares
# every document with every other. Calling `cosine_similarity` in a double loop works, but
# there is a neater route: divide every row by its own length first (each row becomes a
# **unit vector**, length 1), and then a single matrix product holds all the cosines,
#
# $$S = \hat A \, \hat B^\top, \qquad S_{ij} = \cos(A_i, B_j),$$
#
# because the dot product of two unit vectors *is* their cosine. With `A` of shape `(n, d)`
# and `B` of shape `(m, d)`, `S` has shape `(n, m)`: row `i` holds row `i` of `A` compared with
# every row of `B`. The zero-vector rule carries over: a row of zeros stays a row of zeros
# instead of being divided by 0, so its cosines come out as 0.
#
# Hint: `np.linalg.norm(M, axis=1, keepdims=True)` gives the row lengths as a column.

# %% solution="cosine_similarity_matrix"
def cosine_similarity_matrix(A, B):
    """Cosine similarity of every row of ``A`` with every row of ``B``.

    Args:
        A: 2-D array-like of floats, shape (n, d): one vector per row.
        B: 2-D array-like of floats, shape (m, d).
    Returns:
        ndarray of shape (n, m), float64: entry [i, j] is the cosine of ``A[i]`` and ``B[j]``,
        in [-1, 1]; ``0.0`` wherever either row is all zeros.
    Raises:
        ValueError: when ``A`` and ``B`` are not 2-D or their rows differ in length.
    """
    ### BEGIN SOLUTION
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"cosine_similarity_matrix needs (n, d) and (m, d) arrays, got {A.shape} and {B.shape}")

    def unit_rows(M):
        lengths = np.linalg.norm(M, axis=1, keepdims=True)
        return np.divide(M, lengths, out=np.zeros_like(M), where=lengths > 0)

    return np.clip(unit_rows(A) @ unit_rows(B).T, -1.0, 1.0)
    ### END SOLUTION

# %%
# Two small stacks: the grid has shape (n, m), and entry [i, j] is cosine_similarity(A[i], B[j]).
_A = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 1.0]])
_B = np.array([[2.0, 4.0, 4.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
print(np.round(cosine_similarity_matrix(_A, _B), 4))

# %% visible="cosine_similarity_matrix"

# %% tests="cosine_similarity_matrix"

# %% [markdown]
# ## 3. A meaning space you can read
#
# Real embedding models produce hundreds of numbers per text, and no single number means
# anything you could name. To see what is going on, here is a space small enough to read:
# four numbers per word, which we pretend measure how much a word is about **food**,
# **money** and **weather**, plus an **everyday** component that most words share (real
# embeddings have such a shared component too; it is why two unrelated texts rarely score
# exactly 0).
#
# The values were set by hand. A text's vector is the **sum** of the vectors of the words it
# knows; other words ("the", "and", ...) add nothing. So a longer text gets a longer vector,
# which is exactly the situation of section 1 (*Direction, not length*).

# %%
#                  food  money  weather  everyday
LEXICON = {
    "bread":    (0.9, 0.1, 0.0, 0.4), "bakery":   (0.8, 0.2, 0.0, 0.4),
    "soup":     (1.0, 0.0, 0.1, 0.4), "cheese":   (0.9, 0.0, 0.0, 0.4),
    "sandwich": (0.9, 0.1, 0.0, 0.5), "sandwiches": (0.9, 0.1, 0.0, 0.5),
    "lunch":    (0.8, 0.1, 0.0, 0.6), "pasta":    (0.9, 0.0, 0.0, 0.4),
    "recipe":   (0.8, 0.0, 0.0, 0.4), "dinner":   (0.9, 0.0, 0.0, 0.6),
    "hungry":   (0.9, 0.0, 0.0, 0.5), "tea":      (0.7, 0.0, 0.1, 0.5),
    "bank":     (0.0, 1.0, 0.0, 0.4), "loan":     (0.0, 1.0, 0.0, 0.3),
    "rent":     (0.1, 0.9, 0.0, 0.5), "tuition":  (0.0, 0.9, 0.0, 0.4),
    "budget":   (0.1, 0.9, 0.0, 0.4), "savings":  (0.0, 1.0, 0.0, 0.4),
    "afford":   (0.1, 0.9, 0.0, 0.5), "cheap":    (0.2, 0.8, 0.0, 0.5),
    "rain":     (0.0, 0.0, 1.0, 0.4), "rainy":    (0.0, 0.0, 0.9, 0.5),
    "wind":     (0.0, 0.0, 0.9, 0.4), "sunny":    (0.0, 0.0, 0.9, 0.5),
    "warm":     (0.1, 0.0, 0.8, 0.5), "forecast": (0.0, 0.1, 0.9, 0.3),
    "snow":     (0.0, 0.0, 1.0, 0.4), "cold":     (0.1, 0.0, 0.8, 0.5),
    "umbrella": (0.0, 0.0, 0.9, 0.4),
}

# (short label, text): three short texts per topic, then one long text about food.
DOCUMENTS = [
    ("bakery", "fresh bread from the bakery every morning"),
    ("lunch", "hot soup and a cheese sandwich for lunch"),
    ("recipe", "a quick pasta recipe for a weeknight dinner"),
    ("loan", "the bank approved my student loan"),
    ("rent", "rent and tuition are due at the start of term"),
    ("budget", "a monthly budget helps your savings grow"),
    ("rain", "heavy rain and strong wind expected tonight"),
    ("sunny", "a sunny and warm weekend forecast"),
    ("snow", "snow and cold air arrive on Monday"),
    ("menu", "on a rainy day our cafe menu offers soup, bread, pasta, cheese, "
             "sandwiches and tea for lunch or dinner"),
]


def embed_text(text):
    """Vector of ``text`` in the hand-made space: the sum of its known words' vectors, shape (4,)."""
    vector = np.zeros(4)
    for word in re.findall(r"[a-z]+", text.lower()):
        vector += LEXICON.get(word, 0.0)
    return vector


DOC_LABELS = [label for label, _ in DOCUMENTS]
DOC_VECTORS = np.array([embed_text(text) for _, text in DOCUMENTS])

# %% [markdown]
# ### The similarity heatmap
#
# Compare every document with every other and colour the grid. If the space captures topics,
# the grid shows **blocks**: bright squares along the diagonal where texts share a topic, and
# darker cells where they do not.

# %% demo=true
def show_heatmap(S, labels, title, row_labels=None):
    """Draw a grid of cosine similarities, one cell per pair, with its value written in it."""
    import matplotlib.pyplot as plt
    S = np.asarray(S, dtype=float)
    rows = labels if row_labels is None else row_labels
    fig, ax = plt.subplots(figsize=(0.55 * len(labels) + 2.2, 0.5 * len(rows) + 1.4))
    image = ax.imshow(S, cmap="magma", vmin=-1, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i in range(S.shape[0]):
        for j in range(S.shape[1]):
            ax.text(j, i, f"{S[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="black" if S[i, j] > 0.3 else "white")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="cosine")
    fig.tight_layout()
    plt.show()


show_heatmap(cosine_similarity_matrix(DOC_VECTORS, DOC_VECTORS), DOC_LABELS,
             "cosine similarity of the documents")

# %% [markdown]
# Three bright blocks: food, money, weather. The long "menu" text sits with the food block
# even though its vector is more than twice as long as any food text's, and its one mention
# of a rainy day gives it a slightly warmer row against the weather texts.

# %% [markdown]
# ## 4. Semantic search
#
# Search by meaning is now three steps: embed the query, score every document by its cosine
# with the query, and keep the best `k`. No word of the query has to appear in the document;
# it only has to point the same way.
#
# The contract of `semantic_search`:
#
# * it returns a **list of `(index, score)` pairs**: the document's row number (an `int`)
#   and its cosine with the query (a `float`);
# * **highest score first**;
# * documents with **equal scores** come in order of their index, lower first (sorting is
#   easy to get backwards here: `np.argsort` sorts from low to high, and reversing its
#   result also reverses the order of ties);
# * if `k` is larger than the number of documents, return all of them.
#
# Hint: `np.argsort(-scores, kind="stable")` sorts from high to low and keeps tied entries
# in their original order.

# %% solution="semantic_search"
def semantic_search(query, documents, k):
    """The ``k`` documents whose vectors point most nearly the same way as ``query``.

    Args:
        query: 1-D array-like of floats, shape (d,).
        documents: 2-D array-like of floats, shape (n, d): one document vector per row.
        k: how many results to return (int, at least 1).
    Returns:
        list of ``min(k, n)`` pairs ``(index, score)``: ``index`` an int row of ``documents``,
        ``score`` its cosine similarity with ``query`` (float). Sorted by score, highest
        first; equal scores in order of index, lowest first. (Copies of one document can
        come out of a matrix product a rounding error apart, 1e-16 or so; such near-ties
        may be ordered either way.)
    """
    ### BEGIN SOLUTION
    query = np.asarray(query, dtype=float)
    scores = cosine_similarity_matrix(query[None, :], documents)[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]
    ### END SOLUTION

# %%
def search(question, k=3):
    """Print the ``k`` best documents for ``question``, embedded in the hand-made space."""
    print(f"query: {question!r}")
    for index, score in semantic_search(embed_text(question), DOC_VECTORS, k):
        print(f"  {score:+.3f}  [{index}] {DOCUMENTS[index][1]}")


def rank_by_dot_product(question, k=3):
    """The same search scored by the raw dot product, to see what ignoring length costs."""
    scores = DOC_VECTORS @ embed_text(question)
    print(f"query: {question!r} (ranked by dot product)")
    for index in np.argsort(-scores, kind="stable")[:k]:
        print(f"  {scores[index]:6.2f}  [{index}] {DOCUMENTS[index][1]}")


search("do I need an umbrella")
search("I am hungry")
search("can I afford it")

# %% visible="semantic_search"

# %% tests="semantic_search"

# %% [markdown]
# Now rank the same queries by the plain dot product, the version that lets length count:

# %%
rank_by_dot_product("do I need an umbrella")
rank_by_dot_product("can I afford it")

# %% [markdown]
# The long menu text climbs into both lists (it even wins the money query) although it is
# about food: its vector is long, and its everyday component alone makes a large dot product
# with anything. Dividing by the lengths is what keeps it in its place.

# %% [markdown]
# ## 5. Where embeddings come from: a ten-word model
#
# Nobody sets real embeddings by hand. They start as random numbers and are adjusted,
# together with the rest of the model, while the model learns to predict the next word.
# Words that show up in the same surroundings get pushed in the same way, so they drift
# towards the same direction.
#
# The smallest model that shows this is the course's toy model 1, re-implemented below:
#
# * a vocabulary of 10 words and a corpus of 5 four-word sentences, in which "king" and
#   "queen" appear in exactly the same places, and "banana" somewhere else entirely;
# * the task: given two words, predict the third, which gives 10 training examples;
# * the model: an **embedding table** of shape (10, 4) (one row per word), the two context
#   rows placed side by side, one hidden layer of 12 ReLU units, and a softmax over the 10
#   words;
# * training: cross-entropy loss on all 10 examples at once, plain gradient descent with
#   learning rate 0.5 for 3,000 steps, every weight drawn from numpy's legacy generator
#   seeded with 0 (the same numbers `np.random.seed(0)` gives) and scaled by 0.3. The
#   course's run numbers its steps 0 to 3,000, so the weights get 3,001 updates; we do the
#   same, and the last update matters more than you might think (see the question below).
#
# The gradient of the embedding table reaches only the rows of words that appear as
# context: rows of words that never appear before a prediction never move.

# %% module=true
TOY_VOCAB = ("long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now")
TOY_INDEX = {word: i for i, word in enumerate(TOY_VOCAB)}
TOY_SENTENCES = ([f"long live the {royal}" for royal in ("king", "queen")]
                 + [f"the {royal} said yes" for royal in ("king", "queen")]
                 + ["peel the banana now"])


def toy_examples():
    """The toy corpus as (two-word context, next word) training pairs.

    Returns:
        ``(contexts, targets)``: int arrays of word ids, shapes (N, 2) and (N,), N = 10.
    """
    contexts, targets = [], []
    for sentence in TOY_SENTENCES:
        ids = [TOY_INDEX[word] for word in sentence.split()]
        for t in range(2, len(ids)):
            contexts.append(ids[t - 2:t])
            targets.append(ids[t])
    return np.array(contexts), np.array(targets)


def train_toy_model(steps=3001, lr=0.5, width=4, hidden=12, seed=0):
    """Train toy model 1 by full-batch gradient descent on its 10 examples.

    Args:
        steps: number of gradient updates (the course's run: steps 0 to 3000, so 3001).
        lr: learning rate.
        width: embedding width (columns of the table).
        hidden: number of ReLU units.
        seed: seed of numpy's legacy generator (``np.random.RandomState``).
    Returns:
        dict with ``"start"``, the embedding table before training, shape (10, width);
        ``"table"``, the table after training, same shape; ``"losses"``, the mean
        cross-entropy (nats) before each step, a list of ``steps`` floats; and
        ``"predict"``, a function from a two-word context to the 10 next-word probabilities.
    """
    draw = np.random.RandomState(seed)
    n_words = len(TOY_VOCAB)
    table = 0.3 * draw.randn(n_words, width)
    W_hidden = 0.3 * draw.randn(2 * width, hidden)
    b_hidden = np.zeros(hidden)
    W_out = 0.3 * draw.randn(hidden, n_words)
    b_out = np.zeros(n_words)
    start = table.copy()
    contexts, targets = toy_examples()
    n, rows = len(targets), np.arange(len(targets))

    def forward(ctx):
        x = table[ctx].reshape(len(ctx), 2 * width)          # the two context rows, side by side
        pre = x @ W_hidden + b_hidden
        h = np.maximum(pre, 0.0)
        logits = h @ W_out + b_out
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return x, pre, h, e / e.sum(axis=1, keepdims=True)

    losses = []
    for _ in range(steps):
        x, pre, h, probs = forward(contexts)
        losses.append(float(-np.log(probs[rows, targets]).mean()))
        g_logits = probs.copy()                              # d loss / d logits, averaged over examples
        g_logits[rows, targets] -= 1.0
        g_logits /= n
        g_pre = (g_logits @ W_out.T) * (pre > 0)             # back through the ReLU
        g_x = (g_pre @ W_hidden.T).reshape(n, 2, width)
        g_table = np.zeros_like(table)
        np.add.at(g_table, contexts, g_x)                    # only rows used as context get a gradient
        W_out -= lr * (h.T @ g_logits)
        b_out -= lr * g_logits.sum(axis=0)
        W_hidden -= lr * (x.T @ g_pre)
        b_hidden -= lr * g_pre.sum(axis=0)
        table -= lr * g_table

    def predict(two_words):
        ids = np.array([[TOY_INDEX[w] for w in two_words]])
        return forward(ids)[3][0]

    return {"start": start, "table": table, "losses": losses, "predict": predict}

# %%
@functools.cache
def toy_model():
    """Train toy model 1 once (well under a second) and keep the result."""
    return train_toy_model()


def report_toy_model():
    """Print the loss and two word similarities before and after training, with your cosine."""
    model = toy_model()
    king, queen, banana = (TOY_INDEX[w] for w in ("king", "queen", "banana"))
    print(f"loss before the first step: {model['losses'][0]:.3f}  (ln 10 = {np.log(10):.3f}: a uniform guess)")
    print(f"loss at step 300: {model['losses'][300]:.3f}, at step 3000: {model['losses'][3000]:.3f}")
    for name, table in (("before", model["start"]), ("after ", model["table"])):
        print(f"{name} training: king~queen {cosine_similarity(table[king], table[queen]):+.3f}"
              f"   king~banana {cosine_similarity(table[king], table[banana]):+.3f}")
    for context in (("live", "the"), ("the", "queen"), ("peel", "the")):
        probs = model["predict"](context)
        best = np.argsort(-probs)[:2]
        print(f"  {' '.join(context):>9} -> " + ", ".join(f"{TOY_VOCAB[i]} {probs[i]:.0%}" for i in best))


report_toy_model()

# %% [markdown]
# Before training, "king" and "queen" are two random rows whose cosine happens to be
# +0.577. After training it is +0.988: nearly the same direction, because the model was
# rewarded for treating them alike. "banana" was never pulled towards either; its cosine
# with "king" barely moves (-0.487, then -0.458). The starting loss, 2.276, is close to
# $\ln 10 \approx 2.303$, the loss of a model that spreads its bets evenly over 10 words.
#
# Your `semantic_search` works on the embedding table just as well as on documents: the
# "documents" are the 10 word vectors, and the query is one of them.

# %%
def nearest_words(word, k=4):
    """Print the ``k`` words whose rows are closest to ``word``'s, before and after training."""
    model = toy_model()
    for name in ("start", "table"):
        table = model[name]
        found = semantic_search(table[TOY_INDEX[word]], table, k)
        print(f"{'before' if name == 'start' else 'after ':6}: "
              + ", ".join(f"{TOY_VOCAB[i]} {score:+.2f}" for i, score in found))


nearest_words("queen")
show_heatmap(cosine_similarity_matrix(toy_model()["table"], toy_model()["table"]), list(TOY_VOCAB),
             "toy model: cosine of the trained word vectors")

# %% [markdown]
# A word is always its own nearest neighbour, with score 1. Training moves "king" from
# fourth place to second among the neighbours of "queen", and in the heatmap the two form a
# bright 2-by-2 square. The rest of the grid is less tidy than the documents' grid: four
# numbers per word and ten training examples leave a lot of the geometry to chance.
#
# **Questions** (answer in the cell below).
#
# 1. Why is it useful that $(1, 2, 2)$ and $(2, 4, 4)$ score exactly 1? Think of a short
#    question and a long document about the same thing.
# 2. Attention scores (next exercise) compare a query and a key by their dot product alone,
#    without dividing by the lengths. What does a token gain by being allowed a long vector?
# 3. In the toy model, "king" and "queen" end up with cosine +0.988 without anyone telling
#    the model they are related. Which feature of the training sentences made that happen?
#    What would you expect if "queen" never appeared in the corpus?
# 4. After "live the" the model says king 52%, queen 48%. Train with `steps=3000` instead
#    (one update fewer) and the two swap. What is the best possible answer for that context,
#    given the corpus, and what does the swapping tell you about where training has ended up?
# 5. A cosine of 0.95 between two texts does not mean they agree, or that either is true.
#    Give two sentences that would probably score high and contradict each other.
# 6. Searching a million documents of width 768 costs a million dot products per query.
#    What could you compute once, ahead of time, to make each query cheaper?

# %% [markdown]
# *Your answers here.*

# %% summary=true
