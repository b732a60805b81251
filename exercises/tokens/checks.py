"""Hidden checks of the "tokens" exercise: byte-pair encoding, then tiktoken.

Worked values are the course text's (``worked.py`` lists where each comes from): BPE on
"low lower newest widest" with ``</w>``, and on "hug pug hugs" without it, and tiktoken's
``cl100k_base`` splits. Randomized cases are compared with the reference solution
(solutions/tokens.py). Each known mistake is computed by a small wrong variant of ``wrong.py``, so
the feedback can name it when a student's value matches.

Types accepted: a list is accepted wherever a tuple is asked (the symbols ``merge_pair``
returns, each pair in the merges of ``learn_bpe``), and a tuple wherever a list is asked
(the tokens of ``bpe_encode`` and ``tiktoken_pieces``): the exercise is about which
symbols come out, and both print the same to a reader. A string is never taken for a
pair (``'es'`` is not ``('e', 's')``), and ``get_pair_counts`` must return a dict whose
keys are tuples (any dict subclass, e.g. a ``Counter``, is fine).
"""
import os

from autograder.authoring import StudentCodeError, cache_dir, check, expect_equal, fail
from solutions import tokens as ref

from .worked import (
    HUG_CORPUS,
    HUG_MERGES,
    HUG_ROUND1,
    HUG_VOCAB,
    LOW_CORPUS,
    LOW_MERGES,
    LOW_ROUND1,
    LOWEST_TOKENS,
    PUGS_TOKENS,
    TIKTOKEN_WORKED,
    XYZZY_TOKENS,
)
from .wrong import (
    EOW,
    LOW_VOCAB,
    NON_OVERLAPPING_COUNT,
    STOP_HINT,
    UNWEIGHTED,
    _encode_mistakes,
    _learn_mistakes,
    _merge_mistakes,
    _named,
    _order_mistakes,
    _pair_counts,
    _tiktoken_mistakes,
)

# The reference runs tiktoken in the grader's process too: let it use the project's
# prefilled cache (python -m autograder caches) unless a cache is already chosen, never
# tiktoken's default folder in /tmp, which any user may have made (docs/confinement.md).
os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache_dir()))


# -- accepting lists for tuples (see the module docstring) -------------------------------
def _as_counts(value):
    if not isinstance(value, dict):
        raise TypeError("not a dict")
    return dict(value)


def _key_order(value):
    if not isinstance(value, dict):
        raise TypeError("not a dict")
    return list(value)


def _as_tuple(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return tuple(value)


def _as_list(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return list(value)


def _as_pairs(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return [tuple(p) if isinstance(p, (list, tuple)) else p for p in value]


# -- random cases ------------------------------------------------------------------------
def _random_corpus(rng, letters, n_words, max_len=6, max_count=6):
    """Distinct random words over ``letters`` with counts 1..max_count."""
    corpus = {}
    while len(corpus) < n_words:
        word = "".join(str(c) for c in rng.choice(list(letters), size=int(rng.integers(1, max_len + 1))))
        corpus[word] = int(rng.integers(1, max_count + 1))
    return corpus


def _sorted_letters(rng, k, pool="abcdefgh"):
    return sorted(str(c) for c in rng.choice(list(pool), size=k, replace=False))


def _random_vocab(rng):
    """Words as they look part-way through training, plus a run such as ('x', 'x', 'x', 'x').

    The run has count >= 2 and length >= 3, so counting once per word and skipping
    overlapping pairs both give a different answer.
    """
    letters = "abcd"[:int(rng.integers(2, 5))]
    corpus = _random_corpus(rng, letters, int(rng.integers(3, 7)))
    eow = EOW if rng.random() < 0.5 else None
    merges = ref.learn_bpe(corpus, int(rng.integers(0, 4)), eow)
    vocab = {}
    for word, count in corpus.items():
        key = tuple(ref.bpe_encode(word, merges, eow))
        vocab[key] = vocab.get(key, 0) + count
    run = (str(rng.choice(["x", "y", "z"])),) * int(rng.integers(3, 7))
    items = list(vocab.items())
    items.insert(int(rng.integers(0, len(items) + 1)), (run, int(rng.integers(2, 6))))
    return dict(items)


def _describe(corpus):
    return "{" + ", ".join(f"{w!r}: {c}" for w, c in corpus.items()) + "}"


# -- get_pair_counts --------------------------------------------------------------------------
@check("get_pair_counts", 'round-1 counts of "low lower newest widest" and "hug pug hugs"', points=1)
def check_pairs_worked_counts(get_pair_counts):
    for vocab, want in ((LOW_VOCAB, LOW_ROUND1), (HUG_VOCAB, HUG_ROUND1)):
        expect_equal(get_pair_counts(vocab), want, normalize=_as_counts,
                     what=f"get_pair_counts({vocab})",
                     mistakes=_named({UNWEIGHTED: _pair_counts(vocab, weighted=False)}))


@check("get_pair_counts", "keys in the order the pairs are first met", points=1)
def check_pairs_worked_order(get_pair_counts):
    for vocab, want in ((LOW_VOCAB, LOW_ROUND1), (HUG_VOCAB, HUG_ROUND1)):
        expect_equal(get_pair_counts(vocab), list(want), normalize=_key_order,
                     what=f"the order of the keys of get_pair_counts({vocab})",
                     mistakes=_order_mistakes(want))


@check("get_pair_counts", 'overlapping pairs: ("a", "a", "a", "a") holds three ("a", "a")', points=1)
def check_pairs_runs(get_pair_counts):
    for vocab in ({("a", "a", "a", "a"): 1}, {("a", "a", "a", "a"): 2, ("b", "a", "a"): 1}):
        want = ref.get_pair_counts(vocab)
        expect_equal(get_pair_counts(vocab), want, normalize=_as_counts,
                     what=f"get_pair_counts({vocab})",
                     mistakes=_named({NON_OVERLAPPING_COUNT: _pair_counts(vocab, overlapping=False),
                                      UNWEIGHTED: _pair_counts(vocab, weighted=False)}))


@check("get_pair_counts", "random vocabularies: counts", points=1)
def check_pairs_random_counts(get_pair_counts, rng):
    for _ in range(3):
        vocab = _random_vocab(rng)
        expect_equal(get_pair_counts(vocab), ref.get_pair_counts(vocab), normalize=_as_counts,
                     what=f"get_pair_counts({vocab})",
                     mistakes=_named({UNWEIGHTED: _pair_counts(vocab, weighted=False),
                                      NON_OVERLAPPING_COUNT: _pair_counts(vocab, overlapping=False)}))


@check("get_pair_counts", "random vocabularies: key order", points=1)
def check_pairs_random_order(get_pair_counts, rng):
    for _ in range(3):
        vocab = _random_vocab(rng)
        want = ref.get_pair_counts(vocab)
        expect_equal(get_pair_counts(vocab), list(want), normalize=_key_order,
                     what=f"the order of the keys of get_pair_counts({vocab})",
                     mistakes=_order_mistakes(want))


# -- merge_pair ---------------------------------------------------------------------------------
@check("merge_pair", 'runs: ("a", "a", "a") with ("a", "a") gives ("aa", "a")', points=1)
def check_merge_runs(merge_pair):
    pair = ("a", "a")
    for symbols, want in ((("a", "a", "a"), ("aa", "a")),          # the text's rule: left to right, no overlap
                          (("a", "a", "a", "a"), ("aa", "aa")),
                          (("a", "a", "a", "a", "a"), ("aa", "aa", "a"))):
        expect_equal(merge_pair(symbols, pair), want, normalize=_as_tuple,
                     what=f"merge_pair({symbols}, {pair})", mistakes=_merge_mistakes(symbols, pair))


@check("merge_pair", 'the merges of "newest", and pairs that are not there', points=1)
def check_merge_worked(merge_pair):
    # The course text's three merges es, est, est</w> on "newest"; then
    # pairs that do not occur as two symbols must leave the word alone.
    newest = ("n", "e", "w", "e", "s", "t", "</w>")
    cases = [(newest, ("e", "s"), ("n", "e", "w", "es", "t", "</w>")),
             (("n", "e", "w", "es", "t", "</w>"), ("es", "t"), ("n", "e", "w", "est", "</w>")),
             (("n", "e", "w", "est", "</w>"), ("est", "</w>"), ("n", "e", "w", "est</w>")),
             (("n", "e", "w", "es", "t", "</w>"), ("s", "t"), ("n", "e", "w", "es", "t", "</w>")),
             (("l", "o", "w", "</w>"), ("e", "s"), ("l", "o", "w", "</w>")),
             (("h", "u", "g", "s"), ("u", "g"), ("h", "ug", "s"))]
    for symbols, pair, want in cases:
        expect_equal(merge_pair(symbols, pair), want, normalize=_as_tuple,
                     what=f"merge_pair({symbols}, {pair})", mistakes=_merge_mistakes(symbols, pair))


@check("merge_pair", "random words, runs included", points=1)
def check_merge_random(merge_pair, rng):
    for case in range(5):
        if case == 0:  # a run of one symbol, merged with itself
            symbols = (str(rng.choice(["a", "b", "ab"])),) * int(rng.integers(3, 9))
        else:
            letters = ["a", "b", "ab", "ba"][:int(rng.integers(2, 5))]
            symbols = tuple(str(c) for c in rng.choice(letters, size=int(rng.integers(2, 10))))
        i = int(rng.integers(0, len(symbols) - 1))
        pair = (symbols[i], symbols[i + 1]) if case != 4 else (symbols[i], "c")
        expect_equal(merge_pair(symbols, pair), ref.merge_pair(symbols, pair), normalize=_as_tuple,
                     what=f"merge_pair({symbols}, {pair})", mistakes=_merge_mistakes(symbols, pair))


# -- learn_bpe ----------------------------------------------------------------------------------
@check("learn_bpe", 'the three merges of "low lower newest widest"', points=1)
def check_learn_low(learn_bpe):
    expect_equal(learn_bpe(LOW_CORPUS, 3), LOW_MERGES, normalize=_as_pairs,
                 what=f"learn_bpe({_describe(LOW_CORPUS)}, 3)",
                 mistakes=_learn_mistakes(LOW_CORPUS, 3))


@check("learn_bpe", '"hug pug hugs" without an end-of-word marker', points=1)
def check_learn_hug(learn_bpe):
    expect_equal(learn_bpe(HUG_CORPUS, 4, end_of_word=None), HUG_MERGES, normalize=_as_pairs,
                 what=f"learn_bpe({_describe(HUG_CORPUS)}, 4, end_of_word=None)",
                 mistakes=_learn_mistakes(HUG_CORPUS, 4, None))


@check("learn_bpe", "ties go to the pair met first", points=1)
def check_learn_ties(learn_bpe):
    # Three pairs tie; the one met first is neither the smallest, nor the largest, nor the last.
    corpus = {"bc": 2, "ab": 2, "cd": 2}
    expect_equal(learn_bpe(corpus, 3, end_of_word=None), ref.learn_bpe(corpus, 3, None),
                 normalize=_as_pairs, what=f"learn_bpe({_describe(corpus)}, 3, end_of_word=None)",
                 mistakes=_learn_mistakes(corpus, 3, None))


# Overlapping counting decides the winner: "a a a a" holds "a a" three times (3 > 2, so
# ("a", "a") is merged first); counted without overlap it holds two, ties with ("x", "y")
# and loses the tie to the pair met first. Then ("x", "y") (2 against 1), then ("aa", "aa").
OVERLAP_CORPUS = {"xy": 2, "aaaa": 1}
OVERLAP_MERGES = [("a", "a"), ("x", "y"), ("aa", "aa")]


@check("learn_bpe", 'overlapping pairs count: {"xy": 2, "aaaa": 1} merges a + a first', points=1)
def check_learn_overlapping(learn_bpe):
    # A fixed case, so every student id meets it (random corpora rarely make overlap decide).
    expect_equal(learn_bpe(OVERLAP_CORPUS, 3, end_of_word=None), OVERLAP_MERGES, normalize=_as_pairs,
                 what=f"learn_bpe({_describe(OVERLAP_CORPUS)}, 3, end_of_word=None)",
                 mistakes=_learn_mistakes(OVERLAP_CORPUS, 3, None))


@check("learn_bpe", "random corpora: ties, runs such as aaaa, both markers", points=1)
def check_learn_random(learn_bpe, rng):
    p, q, r, s = _sorted_letters(rng, 4)
    x, y, z, run = _sorted_letters(rng, 4)
    count = int(rng.integers(1, 6))
    cases = [
        # a three-way tie whose first pair is neither the smallest, the largest nor the last
        ({q + r: count, p + q: count, r + s: count}, None, True),
        # the most frequent word beats a run that has more pairs but a smaller count
        ({x + y + z: int(rng.integers(5, 9)), run * 5: 1}, EOW, True),
    ]
    for _ in range(2):
        corpus = _random_corpus(rng, "abc"[:int(rng.integers(2, 4))], int(rng.integers(3, 7)))
        cases.append((corpus, EOW if rng.random() < 0.5 else None, False))
    for corpus, eow, all_merges in cases:
        # never more merges than there are: running out of pairs is checked separately
        available = len(ref.learn_bpe(corpus, 10_000, eow))
        n = available if all_merges or not available else int(rng.integers(1, available + 1))
        expect_equal(learn_bpe(corpus, n, end_of_word=eow), ref.learn_bpe(corpus, n, eow),
                     normalize=_as_pairs,
                     what=f"learn_bpe({_describe(corpus)}, {n}, end_of_word={eow!r})",
                     mistakes=_learn_mistakes(corpus, n, eow))


@check("learn_bpe", "stops early when no pair is left", points=1)
def check_learn_stops(learn_bpe):
    try:
        expect_equal(learn_bpe(HUG_CORPUS, 50, end_of_word=None), HUG_MERGES, normalize=_as_pairs,
                     what=f"learn_bpe({_describe(HUG_CORPUS)}, 50, end_of_word=None) "
                          "(only 4 merges are possible)")
        single = {"a": 3, "b": 1}
        expect_equal(learn_bpe(single, 5, end_of_word=None), [], normalize=_as_pairs,
                     what=f"learn_bpe({_describe(single)}, 5, end_of_word=None) (no pair at all)")
    except StudentCodeError as exc:
        if exc.kind in ("timeout", "raised"):
            fail(f"{exc}. {STOP_HINT}.")
        raise


# -- bpe_encode -----------------------------------------------------------------------------------
@check("bpe_encode", '"lowest" with the merges es, est, est</w>', points=1)
def check_encode_lowest(bpe_encode):
    expect_equal(bpe_encode("lowest", LOW_MERGES), LOWEST_TOKENS, normalize=_as_list,
                 what=f'bpe_encode("lowest", {LOW_MERGES})',
                 mistakes=_encode_mistakes("lowest", LOW_MERGES))


@check("bpe_encode", '"pugs" and "xyzzy" with the merges of "hug pug hugs"', points=1)
def check_encode_hug(bpe_encode):
    for word, want in (("pugs", PUGS_TOKENS), ("xyzzy", XYZZY_TOKENS)):
        expect_equal(bpe_encode(word, HUG_MERGES, end_of_word=None), want, normalize=_as_list,
                     what=f'bpe_encode("{word}", {HUG_MERGES}, end_of_word=None)',
                     mistakes=_encode_mistakes(word, HUG_MERGES, None))


@check("bpe_encode", 'merges apply in the order learned: "abc" with [bc, ab]', points=1)
def check_encode_order(bpe_encode):
    merges = [("b", "c"), ("a", "b")]
    expect_equal(bpe_encode("abc", merges), ["a", "bc", "</w>"], normalize=_as_list,
                 what=f'bpe_encode("abc", {merges})', mistakes=_encode_mistakes("abc", merges))


@check("bpe_encode", "random corpora: seen and unseen words, new characters, runs", points=2)
def check_encode_random(bpe_encode, rng):
    x, y, z = _sorted_letters(rng, 3)
    # the order trap: the merges are [yz, yz</w>, xy, xy</w>], and "xyz" must keep "x" alone
    trap = {y + z: int(rng.integers(4, 8)), x + y: int(rng.integers(1, 4))}
    cases = [(trap, EOW, [x + y + z], True)]
    for _ in range(2):
        letters = "abc"[:int(rng.integers(2, 4))]
        corpus = _random_corpus(rng, letters, int(rng.integers(3, 6)), max_len=5)
        run = str(rng.choice(["r", "s"]))
        corpus[run * int(rng.integers(4, 7))] = 10  # ("r", "r") is the first merge
        unseen = ["".join(str(c) for c in rng.choice(list(letters + "é" + run) + ["q"], size=int(rng.integers(3, 8))))
                  for _ in range(2)]
        cases.append((corpus, EOW if rng.random() < 0.5 else None,
                      list(corpus) + unseen + [run * 3, run * 5], False))
    for corpus, eow, words, all_merges in cases:
        available = len(ref.learn_bpe(corpus, 10_000, eow))
        n = available if all_merges else int(rng.integers(max(1, available // 2), available + 1))
        merges = ref.learn_bpe(corpus, n, eow)
        for word in words:
            expect_equal(bpe_encode(word, merges, end_of_word=eow), ref.bpe_encode(word, merges, eow),
                         normalize=_as_list,
                         what=f"bpe_encode({word!r}, {merges}, end_of_word={eow!r})",
                         mistakes=_encode_mistakes(word, merges, eow))


# -- tiktoken_pieces --------------------------------------------------------------------------------


def _pieces(tiktoken_pieces, text):
    try:
        return tiktoken_pieces(text)
    except StudentCodeError as exc:
        if exc.kind == "raised" and "UnicodeDecodeError" in exc.detail:
            fail(f"{exc}. A token may hold only part of a character's bytes (emoji, accents): "
                 'decode each token with errors="replace".')
        raise


@check("tiktoken_pieces", '"strawberry" is str + aw + berry', points=1)
def check_tiktoken_strawberry(tiktoken_pieces):
    text = "strawberry"
    expect_equal(_pieces(tiktoken_pieces, text), TIKTOKEN_WORKED[text], normalize=_as_list,
                 what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))


@check("tiktoken_pieces", "\"Hello world\", \"don't\", \"artificial intelligence\"", points=1)
def check_tiktoken_worked(tiktoken_pieces):
    for text, want in TIKTOKEN_WORKED.items():
        if text != "strawberry":
            expect_equal(_pieces(tiktoken_pieces, text), want, normalize=_as_list,
                         what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))


@check("tiktoken_pieces", "emoji and accented letters: pieces of a character show as U+FFFD", points=1)
def check_tiktoken_bytes(tiktoken_pieces, rng):
    texts = ["naïve café", "🍓", "I \u2764 日本語 🤖", str(rng.choice(["Ünïcödé 👋", "façade 🎉", "smörgåsbord 🧀"]))]
    for text in texts:
        expect_equal(_pieces(tiktoken_pieces, text), ref.tiktoken_pieces(text), normalize=_as_list,
                     what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))


WORDS = ["the", "cat", "strawberry", "lowest", "newest", "Collegeville", "CS357", "tokenizer",
         "internationalization", "unhappiness", "hamburger", "cheeseburger", "42", "1234567",
         "don't", "Hello", "world", "attention", "is", "all", "you", "need", "GPU", "e-mail",
         "self-attention", "ChatGPT", "x", "?", "!", "(BPE)"]


@check("tiktoken_pieces", "random phrases", points=1)
def check_tiktoken_random(tiktoken_pieces, rng):
    for _ in range(4):
        text = " ".join(str(w) for w in rng.choice(WORDS, size=int(rng.integers(1, 6))))
        expect_equal(_pieces(tiktoken_pieces, text), ref.tiktoken_pieces(text), normalize=_as_list,
                     what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))
