"""What the notebook says is what is graded: each convention its text states is the one the
grader holds, and a mistake is named on every point it costs, also in a check whose title is
about something else."""
import json

import numpy as np
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT


def _release_text(name):
    nb = json.loads((PROJECT_ROOT / "assignments" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
    return " ".join(" ".join("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_top_p_rounding_convention_is_stated_and_held():
    """0.4 + 0.3 + 0.2 is 0.8999999999999999 in float64, short of 0.9: all four shares are kept."""
    from solutions import sampling as ref
    assert 0.4 + 0.3 + 0.2 < 0.9                      # the arithmetic the text quotes
    text = _release_text("sampling")
    assert "0.8999999999999999" in text and "all four are kept" in text
    kept = ref.top_p_filter([0.4, 0.3, 0.2, 0.1], 0.9)
    assert np.count_nonzero(kept) == 4


def test_kv_cache_text_says_what_the_grader_does():
    text = _release_text("kv_cache")
    assert "counts as projecting every one of its rows" not in text   # copying the weights costs nothing
    assert "(`np.asarray(W_Q)`) costs nothing" in text
    assert "`len(KVCache())` is 0" in text and "nothing reads them" in text


COPIES_THE_WEIGHTS = '''
def decode_step(x_new, cache, W_Q, W_K, W_V):
    W_Q, W_K, W_V = np.asarray(W_Q), np.asarray(W_K), np.asarray(W_V)
    x = np.asarray(x_new, dtype=float)
    q = x @ W_Q
    cache.append(x @ W_K, x @ W_V)
    return softmax(cache.keys @ q / np.sqrt(len(q))) @ cache.values
'''

EMPTY_KEYS_NONE = '''
class KVCache:
    def __init__(self):
        self.k, self.v = None, None            # nothing yet: the widths are unknown

    def append(self, k, v):
        k, v = np.array(k, dtype=float)[None], np.array(v, dtype=float)[None]
        self.k = k if self.k is None else np.vstack([self.k, k])
        self.v = v if self.v is None else np.vstack([self.v, v])

    @property
    def keys(self):
        return self.k

    @property
    def values(self):
        return self.v

    def __len__(self):
        return 0 if self.k is None else len(self.k)
'''


@pytest.mark.parametrize("function, code", [("decode_step", COPIES_THE_WEIGHTS), ("KVCache", EMPTY_KEYS_NONE)])
def test_what_the_text_allows_gets_full_marks(function, code, hand_in):
    result = hand_in(EXERCISES["kv_cache"], {function: code})
    assert [(c.name, c.output) for c in result.checks if c.score < c.max_score] == []


def test_dropping_the_crossing_token_is_named_in_the_tie_check_too(hand_in):
    from autograder.demo.mistakes import all_mistakes
    from exercises.sampling.wrong import CROSSING_DROPPED
    mistake = next(m for m in all_mistakes() if (m.exercise, m.label) == ("sampling", "crossing_token_dropped"))
    result = hand_in(EXERCISES["sampling"], {"top_p_filter": mistake.code})
    lost = {c.name: c.output for c in result.checks if c.score < c.max_score}
    assert "top_p_filter: ties at the cut go to the lower id; p = 1 keeps every token" in lost
    for name, output in lost.items():
        assert CROSSING_DROPPED in output, (name, output)
