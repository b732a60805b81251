"""Reference solutions for the "tokens" exercise.

GENERATED from exercises/tokens/notebook.py by `python -m autograder build`: edit that
file, not this one (tests/course/test_build.py fails when they differ).
"""


import tiktoken


def get_pair_counts(vocab):
    """Count every pair of neighbouring symbols, weighted by how often each word occurs.

    Args:
        vocab: dict from a word, as a tuple of symbols (str), to its count (int).
    Returns:
        dict from each pair ``(a, b)`` of neighbouring symbols to its total count. Every
        position counts (overlapping pairs too), and the keys are in the order the pairs
        are first met: words in the order of ``vocab``, each scanned left to right.
    """
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def merge_pair(symbols, pair):
    """Merge every occurrence of ``pair`` in ``symbols`` into one symbol.

    Args:
        symbols: tuple of symbols (str), one word.
        pair: the two symbols ``(a, b)`` to merge.
    Returns:
        tuple of symbols, where each ``a`` directly followed by ``b`` became ``a + b``.
        Occurrences are found left to right without overlap.
    """
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


def bpe_encode(word, merges, end_of_word="</w>"):
    """Cut ``word`` into tokens by applying learned merges in order.

    Args:
        word: the word to encode (str).
        merges: list of pairs ``(a, b)``, in the order they were learned.
        end_of_word: symbol appended to the word before merging, or None for none.
    Returns:
        list of tokens (str). Characters that no merge touches stay single tokens.
    """
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    for pair in merges:
        symbols = merge_pair(symbols, tuple(pair))
    return list(symbols)


def tiktoken_pieces(text, encoding_name="cl100k_base"):
    """The tokens of ``text`` under a tiktoken encoding, each decoded to a string.

    Args:
        text: the text to encode (str).
        encoding_name: a tiktoken encoding name (str).
    Returns:
        list of str, one per token, in order. A token whose bytes are not valid UTF-8 by
        themselves is decoded with errors="replace" (it shows the character U+FFFD).
    """
    encoding = tiktoken.get_encoding(encoding_name)
    return [encoding.decode_single_token_bytes(token).decode("utf-8", errors="replace")
            for token in encoding.encode(text)]
