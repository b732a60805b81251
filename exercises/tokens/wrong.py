"""Small wrong implementations of the "tokens" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a randomized
check (``checks.py``) can name the mistake when a student's value matches it. Written
independently of the reference solution.
"""
import tiktoken

from .worked import LOW_CORPUS

EOW = "</w>"
LOW_VOCAB = {tuple(word) + (EOW,): count for word, count in LOW_CORPUS.items()}

# -- what the student did, as the feedback names it ------------------------------------
UNWEIGHTED = "count the pairs once per word instead of weighting them by the word's count"
NON_OVERLAPPING_COUNT = ('skip overlapping pairs when counting (every position counts: '
                         '"a a a a" holds "a a" three times)')
ORDER_BY_COUNT = "sort the pairs by count (the keys must stay in the order the pairs are first met)"
ORDER_ALPHA = "sort the pairs alphabetically (the keys must stay in the order the pairs are first met)"
OVERLAP_MERGE = ('merge overlapping occurrences ("a a a" becomes "aa aa"); merging scans left to '
                 'right and a symbol takes part in one merge only, giving "aa a"')
STEP_ONE_MERGE = ('move on by one symbol instead of two after a merge, so overlapping occurrences '
                  'merge too ("a a a" becomes "aa aa a" instead of "aa a")')
FROM_RIGHT_MERGE = 'scan from the right ("a a a" becomes "a aa" instead of "aa a")'
TEXT_MERGE = ('merge by replacing text in the space-joined symbols, which also matches inside '
              'longer symbols ("es t" with the pair "s t")')
TIE_LAST = "break ties in favour of the pair met last (ties go to the pair met first)"
TIE_SMALLEST = "break ties alphabetically (ties go to the pair met first)"
TIE_LARGEST = ("break ties by comparing the pairs themselves, e.g. max over (count, pair) "
               "(ties go to the pair met first)")
EOW_MISSING = "leave out the end-of-word marker"
EOW_TWICE = "add the end-of-word marker twice"
EOW_CHARS = 'split the end-of-word marker into its characters ("<", "/", "w", ">")'
EOW_DESPITE_NONE = 'add "</w>" although end_of_word is None'
EOW_NONE_SYMBOL = "append end_of_word even when it is None (a None symbol)"
ENC_ALPHA = "apply the merges in alphabetical order instead of the order learned"
ENC_FREQUENCY = ("merge the pair that occurs most often in the word first instead of "
                 "following the order learned")
ENC_LEFTMOST = ("merge the leftmost pair that has a merge first instead of following the "
                "order learned")
ENC_REVERSED = "apply the merges in reverse order"
STOP_HINT = ("When every word is a single symbol there is no pair left: learn_bpe must stop "
             "early and return the merges learned so far")
SPLIT_BYTES_HINT = ("A token may hold only part of a character's bytes (emoji, accents): "
                    'decode each token with errors="replace".')
TIK_WHOLE = "decode all the token ids at once instead of one token at a time"
TIK_IGNORE = 'decode each token with errors="ignore" (bytes of a split character vanish)'
TIK_CHARS = "split the text into characters instead of tokens"


# -- small wrong (and right) variants, written independently of the reference -----------
def _split(word, end_of_word, eow_mode="once"):
    symbols = tuple(word)
    if eow_mode == "despite_none":
        return symbols + (end_of_word if end_of_word is not None else EOW,)
    if eow_mode == "none_symbol":
        return symbols + (end_of_word,)
    if end_of_word is None or eow_mode == "missing":
        return symbols
    if eow_mode == "twice":
        return symbols + (end_of_word, end_of_word)
    if eow_mode == "chars":
        return symbols + tuple(end_of_word)
    return symbols + (end_of_word,)


def _pair_counts(vocab, weighted=True, overlapping=True):
    counts = {}
    for symbols, count in vocab.items():
        weight = count if weighted else 1
        free_from = {}  # pair -> first position not used by its last counted occurrence
        for i, pair in enumerate(zip(symbols, symbols[1:])):
            if not overlapping and free_from.get(pair, 0) > i:
                continue
            counts[pair] = counts.get(pair, 0) + weight
            free_from[pair] = i + 2
    return counts


def _merge(symbols, pair, mode="right"):
    a, b = pair
    s = list(symbols)
    if mode == "text":
        return tuple(" ".join(s).replace(f"{a} {b}", a + b).split(" "))
    if mode == "overlap":
        starts = {i for i in range(len(s) - 1) if (s[i], s[i + 1]) == (a, b)}
        return tuple(a + b if i in starts else sym for i, sym in enumerate(s)
                     if i in starts or i - 1 not in starts)
    if mode == "from_right":
        out, i = [], len(s) - 1
        while i >= 0:
            if i > 0 and (s[i - 1], s[i]) == (a, b):
                out.append(a + b)
                i -= 2
            else:
                out.append(s[i])
                i -= 1
        return tuple(reversed(out))
    out, i = [], 0
    while i < len(s):
        if i + 1 < len(s) and (s[i], s[i + 1]) == (a, b):
            out.append(a + b)
            i += 1 if mode == "step_one" else 2
        else:
            out.append(s[i])
            i += 1
    return tuple(out)


def _learn(word_counts, num_merges, end_of_word=EOW, *, weighted=True, tie="first",
           merge="right", eow_mode="once", overlapping=True):
    vocab = {}
    for word, count in word_counts.items():
        key = _split(word, end_of_word, eow_mode)
        vocab[key] = vocab.get(key, 0) + count
    merges = []
    while len(merges) < num_merges:
        pairs = _pair_counts(vocab, weighted, overlapping)
        if not pairs:
            break
        top = max(pairs.values())
        tied = [p for p in pairs if pairs[p] == top]
        best = {"first": tied[0], "last": tied[-1], "smallest": min(tied), "largest": max(tied)}[tie]
        merges.append(best)
        merged = {}
        for symbols, count in vocab.items():
            key = _merge(symbols, best, merge)
            merged[key] = merged.get(key, 0) + count
        vocab = merged
    return merges


def _encode(word, merges, end_of_word=EOW, *, order="learned", eow_mode="once", merge="right"):
    symbols = _split(word, end_of_word, eow_mode)
    merges = [tuple(p) for p in merges]
    if order in ("learned", "alphabetical", "reversed"):
        sequence = {"learned": merges, "alphabetical": sorted(merges),
                    "reversed": merges[::-1]}[order]
        for pair in sequence:
            symbols = _merge(symbols, pair, merge)
        return list(symbols)
    known = set(merges)
    while True:
        counts = _pair_counts({symbols: 1})
        candidates = [p for p in counts if p in known]
        if not candidates:
            return list(symbols)
        best = max(candidates, key=counts.get) if order == "frequency" else candidates[0]
        symbols = _merge(symbols, best, merge)


def _same(a, b):
    """Equal, and for dicts also in the same key order (the order is part of the answer)."""
    return a == b and (list(a) == list(b) if isinstance(a, dict) and isinstance(b, dict) else True)


def _named(candidates):
    """One entry per distinct wrong value; names that give the same value are joined."""
    groups = []
    for name, value in candidates.items():
        for names, seen in groups:
            if _same(seen, value):
                names.append(name)
                break
        else:
            groups.append(([name], value))
    return {", or when you ".join(names): value for names, value in groups}


def _learn_mistakes(word_counts, num_merges, end_of_word=EOW):
    def run(**kw):
        return _learn(word_counts, num_merges, end_of_word, **kw)
    return _named({UNWEIGHTED: run(weighted=False), NON_OVERLAPPING_COUNT: run(overlapping=False),
                   TIE_LAST: run(tie="last"),
                   TIE_SMALLEST: run(tie="smallest"), TIE_LARGEST: run(tie="largest"),
                   OVERLAP_MERGE: run(merge="overlap"), STEP_ONE_MERGE: run(merge="step_one"),
                   TEXT_MERGE: run(merge="text"), EOW_MISSING: run(eow_mode="missing"),
                   EOW_TWICE: run(eow_mode="twice"), EOW_CHARS: run(eow_mode="chars"),
                   EOW_DESPITE_NONE: run(eow_mode="despite_none")})


def _encode_mistakes(word, merges, end_of_word=EOW):
    def run(**kw):
        return _encode(word, merges, end_of_word, **kw)
    return _named({ENC_ALPHA: run(order="alphabetical"), ENC_FREQUENCY: run(order="frequency"),
                   ENC_LEFTMOST: run(order="leftmost"), ENC_REVERSED: run(order="reversed"),
                   EOW_MISSING: run(eow_mode="missing"), EOW_TWICE: run(eow_mode="twice"),
                   EOW_CHARS: run(eow_mode="chars"), EOW_DESPITE_NONE: run(eow_mode="despite_none"),
                   EOW_NONE_SYMBOL: run(eow_mode="none_symbol"),
                   OVERLAP_MERGE: run(merge="overlap"), STEP_ONE_MERGE: run(merge="step_one"),
                   TEXT_MERGE: run(merge="text")})


def _merge_mistakes(symbols, pair):
    return _named({OVERLAP_MERGE: _merge(symbols, pair, "overlap"),
                   STEP_ONE_MERGE: _merge(symbols, pair, "step_one"),
                   FROM_RIGHT_MERGE: _merge(symbols, pair, "from_right"),
                   TEXT_MERGE: _merge(symbols, pair, "text")})


def _order_mistakes(counts):
    return _named({ORDER_BY_COUNT: dict(sorted(counts.items(), key=lambda kv: -kv[1])),
                   ORDER_ALPHA: dict(sorted(counts.items()))})


def _tiktoken_mistakes(text):
    encoding = tiktoken.get_encoding("cl100k_base")
    ids = encoding.encode(text)
    return _named({TIK_WHOLE: [encoding.decode(ids)],
                   TIK_IGNORE: [encoding.decode_single_token_bytes(t).decode("utf-8", errors="ignore")
                                for t in ids],
                   TIK_CHARS: list(text)})
