"""Fixed cases of the "tokens" exercise: BPE on "low lower newest widest" with ``</w>`` and on
"hug pug hugs" without it, and tiktoken's ``cl100k_base`` splits (the course text's figures,
``worked.py``), plus small cases that decide a rule (runs, ties, the order of the merges), each
declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The mistakes' sentences and values come from ``wrong.py``.

Types accepted (the ``normalize`` of each case; the randomized checks use the same): a list is
accepted wherever a tuple is asked (the symbols ``merge_pair`` returns, each pair in the merges
of ``learn_bpe``), and a tuple wherever a list is asked (the tokens of ``bpe_encode`` and
``tiktoken_pieces``): the exercise is about which symbols come out, and both print the same to
a reader. A string is never taken for a pair (``'es'`` is not ``('e', 's')``), and
``get_pair_counts`` must return a dict whose keys are tuples (any dict subclass, e.g. a
``Counter``, is fine).
"""
from autograder.authoring import Case, Check
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
    LOW_VOCAB,
    NON_OVERLAPPING_COUNT,
    SPLIT_BYTES_HINT,
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


# -- accepting lists for tuples (see the module docstring) -------------------------------
def as_counts(value):
    if not isinstance(value, dict):
        raise TypeError("not a dict")
    return dict(value)


def as_tuple(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return tuple(value)


def as_list(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return list(value)


def as_pairs(value):
    if not isinstance(value, (list, tuple)):
        raise TypeError("not a sequence")
    return [tuple(p) if isinstance(p, (list, tuple)) else p for p in value]


def describe(corpus):
    """A corpus as the feedback writes it, ``{'low': 5, ...}``."""
    return "{" + ", ".join(f"{w!r}: {c}" for w, c in corpus.items()) + "}"


# the vocab of LOW_CORPUS (each word split into characters plus </w>: LOW_VOCAB), built in the call
_FROM_CORPUS = "get_pair_counts({{tuple(word) + ('</w>',): count for word, count in {corpus}.items()}})"


def _counts(vocab, want, mistakes, **more):
    return Case("get_pair_counts({vocab})", inputs={"vocab": vocab}, compare="equal", expected=want,
                normalize=as_counts, what=f"get_pair_counts({vocab})", mistakes=mistakes, **more)


def _merge(symbols, pair, want, **more):
    return Case("merge_pair({symbols}, {pair})", inputs={"symbols": symbols, "pair": pair}, compare="equal",
                expected=want, normalize=as_tuple, what=f"merge_pair({symbols}, {pair})",
                mistakes=_merge_mistakes(symbols, pair), **more)


def _learn(corpus, n, want, end_of_word="</w>", **more):
    marker = "" if end_of_word == "</w>" else f", end_of_word={end_of_word!r}"
    return Case(f"learn_bpe({{corpus}}, {n}{marker})", inputs={"corpus": corpus}, compare="equal", expected=want,
                normalize=as_pairs, what=f"learn_bpe({describe(corpus)}, {n}{marker})",
                mistakes=_learn_mistakes(corpus, n, end_of_word), **more)


def _encode(word, merges, want, end_of_word="</w>", **more):
    marker = "" if end_of_word == "</w>" else f", end_of_word={end_of_word!r}"
    return Case(f"bpe_encode({word!r}, {{merges}}{marker})", inputs={"merges": merges}, compare="equal",
                expected=want, normalize=as_list, what=f'bpe_encode("{word}", {merges}{marker})',
                mistakes=_encode_mistakes(word, merges, end_of_word), **more)


def _pieces(text, **more):
    return Case(f"tiktoken_pieces({text!r})", compare="equal", expected=TIKTOKEN_WORKED[text], normalize=as_list,
                what=f"tiktoken_pieces({text!r})", mistakes=_tiktoken_mistakes(text),
                hints={"UnicodeDecodeError": SPLIT_BYTES_HINT}, **more)


_RUN = {("a", "a", "a", "a"): 1}
_NEWEST = ("n", "e", "w", "e", "s", "t", "</w>")
# Overlapping counting decides the winner: "a a a a" holds "a a" three times (3 > 2, so
# ("a", "a") is merged first); counted without overlap it holds two, ties with ("x", "y")
# and loses the tie to the pair met first. Then ("x", "y") (2 against 1), then ("aa", "aa").
OVERLAP_CORPUS = {"xy": 2, "aaaa": 1}
OVERLAP_MERGES = [("a", "a"), ("x", "y"), ("aa", "aa")]
_TIES = {"bc": 2, "ab": 2, "cd": 2}  # three pairs tie; the one met first is neither the smallest, the largest nor the last
_SINGLE = {"a": 3, "b": 1}
_EMOJI = "naïve 🍓"
_STOPS = {"timeout": f"{STOP_HINT}.", "*": f"{STOP_HINT}."}

CASES = [
    # -- get_pair_counts --
    Check("get_pair_counts", 'round-1 counts of "low lower newest widest" and "hug pug hugs"', points=1,
          name="check_pairs_worked_counts", cases=[
              Case(_FROM_CORPUS, inputs={"corpus": LOW_CORPUS}, compare="equal", expected=LOW_ROUND1,
                   normalize=as_counts, label='round-1 counts of "low lower newest widest"',
                   what=f"get_pair_counts({LOW_VOCAB})",
                   mistakes=_named({UNWEIGHTED: _pair_counts(LOW_VOCAB, weighted=False)})),
              _counts(HUG_VOCAB, HUG_ROUND1, _named({UNWEIGHTED: _pair_counts(HUG_VOCAB, weighted=False)}),
                      hidden=True)]),
    Check("get_pair_counts", "keys in the order the pairs are first met", points=1, name="check_pairs_worked_order",
          cases=[Case(_FROM_CORPUS, inputs={"corpus": LOW_CORPUS}, compare="keys", expected=list(LOW_ROUND1),
                      what=f"the order of the keys of get_pair_counts({LOW_VOCAB})", mistakes=_order_mistakes(LOW_ROUND1)),
                 Case("get_pair_counts({vocab})", inputs={"vocab": HUG_VOCAB}, compare="keys", expected=list(HUG_ROUND1),
                      what=f"the order of the keys of get_pair_counts({HUG_VOCAB})",
                      mistakes=_order_mistakes(HUG_ROUND1), hidden=True)]),
    Check("get_pair_counts", 'overlapping pairs: ("a", "a", "a", "a") holds three ("a", "a")', points=1,
          name="check_pairs_runs", cases=[
              _counts(vocab, ref.get_pair_counts(vocab),
                      _named({NON_OVERLAPPING_COUNT: _pair_counts(vocab, overlapping=False),
                              UNWEIGHTED: _pair_counts(vocab, weighted=False)}), hidden=vocab is not _RUN)
              for vocab in (_RUN, {("a", "a", "a", "a"): 2, ("b", "a", "a"): 1})]),
    # -- merge_pair --
    Check("merge_pair", 'runs: ("a", "a", "a") with ("a", "a") gives ("aa", "a")', points=1, name="check_merge_runs",
          cases=[_merge(("a", "a", "a"), ("a", "a"), ("aa", "a"),   # the text's rule: left to right, no overlap
                        label='("a", "a", "a") with ("a", "a") gives ("aa", "a")'),
                 _merge(("a", "a", "a", "a"), ("a", "a"), ("aa", "aa"), hidden=True),
                 _merge(("a", "a", "a", "a", "a"), ("a", "a"), ("aa", "aa", "a"), hidden=True)]),
    # The course text's three merges es, est, est</w> on "newest"; then pairs that do not
    # occur as two symbols must leave the word alone.
    Check("merge_pair", 'the merges of "newest", and pairs that are not there', points=1, name="check_merge_worked",
          cases=[_merge(_NEWEST, ("e", "s"), ("n", "e", "w", "es", "t", "</w>"), label='"newest" with ("e", "s")'),
                 *(_merge(symbols, pair, want, hidden=True) for symbols, pair, want in (
                     (("n", "e", "w", "es", "t", "</w>"), ("es", "t"), ("n", "e", "w", "est", "</w>")),
                     (("n", "e", "w", "est", "</w>"), ("est", "</w>"), ("n", "e", "w", "est</w>")),
                     (("n", "e", "w", "es", "t", "</w>"), ("s", "t"), ("n", "e", "w", "es", "t", "</w>")),
                     (("l", "o", "w", "</w>"), ("e", "s"), ("l", "o", "w", "</w>")),
                     (("h", "u", "g", "s"), ("u", "g"), ("h", "ug", "s"))))]),
    # -- learn_bpe --
    Check("learn_bpe", 'the three merges of "low lower newest widest"', points=1, name="check_learn_low", cases=[
        _learn(LOW_CORPUS, 3, LOW_MERGES, label='the three merges of "low lower newest widest" (a three-way tie first)'),
    ]),
    Check("learn_bpe", '"hug pug hugs" without an end-of-word marker', points=1, name="check_learn_hug", cases=[
        _learn(HUG_CORPUS, 4, HUG_MERGES, None),
    ]),
    Check("learn_bpe", "ties go to the pair met first", points=1, name="check_learn_ties", cases=[
        _learn(_TIES, 3, ref.learn_bpe(_TIES, 3, None), None, hidden=True),
    ]),
    # A fixed case, so every student id meets it (random corpora rarely make overlap decide).
    Check("learn_bpe", 'overlapping pairs count: {"xy": 2, "aaaa": 1} merges a + a first', points=1,
          name="check_learn_overlapping", cases=[_learn(OVERLAP_CORPUS, 3, OVERLAP_MERGES, None, hidden=True)]),
    Check("learn_bpe", "stops early when no pair is left (10 merges asked, 4 possible)", cases=[
        _learn(HUG_CORPUS, 10, HUG_MERGES, None, hints={"ValueError": f"{STOP_HINT}.", "IndexError": f"{STOP_HINT}."}),
    ]),
    Check("learn_bpe", "stops early when no pair is left", points=1, name="check_learn_stops", cases=[
        Case("learn_bpe({corpus}, 50, end_of_word=None)", inputs={"corpus": HUG_CORPUS}, compare="equal",
             expected=HUG_MERGES, normalize=as_pairs, hints=_STOPS, hidden=True,
             what=f"learn_bpe({describe(HUG_CORPUS)}, 50, end_of_word=None) (only 4 merges are possible)"),
        Case("learn_bpe({corpus}, 5, end_of_word=None)", inputs={"corpus": _SINGLE}, compare="equal", expected=[],
             normalize=as_pairs, hints=_STOPS, hidden=True,
             what=f"learn_bpe({describe(_SINGLE)}, 5, end_of_word=None) (no pair at all)"),
    ]),
    # -- bpe_encode --
    Check("bpe_encode", '"lowest" with the merges es, est, est</w>', points=1, name="check_encode_lowest", cases=[
        _encode("lowest", LOW_MERGES, LOWEST_TOKENS),
    ]),
    Check("bpe_encode", '"pugs" and "xyzzy" with the merges of "hug pug hugs"', points=1, name="check_encode_hug",
          cases=[_encode(word, HUG_MERGES, want, None, hidden=True)
                 for word, want in (("pugs", PUGS_TOKENS), ("xyzzy", XYZZY_TOKENS))]),
    Check("bpe_encode", 'merges apply in the order learned: "abc" with [bc, ab]', points=1, name="check_encode_order",
          cases=[_encode("abc", [("b", "c"), ("a", "b")], ["a", "bc", "</w>"])]),
    # -- tiktoken_pieces --
    Check("tiktoken_pieces", '"strawberry" is str + aw + berry', points=1, name="check_tiktoken_strawberry",
          cases=[_pieces("strawberry")]),
    Check("tiktoken_pieces", "\"Hello world\", \"don't\", \"artificial intelligence\"", points=1,
          name="check_tiktoken_worked", cases=[_pieces(text, hidden=True) for text in TIKTOKEN_WORKED
                                               if text != "strawberry"]),
    Check("tiktoken_pieces", "an emoji's bytes spread over tokens show as U+FFFD", cases=[
        Case("tiktoken_pieces({text})", inputs={"text": _EMOJI}, compare="equal", expected=ref.tiktoken_pieces(_EMOJI),
             mistakes=_tiktoken_mistakes(_EMOJI), hints={"UnicodeDecodeError": SPLIT_BYTES_HINT}),
    ]),
]
