"""A mistake is named by what it does, not by how it is spelled: each way of writing the causal
mask (-inf, -1e9, np.finfo(float).min, a boolean mask applied with np.where or by
multiplication) is handed in through the real grader, right (full marks) and with the diagonal
masked too (every lost point names the mistake)."""
import pytest

from autograder.core.registry import EXERCISES
from exercises.attention.wrong import DIAGONAL_MASKED as GRID_DIAGONAL
from exercises.attention.wrong import MASKED_SCORES
from exercises.kv_cache.wrong import DIAGONAL_MASKED

# How a causal mask is applied to `scaled` (T x T scores), keeping entries where `allowed`.
SPELLINGS = {
    "where_inf": "weights = softmax(np.where(allowed, scaled, -np.inf), axis=-1)",
    "where_1e9": "weights = softmax(np.where(allowed, scaled, -1e9), axis=-1)",
    "where_finfo": "weights = softmax(np.where(allowed, scaled, np.finfo(float).min), axis=-1)",
    "added_1e9": "weights = softmax(scaled + np.where(allowed, 0.0, -1e9), axis=-1)",
    "multiplied": ("with np.errstate(invalid='ignore'):\n"
                   "        top = np.max(np.where(allowed, scaled, -np.inf), axis=-1, keepdims=True)\n"
                   "        e = np.exp(np.where(allowed, scaled - top, 0.0)) * allowed\n"
                   "        weights = e / e.sum(axis=-1, keepdims=True)"),
}
RIGHT, DIAGONAL = "k=0", "k=-1"   # np.tril(..., k): the diagonal kept, or masked too


def _kv_attention(spelling, k):
    return f'''
def causal_self_attention(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    Q, K, V = (X @ W for W in (W_Q, W_K, W_V))
    scaled = Q @ K.T / np.sqrt(Q.shape[1])
    allowed = np.tril(np.ones((len(X), len(X)), dtype=bool), {k})
    {SPELLINGS[spelling]}
    return weights @ V
'''


def _grid(spelling, k, return_masked=False):
    return f'''
def attention_matrix(Q, K, V, causal=False):
    Q, K, V = (np.asarray(M, dtype=float) for M in (Q, K, V))
    scores = Q @ K.T
    scaled = scores / np.sqrt(Q.shape[1])
    allowed = np.tril(np.ones((len(Q), len(Q)), dtype=bool), {k}) if causal else np.ones((len(Q), len(Q)), bool)
    {SPELLINGS[spelling]}
    {"scores = np.where(allowed, scores, -1e9)" if return_masked else ""}
    return scores, weights, weights @ V
'''


def _lost(result):
    return {c.name: c.output for c in result.checks if c.score < c.max_score}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_kv_cache_each_mask_spelling(spelling, hand_in):
    kv = EXERCISES["kv_cache"]
    assert _lost(hand_in(kv, {"causal_self_attention": _kv_attention(spelling, RIGHT)})) == {}
    lost = _lost(hand_in(kv, {"causal_self_attention": _kv_attention(spelling, DIAGONAL)}))
    assert set(lost) == {"causal_self_attention: the contexts of \"the cat\"",
                         "causal_self_attention: random sequences (T up to 16, d_k != d_v)"}
    for name, output in lost.items():
        assert DIAGONAL_MASKED in output, (name, output)


@pytest.mark.slow
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_attention_each_mask_spelling(spelling, hand_in):
    attention = EXERCISES["attention"]
    assert _lost(hand_in(attention, {"attention_matrix": _grid(spelling, RIGHT)})) == {}
    lost = _lost(hand_in(attention, {"attention_matrix": _grid(spelling, DIAGONAL)}))
    assert set(lost) == {'attention_matrix: causal weights for "river bank loan"',
                         "attention_matrix: random cases, causal and not, large scores"}
    for name, output in lost.items():
        assert GRID_DIAGONAL in output, (name, output)


def test_masked_scores_are_named_whatever_the_fill(hand_in):
    """Raw scores returned masked, filled with -1e9 rather than -inf: still the named mistake."""
    lost = _lost(hand_in(EXERCISES["attention"], {"attention_matrix": _grid("where_1e9", RIGHT, True)}))
    assert 'attention_matrix: causal weights for "river bank loan"' in lost
    for name, output in lost.items():
        assert MASKED_SCORES in output, (name, output)
