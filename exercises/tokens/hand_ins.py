"""Realistic mistakes in the tokens exercise: the ones the course text names, and a few more."""
from autograder.authoring import Mistake

E = "tokens"

MISTAKES = [
    # -- get_pair_counts -------------------------------------------------------------
    Mistake(E, "get_pair_counts", "pairs_not_weighted", '''
def get_pair_counts(vocab):
    counts = {}
    for symbols in vocab:                      # the word's count is never used
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
''', failing=("check_pairs_worked_counts",
              "check_pairs_runs",
              "check_pairs_random_counts"),
        feedback="once per word instead of weighting them by the word's count"),

    Mistake(E, "get_pair_counts", "pairs_sorted_by_count", '''
from collections import Counter

def get_pair_counts(vocab):
    counts = Counter()
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += count
    return dict(counts.most_common())          # most frequent first
''', failing=("check_pairs_worked_order",
              "check_pairs_random_order"),
        feedback="sort the pairs by count"),

    Mistake(E, "get_pair_counts", "pairs_sorted_alphabetically", '''
def get_pair_counts(vocab):
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return dict(sorted(counts.items()))        # tidy, but ties now go to the smallest pair
''', failing=("check_pairs_worked_order",
              "check_pairs_random_order"),
        feedback="sort the pairs alphabetically"),

    # -- merge_pair ------------------------------------------------------------------
    Mistake(E, "merge_pair", "overlapping_merge", '''
def merge_pair(symbols, pair):
    starts = [i for i in range(len(symbols) - 1) if (symbols[i], symbols[i + 1]) == tuple(pair)]
    merged = []
    for i, symbol in enumerate(symbols):
        if i in starts:
            merged.append(pair[0] + pair[1])
        elif i - 1 not in starts:               # the second half of a match is used up
            merged.append(symbol)
    return tuple(merged)
''', failing=("check_merge_runs",
              "check_merge_random"),
        feedback='"a a a" becomes "aa aa"'),

    Mistake(E, "merge_pair", "step_one_after_merge", '''
def merge_pair(symbols, pair):
    merged = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
            merged.append(symbols[i] + symbols[i + 1])
        else:
            merged.append(symbols[i])
        i += 1                                  # also after a merge
    return tuple(merged)
''', failing=("check_merge_runs",
              "check_merge_worked",
              "check_merge_random"),
        feedback="move on by one symbol instead of two"),

    # -- learn_bpe -------------------------------------------------------------------
    Mistake(E, "learn_bpe", "ties_by_largest_pair", '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = (end_of_word,) if end_of_word is not None else ()
    vocab = {tuple(word) + tail: count for word, count in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_pair_counts(vocab)
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))   # on a tie, the "largest" pair wins
        merges.append(best)
        vocab = {merge_pair(symbols, best): count for symbols, count in vocab.items()}
    return merges
''', failing=("check_learn_low",
              "check_learn_ties",
              "check_learn_random"),
        feedback="break ties by comparing the pairs themselves"),

    Mistake(E, "learn_bpe", "ties_to_last_met", '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = (end_of_word,) if end_of_word is not None else ()
    vocab = {tuple(word) + tail: count for word, count in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_pair_counts(vocab)
        if not pairs:
            break
        best, best_count = None, 0
        for pair, count in pairs.items():
            if count >= best_count:               # >= lets a later pair take over a tie
                best, best_count = pair, count
        merges.append(best)
        vocab = {merge_pair(symbols, best): count for symbols, count in vocab.items()}
    return merges
''', failing=("check_learn_low",
              "check_learn_ties",
              "check_learn_random"),
        feedback="in favour of the pair met last"),

    Mistake(E, "learn_bpe", "no_end_of_word_marker", '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    vocab = {tuple(word): count for word, count in word_counts.items()}   # marker forgotten
    merges = []
    for _ in range(num_merges):
        pairs = get_pair_counts(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append(best)
        vocab = {merge_pair(symbols, best): count for symbols, count in vocab.items()}
    return merges
''', failing=("check_learn_low",
              "check_learn_random"),
        feedback="leave out the end-of-word marker"),

    Mistake(E, "learn_bpe", "loops_forever_when_pairs_run_out", '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = (end_of_word,) if end_of_word is not None else ()
    vocab = {tuple(word) + tail: count for word, count in word_counts.items()}
    merges = []
    while len(merges) < num_merges:
        pairs = get_pair_counts(vocab)
        if not pairs:
            continue                              # nothing to merge: try again (forever)
        best = max(pairs, key=pairs.get)
        merges.append(best)
        vocab = {merge_pair(symbols, best): count for symbols, count in vocab.items()}
    return merges
''', failing=("check_learn_stops",),
        feedback="must stop early"),

    Mistake(E, "learn_bpe", "crashes_when_pairs_run_out", '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = (end_of_word,) if end_of_word is not None else ()
    vocab = {tuple(word) + tail: count for word, count in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_pair_counts(vocab)
        best = max(pairs, key=pairs.get)          # ValueError once pairs is empty
        merges.append(best)
        vocab = {merge_pair(symbols, best): count for symbols, count in vocab.items()}
    return merges
''', failing=("check_learn_stops",),
        feedback="must stop early"),

    # -- bpe_encode ------------------------------------------------------------------
    Mistake(E, "bpe_encode", "merges_sorted_alphabetically", '''
def bpe_encode(word, merges, end_of_word="</w>"):
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    for pair in sorted(merges):                   # not the order they were learned
        symbols = merge_pair(symbols, pair)
    return list(symbols)
''', failing=("check_encode_hug",
              "check_encode_order",
              "check_encode_random"),
        feedback="apply the merges in alphabetical order"),

    Mistake(E, "bpe_encode", "most_frequent_pair_first", '''
def bpe_encode(word, merges, end_of_word="</w>"):
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    known = {tuple(pair) for pair in merges}
    while True:
        counts = get_pair_counts({symbols: 1})
        candidates = {pair: n for pair, n in counts.items() if pair in known}
        if not candidates:
            return list(symbols)
        symbols = merge_pair(symbols, max(candidates, key=candidates.get))
''', failing=("check_encode_order",
              "check_encode_random"),
        feedback="occurs most often in the word first"),

    Mistake(E, "bpe_encode", "end_of_word_twice", '''
def bpe_encode(word, merges, end_of_word="</w>"):
    symbols = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    for pair in merges:
        symbols = merge_pair(symbols, pair)
    tokens = list(symbols)
    if end_of_word is not None:
        tokens.append(end_of_word)                # it is already there
    return tokens
''', failing=("check_encode_lowest",
              "check_encode_order",
              "check_encode_random"),
        feedback="add the end-of-word marker twice"),

    Mistake(E, "bpe_encode", "end_of_word_missing", '''
def bpe_encode(word, merges, end_of_word="</w>"):
    symbols = tuple(word)                         # marker forgotten
    for pair in merges:
        symbols = merge_pair(symbols, pair)
    return list(symbols)
''', failing=("check_encode_lowest",
              "check_encode_order",
              "check_encode_random"),
        feedback="leave out the end-of-word marker"),

    # -- tiktoken_pieces -------------------------------------------------------------
    Mistake(E, "tiktoken_pieces", "strict_utf8_decoding", '''
def tiktoken_pieces(text, encoding_name="cl100k_base"):
    enc = tiktoken.get_encoding(encoding_name)
    return [enc.decode_single_token_bytes(t).decode("utf-8") for t in enc.encode(text)]
''', failing=("check_tiktoken_bytes",),
        feedback='errors="replace"'),

    Mistake(E, "tiktoken_pieces", "ignore_undecodable_bytes", '''
def tiktoken_pieces(text, encoding_name="cl100k_base"):
    enc = tiktoken.get_encoding(encoding_name)
    return [enc.decode_single_token_bytes(t).decode("utf-8", errors="ignore") for t in enc.encode(text)]
''', failing=("check_tiktoken_bytes",),
        feedback='errors="ignore"'),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {
    'overlapping_merge': 'merge overlapping occurrences',
    'ties_by_largest_pair': 'break ties by comparing the pairs themselves',
    'ties_to_last_met': 'break ties in favour of the pair met last',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['overlapping_merge'],
    'dee': ['pairs_not_weighted'],
    'eve': ['most_frequent_pair_first'],
}
