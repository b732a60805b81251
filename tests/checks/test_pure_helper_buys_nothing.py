"""A pure helper, wrong only on its callers' inputs, buys the caller nothing.

The attack: ``learn_bpe`` is a stub (``[]`` whatever it is given), and ``get_pair_counts``
answers rightly on the inputs of its own checks (but one, given up to be "charged") and with
no pair at all on any other vocabulary, such as those the reference ``learn_bpe`` passes it.
The reference ``learn_bpe`` built on that helper then learns nothing, which is what the stub
returns. The helper is pure (its answers do not depend on what ran before), so replaying them
in a fresh run shows nothing. Before the fix the grader excused the stub's checks, and the
hand-in scored more than one that leaves ``learn_bpe`` unimplemented with a right helper.

Now the stub is also called with its helpers answering as the reference's do
(``checks/answered.py``); it still returns ``[]``, which is not the right value, so its code is
wrong too and nothing is excused.
"""
import pytest

from autograder.core.registry import EXERCISES
from autograder.sandbox.limits import Limits
from exercises.tokens.worked import HUG_CORPUS, LOW_CORPUS

TOKENS = EXERCISES["tokens"]

# Right on the worked vocabularies and the random vocabularies of its own checks (which always
# hold a run of x, y or z), wrong on purpose on the runs check; no pair at all elsewhere.
# The worked vocabularies are spelled out from the worked corpora (exercises/tokens/worked.py).
_WORKED = (
    {(*word, "</w>"): count for word, count in LOW_CORPUS.items()},
    {tuple(word): count for word, count in HUG_CORPUS.items()},
)
PURE_PAIRS = f"_WORKED = {_WORKED!r}\n" + '''
_RUNS = [{("a", "a", "a", "a"): 1}, {("a", "a", "a", "a"): 2, ("b", "a", "a"): 1}]

def get_pair_counts(vocab):
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    if vocab in _RUNS:
        counts[("a", "a")] += 7
        return counts
    own = vocab in _WORKED or any(len(s) >= 3 and len(set(s)) == 1 and s[0] in "xyz" for s in vocab)
    return counts if own else {}
'''

# The plainest version: no pair, ever, and no merge learned.
EMPTY_PAIRS = '''
def get_pair_counts(vocab):
    return {}
'''

STUB_LEARN = '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    return []
'''


def _points(result):
    scores = {}
    for c in result.checks:
        scores[c.function] = scores.get(c.function, 0.0) + c.score
    return scores


@pytest.mark.parametrize("level", ["bubblewrap", "setuid"])
def test_a_helper_wrong_only_on_the_callers_inputs_gains_nothing(hand_in, level):
    limits = Limits(level=level)
    honest = _points(hand_in(TOKENS, {"learn_bpe": STUB_LEARN}, limits=limits))
    attack = hand_in(TOKENS, {"get_pair_counts": PURE_PAIRS, "learn_bpe": STUB_LEARN}, limits=limits)
    scores = _points(attack)
    assert honest["learn_bpe"] == 0.0          # the stub alone earns nothing
    assert scores["learn_bpe"] == 0.0          # before the fix: 3 points, excused
    assert scores["get_pair_counts"] == honest["get_pair_counts"] - 1   # the point given up
    assert sum(scores.values()) < sum(honest.values())
    learn = [c.output for c in attack.checks if c.function == "learn_bpe"]
    assert not any(o.startswith("passed on account of") for o in learn)
    assert any("given the right answers of get_pair_counts, your learn_bpe still does not return the right "
               "value" in o for o in learn), learn


def test_a_helper_that_never_answers_excuses_no_stub(hand_in):
    """Both functions left as stubs: before the fix, the 6 points of learn_bpe (more than the
    5 get_pair_counts is worth) came for nothing."""
    result = hand_in(TOKENS, {"get_pair_counts": EMPTY_PAIRS, "learn_bpe": STUB_LEARN})
    scores = _points(result)
    assert scores["learn_bpe"] == 0.0
    assert scores["get_pair_counts"] == 0.0


def test_a_right_caller_is_still_excused_in_the_kernel_path():
    """The same rule over a namespace (``LocalSubmission``, as in nbgrader's kernel): a right
    ``learn_bpe`` on the empty helper keeps its points there, a stub does not."""
    from autograder.checks.plugin import run_checks
    from autograder.submission.local import LocalSubmission
    from solutions import tokens as ref

    def graded(learn):
        ns = {"__name__": "__main__"}
        exec(EMPTY_PAIRS, ns)
        ns["merge_pair"] = ref.merge_pair
        if learn is None:
            ns["learn_bpe"] = type(ref.learn_bpe)(ref.learn_bpe.__code__, ns, "learn_bpe",
                                                 ref.learn_bpe.__defaults__)  # its code, our globals
        else:
            exec(learn, ns)
        results = run_checks(TOKENS, LocalSubmission(ns), "s1", b"secret", charged={"get_pair_counts"})
        return [r for r in results if r.function == "learn_bpe"]
    right = graded(None)
    assert all(r.score == r.max_score for r in right), [r.output for r in right]
    assert any(r.output.startswith("passed on account of get_pair_counts") for r in right)
    stub = graded(STUB_LEARN)
    assert sum(r.score for r in stub) == 0.0, [r.output for r in stub]
