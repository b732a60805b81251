# %% [markdown]
# # Choosing the next word: greedy decoding, temperature and top-p sampling
#
# A language model never says a word. Hand it the token ids of a text and it hands back one
# score per word of its vocabulary, the **logits**, and then it forgets the call. Everything
# you experience as the model "writing" happens in a short loop *around* the model: turn the
# scores into shares, pick one word, glue its id onto the text, and ask again. This notebook
# is about that loop and the choices inside it.
#
# **Why a separate exercise.** The `next_token` notebook ends once the probabilities exist and
# the model has taken one training step: it is about *learning*. Nothing here changes a
# weight. Greedy decoding, temperature and top-p are decisions taken after training, at the
# moment of use, and they work the same on any model, so they get their own notebook, built
# on the ten-word model you trained in the embeddings notebook (toy model 1).
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `apply_temperature(logits, T)` | the shares `softmax(logits / T)`; one-hot on the top score when `T = 0` |
# | `sample_next(probs, rng)` | one token id drawn with those shares, using the generator `rng` |
# | `top_p_filter(probs, p)` | the shares of the fewest most likely tokens that reach `p`, renormalised |
# | `generate(model, prompt, n, T, rng)` | the prompt's ids followed by `n` chosen ids |
#
# Conventions: ids are `int`s; shares and scores are numpy `float64` arrays of shape `(V,)`,
# one entry per vocabulary word. Random draws come from a NumPy `Generator`
# (`np.random.default_rng(seed)`) that the caller passes in.
#
# **Visible checks.** Under each function a locked cell runs it on the course's examples and
# prints PASS, or what was expected, what came back and, when your value is the one a known
# mistake gives, the mistake's name. The last cell sums up. After you submit, hidden checks
# with cases randomized for each student grade the notebook; the ones about random draws use
# fixed seeds and bounds that a correct sampler misses less than once in a billion runs.
#
# **How it is graded:** your notebook is run as Restart & Run All runs it, every cell from top
# to bottom, and each function is checked at its hidden-test cell. A mistake in
# `apply_temperature` or `sample_next` that `generate` inherits is charged where it is made.

# %% module=true
import functools

import numpy as np


def softmax(z):
    """Shares from scores: ``exp(z - max z)`` divided by its sum (given, not graded).

    Args:
        z: 1-D array-like of floats, shape (V,).
    Returns:
        ndarray of shape (V,), float64, non-negative, summing to 1.
    """
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()

# %% checker=true

# %% [markdown]
# ## 0. The model: toy model 1 again
#
# The cell below trains the course's ten-word model exactly as the embeddings notebook did
# (numpy's legacy generator seeded with 0, 3,001 full-batch steps, learning rate 0.5): five
# four-word sentences, and the task "read two words, predict the third". The model only ever
# looks at the **last two ids** of what it is given; that window is its whole memory.
#
# `toy_model_1(ids)` is the trained model as the loop sees it: a list of ids in, ten scores
# out, nothing kept between calls.

# %% module=true
TOY_VOCAB = ("long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now")
TOY_INDEX = {word: i for i, word in enumerate(TOY_VOCAB)}
TOY_SENTENCES = tuple([f"long live the {royal}" for royal in ("king", "queen")]
                      + [f"the {royal} said yes" for royal in ("king", "queen")]
                      + ["peel the banana now"])


def train_toy_model(steps=3001, lr=0.5, width=4, hidden=12, seed=0):
    """Toy model 1 trained by full-batch gradient descent on the 10 (two words, next word) pairs.

    Args:
        steps: gradient updates (the course's run counts steps 0 to 3000: 3001 updates).
        lr: learning rate. width: embedding width. hidden: ReLU units.
        seed: seed of numpy's legacy generator (``np.random.RandomState``), drawn in the
            order table, hidden weights, output weights, each scaled by 0.3.
    Returns:
        dict of float64 arrays: ``table`` (10, width), ``W_hidden`` (2 width, hidden),
        ``b_hidden`` (hidden,), ``W_out`` (hidden, 10), ``b_out`` (10,).
    """
    draw = np.random.RandomState(seed)
    V = len(TOY_VOCAB)
    w = {"table": 0.3 * draw.randn(V, width)}
    w["W_hidden"], w["b_hidden"] = 0.3 * draw.randn(2 * width, hidden), np.zeros(hidden)
    w["W_out"], w["b_out"] = 0.3 * draw.randn(hidden, V), np.zeros(V)
    pairs = [[TOY_INDEX[word] for word in s.split()] for s in TOY_SENTENCES]
    contexts = np.array([ids[t - 2:t] for ids in pairs for t in range(2, len(ids))])
    targets = np.array([ids[t] for ids in pairs for t in range(2, len(ids))])
    n = len(targets)
    for _ in range(steps):
        x = w["table"][contexts].reshape(n, 2 * width)
        pre = x @ w["W_hidden"] + w["b_hidden"]
        h = np.maximum(pre, 0.0)
        z = h @ w["W_out"] + w["b_out"]
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g = p.copy()                                   # d(mean loss) / d logits
        g[np.arange(n), targets] -= 1.0
        g /= n
        g_pre = (g @ w["W_out"].T) * (pre > 0)
        g_x = (g_pre @ w["W_hidden"].T).reshape(n, 2, width)
        g_table = np.zeros_like(w["table"])
        np.add.at(g_table, contexts, g_x)              # only rows used as context move
        w["W_out"] -= lr * (h.T @ g)
        w["b_out"] -= lr * g.sum(axis=0)
        w["W_hidden"] -= lr * (x.T @ g_pre)
        w["b_hidden"] -= lr * g_pre.sum(axis=0)
        w["table"] -= lr * g_table
    return w


def toy_scores(weights, ids):
    """The ten logits toy model 1 gives after the last two of ``ids`` (a list of ints, length >= 2)."""
    x = weights["table"][list(ids)[-2:]].reshape(-1)
    return np.maximum(x @ weights["W_hidden"] + weights["b_hidden"], 0.0) @ weights["W_out"] + weights["b_out"]

# %%
@functools.cache
def toy_weights():
    """Train toy model 1 once (a fraction of a second) and keep its weights."""
    return train_toy_model()


def toy_model_1(ids):
    """The trained toy model as a stateless function: token ids in, ten logits out."""
    return toy_scores(toy_weights(), ids)


def ids_of(text):
    return [TOY_INDEX[word] for word in text.split()]


def text_of(ids):
    return " ".join(TOY_VOCAB[i] for i in ids)


LIVE_THE = toy_model_1(ids_of("live the"))
for word, score in sorted(zip(TOY_VOCAB, LIVE_THE), key=lambda pair: -pair[1]):
    print(f"{word:>7} {score:+8.4f}")

# %% [markdown]
# After "live the" the scores of "king" and "queen" are both near 9 and less than a tenth
# apart: the corpus continues "long live the" with each of them once, so the model is right
# to be torn. Every other word scores far below.

# %% [markdown]
# ## 1. Temperature: one knob on the die
#
# Softmax turns scores into shares. **Temperature** $T$ divides the scores first:
#
# $$p_i = \frac{e^{z_i / T}}{\sum_j e^{z_j / T}}.$$
#
# * $T = 1$ leaves the model's own shares.
# * $T < 1$ stretches the gaps between scores, so the leader takes more.
# * $T > 1$ shrinks the gaps, so the shares drift towards equal, the poor options included.
# * As $T$ falls towards 0 the leader's share goes to 1. We define $T = 0$ as exactly that
#   limit, **greedy** choice: share 1 for the top score, 0 for the rest (and no division by
#   zero). When several scores tie for the top, the first of them (the lowest id) wins, as
#   `np.argmax` does.
# * A negative $T$ would turn the ranking upside down. It means nothing, so refuse it: raise
#   `ValueError` with a message that says what was wrong.
#
# Temperature only ever divides the **scores**; it does not touch the shares after the
# softmax. Dividing shares by $T$ gives numbers that no longer sum to 1, and renormalising
# them simply undoes the division. Two scores that differ by $\Delta$ give shares whose ratio
# is $e^{\Delta / T}$; nothing else about them matters.
#
# Watch for overflow: at a small $T$ the divided scores can be in the thousands. The given
# `softmax` subtracts the largest score before exponentiating, which keeps it safe.

# %% solution="apply_temperature"
def apply_temperature(logits, T):
    """Next-token shares at temperature ``T``.

    Args:
        logits: 1-D array-like of floats, shape (V,): the model's scores.
        T: temperature, a float >= 0.
    Returns:
        ndarray of shape (V,), float64, summing to 1: ``softmax(logits / T)``; for ``T == 0``
        the greedy choice, 1.0 at the largest score (the first one, as ``np.argmax``, when
        several tie) and 0.0 elsewhere.
    Raises:
        ValueError: when ``T`` is negative.
    """
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=float)
    if T < 0:
        raise ValueError(f"the temperature must be 0 or more, got T = {T}")
    if T == 0:
        greedy = np.zeros(len(z))
        greedy[int(np.argmax(z))] = 1.0
        return greedy
    return softmax(z / T)
    ### END SOLUTION

# %%
for T in (0, 0.5, 1, 2):
    shares = apply_temperature(LIVE_THE, T)
    print(f"T = {T:<3}  king {shares[TOY_INDEX['king']]:6.1%}   queen {shares[TOY_INDEX['queen']]:6.1%}"
          f"   banana {shares[TOY_INDEX['banana']]:.2%}")

# %% [markdown]
# The split at the fork is 52.3 / 47.7 at $T = 1$. Halving the temperature sharpens it to
# 54.5 / 45.5; doubling it flattens it to 50.2 / 47.9, and "banana", a word that never follows
# "live the", climbs from under a hundredth of a percent to about half a percent.
#
# The same knob on the "the cat" example of the next-token notebook, where "sat" leads "the"
# by exactly one logit (0.5791 against 0.2130 at $T = 1$):

# %%
THE_CAT_LOGITS = np.array([1.669762, 1.0, 2.669762, -0.669762, 0.669762])   # the cat sat ran mat
for T in (0.5, 1, 2, 5, 20):
    sat, the = apply_temperature(THE_CAT_LOGITS, T)[[2, 0]]
    print(f"T = {T:<4} sat {sat:.4f}  the {the:.4f}  gap {sat - the:.4f}  ratio {sat / the:.3f}")

# %% visible="apply_temperature"

# %% tests="apply_temperature"

# %% [markdown]
# ## 2. Rolling the weighted die
#
# Greedy decoding always says the same thing. **Sampling** draws the next id at random with
# the shares as its odds: "king" about 52 times in 100, "queen" about 48.
#
# Draw with the `Generator` you are given, `rng`, and nothing else: `rng.choice(len(probs),
# p=probs)` does it in one call, or compare one `rng.random()` with the running total of the
# shares. Do **not** use `np.random.choice` or Python's `random`: those read a hidden global
# state, so two runs that were meant to be the same (same `rng` seed) come out different,
# and two callers with their own generators disturb each other. Passing the generator in is
# what makes a run reproducible: the same seed gives the same draws.
#
# Return the id as a plain `int`.
#
# **What the checks judge.** A draw cannot be compared with one right answer, so the hidden
# checks judge what makes a sampler a sampler, each for a point of its own:
#
# * *it draws from `rng`*: after your draws the generator has moved on, a generator of the same
#   seed that moved on beforehand gives other draws, and the same seed gives the same draws
#   whatever numpy's global state;
# * *the counts follow the shares*, on skewed shares (0.2/0.7/0.1) as well as near-even ones,
#   with enough draws that a rule which only favours the larger share roughly right is caught;
# * *each draw is independent of the ones before it*: keep nothing between calls;
# * *the counts vary as chance makes them*: a sampler that hands out each token exactly as
#   often as its share (a counter, a fixed sequence) is not drawing at random.
#
# Any correct way of drawing passes: `rng.choice`, a running total, `np.searchsorted` on the
# cumulative shares, walking them from either end, the Gumbel-max trick, `rng.multinomial`.
# Each check is set so that a correct sampler fails it less than once in a billion runs.

# %% solution="sample_next"
def sample_next(probs, rng):
    """Draw one token id with the given shares.

    Args:
        probs: 1-D array-like of floats, shape (V,): non-negative shares summing to 1.
        rng: a ``numpy.random.Generator``; the only source of randomness used.
    Returns:
        int in ``range(V)``: id ``i`` with probability ``probs[i]``.
    """
    ### BEGIN SOLUTION
    probs = np.asarray(probs, dtype=float)
    return int(rng.choice(len(probs), p=probs / probs.sum()))
    ### END SOLUTION

# %% demo=true
# Demo (runs here, skipped when grading): 10,000 draws with your sample_next.
_rng = np.random.default_rng(2024)
_shares = apply_temperature(LIVE_THE, 1)
_draws = [sample_next(_shares, _rng) for _ in range(10_000)]
print("queen drawn in", f"{_draws.count(TOY_INDEX['queen']) / len(_draws):.1%}", "of 10,000 rolls at T = 1")
print("same seed, same draws:",
      [sample_next(_shares, np.random.default_rng(7)) for _ in range(3)] ==
      [sample_next(_shares, np.random.default_rng(7)) for _ in range(3)])

# %% visible="sample_next"

# %% tests="sample_next"

# %% [markdown]
# ## 3. Top-p: cut off the long tail
#
# Temperature makes every word more or less likely but never rules one out: at $T = 2$
# "banana" gets half a percent, and over a long reply such rare picks add up. **Top-p**
# (nucleus) sampling keeps only the most likely words:
#
# 1. sort the shares from largest to smallest;
# 2. keep the fewest words, from the top, whose shares add up to **at least** `p`. The word
#    whose share makes the total reach `p` is kept: with shares 0.58, 0.21, 0.11 and
#    `p = 0.75`, the first two are kept (0.58 alone falls short);
# 3. set every other share to 0 and divide the kept ones by their sum, so they add up to 1
#    again (the die must still be a die).
#
# Details of the contract:
#
# * the result has the same length and order as `probs` (shares, not a list of ids);
# * when words tie in share, the one with the lower id comes first in the sorted order
#   (`np.argsort(-probs, kind="stable")` does this; reversing an ascending sort does not);
# * the running total is compared with `p` exactly as floating point computes it, with no
#   allowance for rounding: shares 0.4, 0.3, 0.2, 0.1 with `p = 0.9` add up to
#   0.8999999999999999 after three words, which falls short of 0.9, so all four are kept
#   (`np.cumsum(...) < p` counts the words that fall short). The graded cases keep `p` well
#   away from every running total (other than `p = 1`), so a comparison that allows for
#   rounding passes them too;
# * `p = 1` keeps every word, even if rounding makes the shares add up to a hair under 1;
# * `p` must satisfy $0 < p \le 1$; anything else raises `ValueError`.

# %% solution="top_p_filter"
def top_p_filter(probs, p):
    """The shares of the smallest set of most likely tokens whose shares reach ``p``, renormalised.

    Args:
        probs: 1-D array-like of floats, shape (V,): non-negative shares summing to 1.
        p: the share to reach, 0 < p <= 1.
    Returns:
        ndarray of shape (V,), float64, summing to 1: tokens outside the set get 0.0, the
        ones inside their share divided by the set's total. The set is the first k tokens in
        order of decreasing share (ties: lower id first), k the smallest count whose shares
        add up to p or more (the token that crosses p is kept); p = 1 keeps every token.
    Raises:
        ValueError: when p is not in (0, 1].
    """
    ### BEGIN SOLUTION
    probs = np.asarray(probs, dtype=float)
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p}")
    order = np.argsort(-probs, kind="stable")
    total = np.cumsum(probs[order])
    k = len(probs) if p >= 1 else min(int(np.sum(total < p)) + 1, len(probs))
    kept = np.zeros_like(probs)
    kept[order[:k]] = probs[order[:k]]
    return kept / kept.sum()
    ### END SOLUTION

# %%
for T in (1, 2):
    kept = top_p_filter(apply_temperature(LIVE_THE, T), 0.9)
    print(f"T = {T}, top-p 0.9 keeps:", {TOY_VOCAB[i]: round(float(s), 4) for i, s in enumerate(kept) if s > 0})

# %% visible="top_p_filter"

# %% tests="top_p_filter"

# %% [markdown]
# ## 4. The loop
#
# `generate(model, prompt, n, T, rng)` runs the model `n` times. At each step:
#
# 1. call `model(ids)` with the **whole** list of ids so far (the model decides what it reads;
#    toy model 1 looks at the last two, a real model at all of them);
# 2. turn the scores into shares with `apply_temperature(scores, T)`;
# 3. choose: with `T = 0` the greedy id, the one with share 1 (no random draw); otherwise
#    `sample_next(shares, rng)`;
# 4. append the chosen id and go round again.
#
# Return the prompt followed by the `n` new ids, as a list of `int`s, and leave the caller's
# `prompt` list as it was (work on a copy). The toy has no end-of-text token, so the loop
# stops after `n` steps; a real model also stops when it picks its end token.
#
# Every draw comes from the `rng` you are given, never from a generator of your own: the hidden
# checks run `generate` with generators of the same seed and expect the same text, with other
# seeds and expect other texts, check that `rng` has moved on, and compare your texts with those
# of a fresh run of your notebook, so nothing `generate` keeps between calls (a global, a
# cache) may change what it returns.

# %% solution="generate"
def generate(model, prompt, n, T, rng):
    """Extend ``prompt`` by ``n`` token ids chosen one at a time.

    Args:
        model: a function from a list of token ids to the next-token logits, shape (V,); it
            keeps nothing between calls.
        prompt: list of int token ids (not changed).
        n: number of ids to add (int >= 0).
        T: temperature (float >= 0); 0 means greedy decoding.
        rng: a ``numpy.random.Generator`` for the draws (unused, and may be None, when T == 0).
    Returns:
        list of ``len(prompt) + n`` ints: the prompt, then the chosen ids in order.
    """
    ### BEGIN SOLUTION
    ids = [int(i) for i in prompt]
    for _ in range(n):
        shares = apply_temperature(model(ids), T)
        ids.append(int(np.argmax(shares)) if T == 0 else sample_next(shares, rng))
    return ids
    ### END SOLUTION

# %% demo=true
# Demo (runs here, skipped when grading): your generate, greedy, sampled, and 1,000 short runs.
print("greedy:", text_of(generate(toy_model_1, ids_of("long live"), 4, 0, None)))
for seed in range(5):
    print(f"seed {seed}, T = 1:", text_of(generate(toy_model_1, ids_of("long live"), 4, 1, np.random.default_rng(seed))))
_queens = sum(generate(toy_model_1, ids_of("long live"), 2, 1, np.random.default_rng(s))[3] == TOY_INDEX["queen"]
              for s in range(1000))
print(f"queen at the fork in {_queens} of 1,000 runs")

# %% visible="generate"

# %% tests="generate"

# %% [markdown]
# Greedy decoding from "long live" says "long live the king said yes" every time. With
# $T = 1$ about half the runs say "queen" instead, and the rest of the sentence follows,
# because after "the queen" the model is as sure of "said" as after "the king". Notice also
# what the model cannot do: at the last step it reads only "king said" (or "queen said"); the
# words before are gone from its window.
#
# **Questions** (answer in the cell below).
#
# 1. Temperature changes how often each word is picked. Can it make the model pick a word it
#    has never seen after this context in a *sensible* way, or produce an idea the scores do
#    not already contain? What does a high $T$ really change? (Look at "banana" at $T = 2$.)
# 2. In the "the cat" example, "sat" leads "the" by one logit. Write the ratio of their shares
#    as a function of $T$. What happens to the ratio as $T$ grows very large? As it falls to 0?
# 3. Why divide the *scores* by $T$ and not the shares? What does dividing the shares and
#    renormalising do?
# 4. At the fork after "live the", what does top-p with `p = 0.9` keep at $T = 1$ and at
#    $T = 2$? Why is top-p a good partner for a high temperature?
# 5. Greedy decoding is reproducible without any seed. Give one reason a chatbot would
#    still sample, and one task where you would want $T = 0$.
# 6. Your `sample_next` receives its generator. Describe a bug that reading
#    `np.random`'s global state would cause in a program that runs two generations side by
#    side, or in a test that reruns one.

# %% [markdown]
# *Your answers here.*

# %% summary=true
