"""The demo students' own BPE code (see the package's docstring)."""

STYLES = {
    # cy: index loops and plain dicts, a merge loop that counts down
    "cy": '''
def get_pair_counts(vocab):
    counts = {}
    for word in vocab:
        n = vocab[word]
        for i in range(len(word) - 1):
            key = (word[i], word[i + 1])
            if key in counts:
                counts[key] += n
            else:
                counts[key] = n
    return counts

def merge_pair(symbols, pair):
    out = []
    for s in symbols:
        if out and out[-1] == pair[0] and s == pair[1] and not merged_last:
            out[-1] = out[-1] + s
            merged_last = True
        else:
            out.append(s)
            merged_last = False
    return tuple(out)

def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = [] if end_of_word is None else [end_of_word]
    corpus = {}
    for w in word_counts:
        key = tuple(list(w) + tail)
        corpus[key] = corpus.get(key, 0) + word_counts[w]
    learned = []
    left = num_merges
    while left > 0:
        counts = get_pair_counts(corpus)
        if len(counts) == 0:
            break
        top = None
        for pair in counts:
            if top is None or counts[pair] > counts[top]:
                top = pair
        learned.append(top)
        new_corpus = {}
        for word in corpus:
            merged = merge_pair(word, top)
            new_corpus[merged] = new_corpus.get(merged, 0) + corpus[word]
        corpus = new_corpus
        left -= 1
    return learned

def bpe_encode(word, merges, end_of_word="</w>"):
    pieces = list(word)
    if end_of_word is not None:
        pieces.append(end_of_word)
    for a, b in merges:
        pieces = list(merge_pair(tuple(pieces), (a, b)))
    return pieces

def tiktoken_pieces(text, encoding_name="cl100k_base"):
    enc = tiktoken.get_encoding(encoding_name)
    pieces = []
    for token_id in enc.encode(text):
        raw = enc.decode_single_token_bytes(token_id)
        pieces.append(raw.decode("utf-8", "replace"))
    return pieces
''',
    # dee: the standard library's collections and itertools, a recursive merge
    "dee": '''
from collections import Counter, defaultdict
from itertools import pairwise

def get_pair_counts(vocab):
    counts = Counter()
    for word, freq in vocab.items():
        for pair in pairwise(word):
            counts[pair] += freq
    return dict(counts)

def merge_pair(symbols, pair):
    if len(symbols) < 2:
        return tuple(symbols)
    if tuple(symbols[:2]) == tuple(pair):
        return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
    return (symbols[0],) + merge_pair(symbols[1:], pair)

def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    marker = () if end_of_word is None else (end_of_word,)
    vocab = defaultdict(int)
    for text, freq in word_counts.items():
        vocab[(*text, *marker)] += freq
    rules = []
    for _ in range(num_merges):
        stats = get_pair_counts(vocab)
        if not stats:
            return rules
        best = max(stats.items(), key=lambda item: item[1])[0]
        rules.append(best)
        regrouped = defaultdict(int)
        for symbols, freq in vocab.items():
            regrouped[merge_pair(symbols, best)] += freq
        vocab = regrouped
    return rules

def bpe_encode(word, merges, end_of_word="</w>"):
    from functools import reduce
    start = (*word, end_of_word) if end_of_word is not None else tuple(word)
    return list(reduce(lambda syms, rule: merge_pair(syms, tuple(rule)), merges, start))

def tiktoken_pieces(text, encoding_name="cl100k_base"):
    codec = tiktoken.get_encoding(encoding_name)
    return list(map(lambda t: codec.decode_single_token_bytes(t).decode(errors="replace"),
                    codec.encode(text)))
''',
    # eve: symbols joined into space-separated strings, merges done by scanning with an index
    "eve": '''
def get_pair_counts(vocab):
    table = {}
    for symbols, weight in vocab.items():
        previous = None
        for sym in symbols:
            if previous is not None:
                table[(previous, sym)] = table.get((previous, sym), 0) + weight
            previous = sym
    return table

def merge_pair(symbols, pair):
    result, skip = [], False
    for idx, sym in enumerate(symbols):
        if skip:
            skip = False
            continue
        nxt = symbols[idx + 1] if idx + 1 < len(symbols) else None
        if sym == pair[0] and nxt == pair[1]:
            result.append(sym + nxt)
            skip = True
        else:
            result.append(sym)
    return tuple(result)

def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    words = []
    for w, c in word_counts.items():
        syms = tuple(w) if end_of_word is None else tuple(w) + (end_of_word,)
        words.append([syms, c])
    done = []
    while len(done) < num_merges:
        combined = {}
        for syms, c in words:
            combined[syms] = combined.get(syms, 0) + c
        counts = get_pair_counts(combined)
        if not counts:
            break
        highest = max(counts.values())
        choice = next(p for p in counts if counts[p] == highest)
        done.append(choice)
        words = [[merge_pair(syms, choice), c] for syms, c in words]
    return done

def bpe_encode(word, merges, end_of_word="</w>"):
    tokens = tuple(word) + ((end_of_word,) if end_of_word is not None else ())
    for rule in merges:
        tokens = merge_pair(tokens, tuple(rule))
    return list(tokens)

def tiktoken_pieces(text, encoding_name="cl100k_base"):
    e = tiktoken.get_encoding(encoding_name)
    ids = e.encode(text)
    return [str(e.decode_single_token_bytes(i), encoding="utf-8", errors="replace") for i in ids]
''',
}
