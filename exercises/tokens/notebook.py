# %% [markdown]
# # Tokens: teaching a tokenizer its merges
#
# A language model never receives letters or words. Before it sees anything, a
# **tokenizer** chops the text into pieces called *tokens* and replaces each piece by its
# number in a fixed list, the vocabulary. Everything the model later learns is learned about
# those numbers. If a detail of the text does not survive the chopping, the model cannot
# see it, however clever it is.
#
# In this notebook you write the algorithm most tokenizers are trained with,
# **byte-pair encoding** (BPE), run it by hand on two tiny corpora, and then compare your
# intuition with a tokenizer that is used in production.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `get_pair_counts(vocab)` | how often each pair of neighbouring symbols occurs, weighted by word counts |
# | `merge_pair(symbols, pair)` | one word's symbols with a pair glued into one symbol |
# | `learn_bpe(word_counts, num_merges, end_of_word="</w>")` | the list of merges, in the order they were learned |
# | `bpe_encode(word, merges, end_of_word="</w>")` | a word's tokens under those merges |
# | `tiktoken_pieces(text, encoding_name="cl100k_base")` | a text's tokens under a real tokenizer, as strings |
#
# Conventions: a word being cut is a **tuple of symbols** (strings), e.g.
# `('l', 'o', 'w', '</w>')`; a pair is a 2-tuple of symbols, e.g. `('e', 's')`.
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
import tiktoken

# %% checker=true

# %% [markdown]
# ## 1. Three ways to cut a text
#
# Any tokenizer has to settle one question first: how large is a piece?
#
# * **Characters.** The vocabulary is tiny and nothing is ever unknown, but texts become
#   very long sequences, and the model gets no ready-made words: it has to discover, from
#   single letters, that "under" and "stand" mean something.
# * **Words.** Sequences are short and every piece carries meaning, but the list is huge
#   (every form of every word: *cat*, *cats*, *cat's* are unrelated entries), and any word
#   not in the list (a typo, a new name) becomes a single "unknown" hole.
# * **Subwords.** The compromise used in practice: frequent words are one token, rarer
#   words are spelled with a few familiar pieces, and in the worst case a word falls back to
#   single characters, so nothing is ever unreadable.
#
# The cell below cuts one sentence the first two ways. Count the pieces.

# %%
sentence = "the unbelievable tokenizer tokenized untokenizable text"
by_characters = list(sentence)
by_words = sentence.split()
print(len(by_characters), "characters:", by_characters[:12], "...")
print(len(by_words), "words:", by_words)

# %% [markdown]
# Which pieces would you like a subword tokenizer to find in that sentence? Keep your guess
# in mind: BPE will find pieces without being told anything about English.

# %% [markdown]
# ## 2. Counting neighbouring pairs
#
# BPE starts from characters and repeatedly glues together the two neighbouring symbols
# that occur together most often. Its first ingredient is a count of all neighbouring pairs.
#
# The training data is a small corpus: each word with how often it occurs. During training a
# word is kept as a tuple of symbols, and we add a special last symbol `</w>` (end of word),
# so that a piece at the end of a word (`est` in *newest*) can be told apart from the same
# letters in the middle of one (`est` in *establish*). The word `low`, seen 5 times, starts as
# `('l', 'o', 'w', '</w>')` with count 5.
#
# `get_pair_counts` takes such a `vocab` (a dict from symbol tuple to count) and returns a
# dict from every pair to its count. Three details matter:
#
# * a pair is counted **once per occurrence, times the word's count**: a pair inside `low`
#   contributes 5, not 1;
# * **every** neighbouring position counts, also overlapping ones: `('a', 'a', 'a', 'a')`
#   contains `('a', 'a')` three times;
# * the keys of the result are in the order the pairs are **first met**: words in the dict's
#   order, each read left to right. (Python dicts remember insertion order; the next step
#   uses that order to break ties.)

# %%
LOW_CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
low_vocab = {tuple(word) + ("</w>",): count for word, count in LOW_CORPUS.items()}
low_vocab

# %% solution="get_pair_counts"
def get_pair_counts(vocab):
    """Count every pair of neighbouring symbols, weighted by how often each word occurs.

    Args:
        vocab: dict from a word, as a tuple of symbols (str), to its count (int).
    Returns:
        dict from each pair ``(a, b)`` of neighbouring symbols to its total count. Every
        position counts (overlapping pairs too), and the keys are in the order the pairs
        are first met: words in the order of ``vocab``, each scanned left to right.
    """
    ### BEGIN SOLUTION
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts
    ### END SOLUTION

# %%
round1 = get_pair_counts(low_vocab)
for pair, count in sorted(round1.items(), key=lambda item: -item[1]):
    print(f"{pair[0]:>4} {pair[1]:<5} {count}")

# %% visible="get_pair_counts"

# %% tests="get_pair_counts"

# %% [markdown]
# **Question.** Three pairs share the top count. Which ones, and which of them is met first?
# Some write-ups of this very example print a round-1 table in which `w e` occurs only 6
# times and `t </w>` is missing. Which word did they overlook, and does it change which pair
# wins?

# %% [markdown]
# ## 3. Merging one pair
#
# Once a pair is chosen, every occurrence of it in a word becomes a single symbol: merging
# `('e', 's')` turns `('n', 'e', 'w', 'e', 's', 't', '</w>')` into
# `('n', 'e', 'w', 'es', 't', '</w>')`. Scan **left to right**, and after a merge continue
# *after* the two symbols you just used: a symbol can be part of one merge only. So
# `('a', 'a', 'a')` merged with `('a', 'a')` becomes `('aa', 'a')`; the middle `a` is already
# taken.
#
# Compare symbols, not text: with the pair `('s', 't')`, the word `('es', 't')` contains no
# `s` symbol followed by a `t` symbol, even though the letters "s" and "t" do stand side by side.

# %% solution="merge_pair"
def merge_pair(symbols, pair):
    """Merge every occurrence of ``pair`` in ``symbols`` into one symbol.

    Args:
        symbols: tuple of symbols (str), one word.
        pair: the two symbols ``(a, b)`` to merge.
    Returns:
        tuple of symbols, where each ``a`` directly followed by ``b`` became ``a + b``.
        Occurrences are found left to right without overlap.
    """
    ### BEGIN SOLUTION
    first, second = pair
    merged = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)
    ### END SOLUTION

# %%
print(merge_pair(("n", "e", "w", "e", "s", "t", "</w>"), ("e", "s")))

# %% visible="merge_pair"

# %% tests="merge_pair"

# %% [markdown]
# ## 4. The merge loop
#
# Training is nothing more than those two steps in a loop:
#
# 1. split every word into characters (plus `end_of_word`, unless it is `None`);
# 2. count all pairs; stop if there are none left;
# 3. take the pair with the highest count; on a tie, the one **met first** (the first key of
#    the counts with that count: `max` over a dict already does this);
# 4. record it as the next merge, merge it in every word, and go back to 2,
#    until `num_merges` merges are learned.
#
# Every merge adds one symbol to the vocabulary. Real tokenizers run this loop tens of
# thousands of times on huge corpora; ours will stop after a handful.
#
# Be careful with step 2: on a small corpus every word eventually becomes a single symbol,
# and asking for more merges than that must not loop forever or crash.

# %% solution="learn_bpe"
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    """Learn up to ``num_merges`` BPE merges from a corpus.

    Args:
        word_counts: dict from a word (str) to its count (int).
        num_merges: how many merges to learn at most (int).
        end_of_word: symbol appended to every word before training, or None for none.
    Returns:
        list of the merged pairs ``(a, b)``, in the order learned. Ties go to the pair met
        first (see ``get_pair_counts``). Fewer than ``num_merges`` when no pair is left.
    """
    ### BEGIN SOLUTION
    vocab = {}
    for word, count in word_counts.items():
        symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
        vocab[symbols] = vocab.get(symbols, 0) + count
    merges = []
    while len(merges) < num_merges:
        pairs = get_pair_counts(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)  # the first of the pairs with the top count
        merges.append(best)
        merged_vocab = {}
        for symbols, count in vocab.items():
            merged = merge_pair(symbols, best)
            merged_vocab[merged] = merged_vocab.get(merged, 0) + count
        vocab = merged_vocab
    return merges
    ### END SOLUTION

# %%
low_merges = learn_bpe(LOW_CORPUS, 3)
print(low_merges)

# %% visible="learn_bpe"

# %% tests="learn_bpe"

# %% [markdown]
# ### Watching the loop
#
# `trace_bpe` below repeats the loop with your `get_pair_counts` and `merge_pair` and prints
# each round: the winning pair, any pairs it tied with, and the corpus after the merge.
# First the corpus above, for three rounds:

# %%
def trace_bpe(word_counts, num_merges, end_of_word="</w>"):
    """Print every round of the merge loop (uses your get_pair_counts and merge_pair)."""
    vocab = {tuple(w) + ((end_of_word,) if end_of_word is not None else ()): c
             for w, c in word_counts.items()}
    for round_number in range(1, num_merges + 1):
        pairs = get_pair_counts(vocab)
        if not pairs:
            print(f"round {round_number}: no pair left, training stops")
            return
        best = max(pairs, key=pairs.get)
        tied = [" ".join(p) for p in pairs if pairs[p] == pairs[best] and p != best]
        note = f"  (tied with: {', '.join(tied)})" if tied else ""
        print(f"round {round_number}: merge {best[0]} + {best[1]} (count {pairs[best]}){note}")
        vocab = {merge_pair(s, best): c for s, c in vocab.items()}
        for symbols, count in vocab.items():
            print(f"    {' '.join(symbols):<24} x{count}")


trace_bpe(LOW_CORPUS, 3)

# %% [markdown]
# Nobody told the algorithm that *-est* is an English ending; counting found it.
#
# The second corpus has the word *hug* 3 times, *pug* twice and *hugs* once, and uses **no**
# end-of-word symbol (`end_of_word=None`). Predict the four merges before you run the cell,
# then ask for ten and see where training stops by itself.

# %%
HUG_CORPUS = {"hug": 3, "pug": 2, "hugs": 1}
trace_bpe(HUG_CORPUS, 10, end_of_word=None)
print(learn_bpe(HUG_CORPUS, 10, end_of_word=None))

# %% [markdown]
# The vocabulary after training is the five characters `h u g p s` plus one new symbol per
# merge: `ug`, `hug`, `pug`, `hugs`.

# %% [markdown]
# ## 5. Encoding a word nobody trained on
#
# To tokenize a new word, split it exactly as in training (characters, then `end_of_word`
# unless it is `None`) and replay the merges **in the order they were learned**, each one
# applied to the whole word before the next one. The order matters: with the merges
# `[('b', 'c'), ('a', 'b')]`, the word `abc` first becomes `a bc`, and then there is no
# `a` followed by a `b` symbol left, so the result is `['a', 'bc', '</w>']`, not
# `['ab', 'c', '</w>']`.
#
# Letters the training corpus never contained simply stay as they are: the worst case of a
# subword tokenizer is a word spelled out letter by letter, never an error.

# %% solution="bpe_encode"
def bpe_encode(word, merges, end_of_word="</w>"):
    """Cut ``word`` into tokens by applying learned merges in order.

    Args:
        word: the word to encode (str).
        merges: list of pairs ``(a, b)``, in the order they were learned.
        end_of_word: symbol appended to the word before merging, or None for none.
    Returns:
        list of tokens (str). Characters that no merge touches stay single tokens.
    """
    ### BEGIN SOLUTION
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    for pair in merges:
        symbols = merge_pair(symbols, tuple(pair))
    return list(symbols)
    ### END SOLUTION

# %%
def trace_encode(word, merges, end_of_word="</w>"):
    """Print the word after each merge that changes it (uses your merge_pair)."""
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    print(f"{'start':<16} {' '.join(symbols)}")
    for pair in merges:
        merged = merge_pair(symbols, tuple(pair))
        if merged != symbols:
            print(f"{pair[0] + ' + ' + pair[1]:<16} {' '.join(merged)}")
        symbols = merged
    print(f"{'tokens':<16} {bpe_encode(word, merges, end_of_word)}")


trace_encode("lowest", learn_bpe(LOW_CORPUS, 3))

# %%
hug_merges = learn_bpe(HUG_CORPUS, 4, end_of_word=None)
for new_word in ["pugs", "hugs", "xyzzy"]:
    print(f"{new_word:<6} -> {bpe_encode(new_word, hug_merges, end_of_word=None)}")

# %% visible="bpe_encode"

# %% tests="bpe_encode"

# %% [markdown]
# **Questions.**
#
# 1. `lowest` never occurs in the corpus, yet it comes out as four tokens. Which part of
#    it does the tokenizer "know", and which part is spelled out?
# 2. Encode `lowest` and `low` again, now with the merges of `learn_bpe(LOW_CORPUS, 10)`.
#    Why is the word `low` on its own a different token from the `low` at the start of
#    `lowest`?
# 3. Why would applying the merges sorted alphabetically, or most frequent pair first,
#    give tokens the training never produced?

# %% [markdown]
# ## 6. A production tokenizer
#
# OpenAI's `tiktoken` library ships the tokenizers of its models. `cl100k_base` has about
# 100,000 tokens, learned by the same loop on a very large corpus, with two differences
# worth knowing:
#
# * it works on **bytes** (UTF-8), not characters, so any text at all can be encoded;
# * there is no `</w>`: a space is part of the token that follows it (`' world'`).
#
# Because it works on bytes, one token can hold only part of a character: an emoji or an
# accented letter may be spread over several tokens. Such a piece is not valid UTF-8 on
# its own, so when you turn it into a string, decode with `errors="replace"`; the piece then
# shows as the replacement character `\ufffd` (`�`). Nothing is lost: the tokens' **bytes**,
# joined, are exactly the text's bytes.
#
# Useful calls: `enc = tiktoken.get_encoding(name)`, `enc.encode(text)` (a list of token
# ids), `enc.decode_single_token_bytes(token_id)` (that token's bytes), and
# `enc.decode([token_id])`. The encoding file is already on your machine, so this works offline.

# %% solution="tiktoken_pieces"
def tiktoken_pieces(text, encoding_name="cl100k_base"):
    """The tokens of ``text`` under a tiktoken encoding, each decoded to a string.

    Args:
        text: the text to encode (str).
        encoding_name: a tiktoken encoding name (str).
    Returns:
        list of str, one per token, in order. A token whose bytes are not valid UTF-8 by
        themselves is decoded with errors="replace" (it shows the character U+FFFD).
    """
    ### BEGIN SOLUTION
    encoding = tiktoken.get_encoding(encoding_name)
    return [encoding.decode_single_token_bytes(token).decode("utf-8", errors="replace")
            for token in encoding.encode(text)]
    ### END SOLUTION

# %%
print(tiktoken_pieces("strawberry"))
print(tiktoken_pieces("Hello world"))
emoji_text = "naïve 🍓"
print(tiktoken_pieces(emoji_text))
cl100k = tiktoken.get_encoding("cl100k_base")
print(b"".join(cl100k.decode_single_token_bytes(t) for t in cl100k.encode(emoji_text)) == emoji_text.encode("utf-8"))

# %% visible="tiktoken_pieces"

# %% tests="tiktoken_pieces"

# %% [markdown]
# ### Your own words
#
# Put some words of your own in `MY_WORDS`: your name, your town, a long technical word, a
# number, a word from another language, an emoji. Before running, guess how many tokens
# each one takes. `lowest` is here to compare with the toy tokenizer of
# section 5 (*Encoding a word nobody trained on*).

# %%
MY_WORDS = ["lowest", "strawberry", "unhappiness", "Collegeville", "CS357",
            "internationalization", "the cat sat on the mat"]


def tokens_per_word(words, encoding_name="cl100k_base"):
    """Print a table: each word, its number of tokens, and the tokens."""
    print(f"{'text':<26} {'tokens':>6}  pieces")
    for w in words:
        pieces = tiktoken_pieces(w, encoding_name)
        print(f"{w:<26} {len(pieces):>6}  {pieces}")


def plot_tokens_per_word(words, encoding_name="cl100k_base"):
    """Bar chart of how many tokens each word (or phrase) takes."""
    import matplotlib.pyplot as plt
    counts = [len(tiktoken_pieces(w, encoding_name)) for w in words]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(words) + 1))
    ax.barh(range(len(words)), counts, color="tab:blue")
    ax.set_yticks(range(len(words)), words)
    ax.invert_yaxis()
    ax.set_xlabel(f"tokens ({encoding_name})")
    for i, n in enumerate(counts):
        ax.text(n, i, f" {n}", va="center")
    fig.tight_layout()
    plt.show()


tokens_per_word(MY_WORDS)
plot_tokens_per_word(MY_WORDS)

# %% [markdown]
# **Questions** (answer in the cell below).
#
# 1. `strawberry` is the three tokens `str`, `aw`, `berry`. The model receives three numbers,
#    not ten letters. How many `r`s does it actually *see*? What would it have to have
#    learned, and from where, to answer "how many r's are in strawberry?" correctly?
# 2. Try `Strawberry`, `STRAWBERRY` and `" strawberry"` (with a leading space). Are they the
#    same tokens? What does that mean for a model that must know they are the same word?
# 3. A 12-digit number is cut into groups of digits. Why can that make long additions hard
#    for a model?
# 4. A rule of thumb says English text takes about 1.3 tokens per word, or about 4 characters
#    per token. Does your list agree? Which of your words cost the most tokens, and why?
# 5. Would a character-level tokenizer make the `strawberry` question easy? What would it
#    cost (think about the length of every text the model reads)?

# %% [markdown]
# *Your answers here.*

# %% summary=true
