"""Visible cases of the "tokens" exercise: what students see under each function.

``python -m autograder build`` writes ``VISIBLE`` into the notebook as values only (see
``autograder/course/visible.py``); the figures come from ``worked.py``, the mistakes' values from ``wrong.py``.
"""
from autograder.authoring import Visible
from solutions import tokens as ref

from .worked import HUG_CORPUS, HUG_MERGES, LOW_CORPUS, LOW_MERGES, LOW_ROUND1, LOWEST_TOKENS, TIKTOKEN_WORKED
from .wrong import (
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

# -- visible checks: written into the notebook by the build, as values (see visible.py) --------
_RUN = {("a", "a", "a", "a"): 1}
# the vocab of LOW_CORPUS (each word split into characters plus </w>), built in the call
_FROM_CORPUS = "get_pair_counts({{tuple(word) + ('</w>',): count for word, count in {corpus}.items()}})"
_EMOJI = "naïve 🍓"

VISIBLE = [
    Visible("get_pair_counts", 'round-1 counts of "low lower newest widest"', _FROM_CORPUS,
            inputs={"corpus": LOW_CORPUS}, compare="equal", expected=LOW_ROUND1,
            mistakes=_named({UNWEIGHTED: _pair_counts(LOW_VOCAB, weighted=False)})),
    Visible("get_pair_counts", "keys in the order the pairs are first met", _FROM_CORPUS,
            inputs={"corpus": LOW_CORPUS}, compare="keys", expected=list(LOW_ROUND1),
            mistakes={name: list(value) for name, value in _order_mistakes(LOW_ROUND1).items()}),
    Visible("get_pair_counts", 'overlapping pairs: ("a", "a", "a", "a") holds three ("a", "a")',
            "get_pair_counts({vocab})", inputs={"vocab": _RUN}, compare="equal", expected={("a", "a"): 3},
            mistakes=_named({NON_OVERLAPPING_COUNT: _pair_counts(_RUN, overlapping=False)})),
    Visible("merge_pair", '("a", "a", "a") with ("a", "a") gives ("aa", "a")', "merge_pair({symbols}, {pair})",
            inputs={"symbols": ("a", "a", "a"), "pair": ("a", "a")}, compare="equal", expected=("aa", "a"),
            mistakes=_merge_mistakes(("a", "a", "a"), ("a", "a"))),
    Visible("merge_pair", '"newest" with ("e", "s")', "merge_pair({symbols}, {pair})",
            inputs={"symbols": ("n", "e", "w", "e", "s", "t", "</w>"), "pair": ("e", "s")}, compare="equal",
            expected=("n", "e", "w", "es", "t", "</w>"),
            mistakes=_merge_mistakes(("n", "e", "w", "e", "s", "t", "</w>"), ("e", "s"))),
    Visible("learn_bpe", 'the three merges of "low lower newest widest" (a three-way tie first)',
            "learn_bpe({corpus}, 3)", inputs={"corpus": LOW_CORPUS}, compare="equal", expected=LOW_MERGES,
            mistakes=_learn_mistakes(LOW_CORPUS, 3)),
    Visible("learn_bpe", '"hug pug hugs" without an end-of-word marker', "learn_bpe({corpus}, 4, end_of_word=None)",
            inputs={"corpus": HUG_CORPUS}, compare="equal", expected=HUG_MERGES,
            mistakes=_learn_mistakes(HUG_CORPUS, 4, None)),
    Visible("learn_bpe", "stops early when no pair is left (10 merges asked, 4 possible)",
            "learn_bpe({corpus}, 10, end_of_word=None)", inputs={"corpus": HUG_CORPUS}, compare="equal",
            expected=HUG_MERGES, hints={"ValueError": f"{STOP_HINT}.", "IndexError": f"{STOP_HINT}."}),
    Visible("bpe_encode", '"lowest" with the merges es, est, est</w>', "bpe_encode('lowest', {merges})",
            inputs={"merges": LOW_MERGES}, compare="equal", expected=LOWEST_TOKENS,
            mistakes=_encode_mistakes("lowest", LOW_MERGES)),
    Visible("bpe_encode", 'merges apply in the order learned: "abc" with [bc, ab]', "bpe_encode('abc', {merges})",
            inputs={"merges": [("b", "c"), ("a", "b")]}, compare="equal", expected=["a", "bc", "</w>"],
            mistakes=_encode_mistakes("abc", [("b", "c"), ("a", "b")])),
    Visible("tiktoken_pieces", '"strawberry" is str + aw + berry', "tiktoken_pieces('strawberry')",
            compare="equal", expected=TIKTOKEN_WORKED["strawberry"], mistakes=_tiktoken_mistakes("strawberry")),
    Visible("tiktoken_pieces", "an emoji's bytes spread over tokens show as U+FFFD", "tiktoken_pieces({text})",
            inputs={"text": _EMOJI}, compare="equal", expected=ref.tiktoken_pieces(_EMOJI),
            mistakes=_tiktoken_mistakes(_EMOJI),
            hints={"UnicodeDecodeError": "A token may hold only part of a character's bytes (emoji, "
                                         'accents): decode each token with errors="replace".'}),
]
