"""Worked values of the "tokens" exercise: the course text's BPE traces and tiktoken splits.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/tokens.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
from autograder.authoring import FOUNDATIONS, FROM_SCRATCH, Source, Worked

MERGE_RULES = Source(FOUNDATIONS, "Part I: From Characters to Tokens / How a Tokenizer Learns Its Merge Rules")
UNSEEN = Source(FOUNDATIONS, "Part I: From Characters to Tokens / Encoding a Word the Tokenizer Has Never Seen")
REAL = Source(FOUNDATIONS, "Part I: From Characters to Tokens / Check It Against a Real Tokenizer")
DESK_1 = Source(FROM_SCRATCH, "Desk 1: Cutting text into pieces / How the chunks get chosen: byte pair encoding")
REAL_SPLITS = Source(FROM_SCRATCH, "Desk 1: Cutting text into pieces / What real tokenizers do")

# The text's first corpus (word: count), each word ending in the end-of-word marker.
LOW_CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
# The second corpus, without an end-of-word marker.
HUG_CORPUS = {"hug": 3, "pug": 2, "hugs": 1}


def _round_one(ref, corpus, end_of_word):
    vocab = {tuple(w) + ((end_of_word,) if end_of_word else ()): n for w, n in corpus.items()}
    return ref.get_pair_counts(vocab)


WORKED = [
    Worked('count of the pair "e s" in round 1', MERGE_RULES, 9,
           lambda ref: _round_one(ref, LOW_CORPUS, "</w>")[("e", "s")]),
    Worked('count of the pair "w e" in round 1', MERGE_RULES, 6,
           lambda ref: _round_one(ref, LOW_CORPUS, "</w>")[("w", "e")], erratum=True,
           note='The text counts "w e" in newest only (6); lower holds it twice more, so the '
                'true count is 8, and its table also leaves out "t </w>" (9). The merges do not change; '
                "the hidden checks use the true counts."),
    Worked("the first three merges", MERGE_RULES, [["e", "s"], ["es", "t"], ["est", "</w>"]],
           lambda ref: [list(p) for p in ref.learn_bpe(LOW_CORPUS, 3)]),
    Worked('"lowest", encoded with those three merges', UNSEEN, ["l", "o", "w", "est</w>"],
           lambda ref: ref.bpe_encode("lowest", ref.learn_bpe(LOW_CORPUS, 3))),
    Worked('count of the pair "u g" in round 1', DESK_1, 6,
           lambda ref: _round_one(ref, HUG_CORPUS, None)[("u", "g")]),
    Worked('count of the pair "h u" in round 1', DESK_1, 4,
           lambda ref: _round_one(ref, HUG_CORPUS, None)[("h", "u")]),
    Worked("the first two merges", DESK_1, [["u", "g"], ["h", "ug"]],
           lambda ref: [list(p) for p in ref.learn_bpe(HUG_CORPUS, 2, end_of_word=None)]),
    Worked('"strawberry" in cl100k_base', REAL, ["str", "aw", "berry"],
           lambda ref: ref.tiktoken_pieces("strawberry")),
    Worked('"Hello world" in cl100k_base', REAL_SPLITS, ["Hello", " world"],
           lambda ref: ref.tiktoken_pieces("Hello world")),
    Worked('"don\'t" in cl100k_base', REAL_SPLITS, ["don", "'t"],
           lambda ref: ref.tiktoken_pieces("don't")),
    Worked('"artificial intelligence" in cl100k_base', REAL_SPLITS, ["art", "ificial", " intelligence"],
           lambda ref: ref.tiktoken_pieces("artificial intelligence")),
]


# -- figures the fixed cases and the checks compare with (cases.py, checks.py) --
# All fourteen round-1 counts (the true ones: "w e" is 8, "t </w>" ties at 9; the course
# text's table has an erratum here), keys in the order first met.
LOW_ROUND1 = {("l", "o"): 7, ("o", "w"): 7, ("w", "</w>"): 5, ("w", "e"): 8, ("e", "r"): 2,
              ("r", "</w>"): 2, ("n", "e"): 6, ("e", "w"): 6, ("e", "s"): 9, ("s", "t"): 9,
              ("t", "</w>"): 9, ("w", "i"): 3, ("i", "d"): 3, ("d", "e"): 3}
LOW_MERGES = [("e", "s"), ("es", "t"), ("est", "</w>")]
LOWEST_TOKENS = ["l", "o", "w", "est</w>"]
HUG_VOCAB = {tuple(word): count for word, count in HUG_CORPUS.items()}
HUG_ROUND1 = {("h", "u"): 4, ("u", "g"): 6, ("p", "u"): 2, ("g", "s"): 1}
HUG_MERGES = [("u", "g"), ("h", "ug"), ("p", "ug"), ("hug", "s")]
PUGS_TOKENS = ["pug", "s"]
XYZZY_TOKENS = ["x", "y", "z", "z", "y"]

# Section 2: tiktoken cl100k_base.
TIKTOKEN_WORKED = {"strawberry": ["str", "aw", "berry"],
                   "Hello world": ["Hello", " world"],
                   "don't": ["don", "'t"],
                   "artificial intelligence": ["art", "ificial", " intelligence"]}
