"""Hidden checks of the "tokens" exercise: byte-pair encoding, then tiktoken.

The fixed cases (the course text's BPE on "low lower newest widest" with ``</w>`` and on "hug
pug hugs" without it, tiktoken's ``cl100k_base`` splits, and small cases that decide a rule)
are declared once in ``cases.py``, visible or hidden; the line below makes its graded ones hidden
checks. Here: the randomized cases, compared with the reference solution (solutions/tokens.py),
accepting the same types as the declared ones (``cases.py``'s docstring). Each known mistake is
computed by a small wrong variant of ``wrong.py``, so the feedback can name it when a student's
value matches.
"""
import os

from autograder.authoring import StudentCodeError, cache_dir, check, expect_equal, fail, hidden_checks
from solutions import tokens as ref

from .cases import CASES, as_counts, as_list, as_pairs, as_tuple, describe
from .wrong import (
    EOW,
    NON_OVERLAPPING_COUNT,
    SPLIT_BYTES_HINT,
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

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


def _key_order(value):
    if not isinstance(value, dict):
        raise TypeError("not a dict")
    return list(value)


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


# -- get_pair_counts --------------------------------------------------------------------------
@check("get_pair_counts", "random vocabularies: counts", points=1)
def check_pairs_random_counts(get_pair_counts, rng):
    for _ in range(3):
        vocab = _random_vocab(rng)
        expect_equal(get_pair_counts(vocab), ref.get_pair_counts(vocab), normalize=as_counts,
                     what=f"get_pair_counts({vocab})",
                     mistakes=_named({UNWEIGHTED: _pair_counts(vocab, weighted=False),
                                      NON_OVERLAPPING_COUNT: _pair_counts(vocab, overlapping=False)}))


@check("get_pair_counts", "random vocabularies: key order", points=1)
def check_pairs_random_order(get_pair_counts, rng):
    for case in range(3):
        vocab = _random_vocab(rng)
        want = ref.get_pair_counts(vocab)
        # the first vocabulary's pairs are first met in neither count order nor alphabetical order
        # (redrawn until then: about 1 draw in 12 is in one of them), so a sorted dict fails for everyone
        while case == 0 and any(list(want) == list(v) for v in _order_mistakes(want).values()):
            vocab = _random_vocab(rng)
            want = ref.get_pair_counts(vocab)
        expect_equal(get_pair_counts(vocab), list(want), normalize=_key_order,
                     what=f"the order of the keys of get_pair_counts({vocab})",
                     mistakes=_order_mistakes(want))


# -- merge_pair ---------------------------------------------------------------------------------
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
        expect_equal(merge_pair(symbols, pair), ref.merge_pair(symbols, pair), normalize=as_tuple,
                     what=f"merge_pair({symbols}, {pair})", mistakes=_merge_mistakes(symbols, pair))


# -- learn_bpe ----------------------------------------------------------------------------------
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
                     normalize=as_pairs,
                     what=f"learn_bpe({describe(corpus)}, {n}, end_of_word={eow!r})",
                     mistakes=_learn_mistakes(corpus, n, eow))


# -- bpe_encode -----------------------------------------------------------------------------------
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
                         normalize=as_list,
                         what=f"bpe_encode({word!r}, {merges}, end_of_word={eow!r})",
                         mistakes=_encode_mistakes(word, merges, eow))


# -- tiktoken_pieces --------------------------------------------------------------------------------


def _pieces(tiktoken_pieces, text):
    try:
        return tiktoken_pieces(text)
    except StudentCodeError as exc:
        if exc.kind == "raised" and "UnicodeDecodeError" in exc.detail:
            fail(f"{exc}. {SPLIT_BYTES_HINT}")
        raise


@check("tiktoken_pieces", "emoji and accented letters: pieces of a character show as U+FFFD", points=1)
def check_tiktoken_bytes(tiktoken_pieces, rng):
    texts = ["naïve café", "🍓", "I \u2764 日本語 🤖", str(rng.choice(["Ünïcödé 👋", "façade 🎉", "smörgåsbord 🧀"]))]
    for text in texts:
        expect_equal(_pieces(tiktoken_pieces, text), ref.tiktoken_pieces(text), normalize=as_list,
                     what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))


WORDS = ["the", "cat", "strawberry", "lowest", "newest", "Collegeville", "CS357", "tokenizer",
         "internationalization", "unhappiness", "hamburger", "cheeseburger", "42", "1234567",
         "don't", "Hello", "world", "attention", "is", "all", "you", "need", "GPU", "e-mail",
         "self-attention", "ChatGPT", "x", "?", "!", "(BPE)"]


@check("tiktoken_pieces", "random phrases", points=1)
def check_tiktoken_random(tiktoken_pieces, rng):
    for _ in range(4):
        text = " ".join(str(w) for w in rng.choice(WORDS, size=int(rng.integers(1, 6))))
        expect_equal(_pieces(tiktoken_pieces, text), ref.tiktoken_pieces(text), normalize=as_list,
                     what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text))
