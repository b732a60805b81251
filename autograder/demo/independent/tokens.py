"""Independent styles of the tokens exercise (see the package)."""

PLAIN = {
    "get_pair_counts": '''def get_pair_counts(vocab):
    result = {}
    for word, n in vocab.items():
        for k in range(len(word) - 1):
            key = (word[k], word[k + 1])
            if key in result:
                result[key] += n
            else:
                result[key] = n
    return result
''',
    "merge_pair": '''def merge_pair(symbols, pair):
    out = []
    pos = 0
    n = len(symbols)
    while pos < n:
        if pos < n - 1 and (symbols[pos], symbols[pos + 1]) == tuple(pair):
            out.append(symbols[pos] + symbols[pos + 1])
            pos = pos + 2
            continue
        out.append(symbols[pos])
        pos = pos + 1
    return tuple(out)
''',
    "learn_bpe": '''def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = [] if end_of_word is None else [end_of_word]
    corpus = {}
    for w in word_counts:
        key = tuple(list(w) + tail)
        corpus[key] = corpus.get(key, 0) + word_counts[w]
    learned = []
    for _ in range(num_merges):
        stats = get_pair_counts(corpus)
        if len(stats) == 0:
            break
        top = None
        for candidate, c in stats.items():
            if top is None or c > stats[top]:
                top = candidate
        learned.append(top)
        new_corpus = {}
        for key, c in corpus.items():
            joined = merge_pair(key, top)
            new_corpus[joined] = new_corpus.get(joined, 0) + c
        corpus = new_corpus
    return learned
''',
    "bpe_encode": '''def bpe_encode(word, merges, end_of_word="</w>"):
    pieces = list(word)
    if end_of_word is not None:
        pieces.append(end_of_word)
    pieces = tuple(pieces)
    for a, b in merges:
        pieces = merge_pair(pieces, (a, b))
    return list(pieces)
''',
    "tiktoken_pieces": '''import tiktoken


def tiktoken_pieces(text, encoding_name="cl100k_base"):
    enc = tiktoken.get_encoding(encoding_name)
    pieces = []
    for token_id in enc.encode(text):
        raw = enc.decode_single_token_bytes(token_id)
        pieces.append(raw.decode("utf-8", errors="replace"))
    return pieces
''',
}

COUNTER = {
    "get_pair_counts": '''from collections import Counter


def get_pair_counts(vocab):
    tally = Counter()
    for word, freq in vocab.items():
        for left, right in zip(word[:-1], word[1:]):
            tally[(left, right)] += freq
    return dict(tally)
''',
    "merge_pair": '''def merge_pair(symbols, pair):
    a, b = pair
    result, skip = [], False
    for i, s in enumerate(symbols):
        if skip:
            skip = False
            continue
        if s == a and i + 1 < len(symbols) and symbols[i + 1] == b:
            result.append(a + b)
            skip = True
        else:
            result.append(s)
    return tuple(result)
''',
    "learn_bpe": '''from collections import Counter


def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    suffix = () if end_of_word is None else (end_of_word,)
    words = Counter()
    for text, freq in word_counts.items():
        words[tuple(text) + suffix] += freq
    merges = []
    while len(merges) < num_merges:
        counts = get_pair_counts(dict(words))
        if not counts:
            break
        best_count = max(counts.values())
        chosen = next(p for p, c in counts.items() if c == best_count)
        merges.append(chosen)
        updated = Counter()
        for w, freq in words.items():
            updated[merge_pair(w, chosen)] += freq
        words = updated
    return merges
''',
    "bpe_encode": '''def bpe_encode(word, merges, end_of_word="</w>"):
    tokens = tuple(word) if end_of_word is None else tuple(word) + (end_of_word,)
    for merge in map(tuple, merges):
        if len(tokens) == 1:
            break
        tokens = merge_pair(tokens, merge)
    return [t for t in tokens]
''',
    "tiktoken_pieces": '''import tiktoken


def tiktoken_pieces(text, encoding_name="cl100k_base"):
    encoder = tiktoken.get_encoding(encoding_name)
    ids = encoder.encode(text)
    return list(map(lambda i: encoder.decode_single_token_bytes(i).decode("utf-8", "replace"), ids))
''',
}

STYLES = {"plain": PLAIN, "counter": COUNTER}
