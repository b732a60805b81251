"""Visible cases of the "sampling" exercise: what students see under each function.

``python -m autograder build`` writes ``VISIBLE`` into the notebook as values only (see
``autograder/course/visible.py``); the figures come from ``worked.py``, the mistakes' values from
``wrong.py``.
"""
import numpy as np

from autograder.authoring import Visible
from solutions import sampling as ref

from .worked import SHARES_T1, THE_CAT_LOGITS, toy_weights
from .wrong import (
                    ASCENDING,
                    CROSSING_DROPPED,
                    GLOBAL_STATE,
                    GREEDY_IDS,
                    LAST_TIE,
                    LIVE_THE,
                    NOT_RENORMALISED,
                    PROMPT_DROPPED,
                    REVERSED_TIES,
                    _softmax,
                    _temperature_mistakes,
                    _top_p_variant,
)

_LIVE_THE_3 = np.round(LIVE_THE, 6)
_THE_CAT_P = np.round(_softmax(THE_CAT_LOGITS), 6)
_SAME_SEED = """probs = {probs}
runs = []
for global_seed in (0, 1):
    np.random.seed(global_seed)            # must not matter: the draws come from rng
    rng = np.random.default_rng(5)
    runs.append([sample_next(probs, rng) for _ in range(40)])
return runs[0] == runs[1]"""
_SHARE = """probs = {probs}
rng = np.random.default_rng(2026)
draws = [sample_next(probs, rng) for _ in range(4000)]
return draws.count(4) / len(draws)     # how often queen (id 4) came up"""
_W = toy_weights(ref)
_GREEDY = """weights = {{"table": {table}, "W_hidden": {W_hidden}, "b_hidden": {b_hidden},
           "W_out": {W_out}, "b_out": {b_out}}}

def model(ids):   # toy model 1: the last two ids, side by side, through a ReLU layer
    x = weights["table"][list(ids)[-2:]].reshape(-1)
    return np.maximum(x @ weights["W_hidden"] + weights["b_hidden"], 0) @ weights["W_out"] + weights["b_out"]

return generate(model, [0, 1], 4, 0, None)"""
_QUEENS = _GREEDY.replace("return generate(model, [0, 1], 4, 0, None)", """queens = 0
for seed in range(1000):
    queens += generate(model, [0, 1], 2, 1, np.random.default_rng(seed))[3] == 4
return queens / 1000      # queen's share at the fork""")

VISIBLE = [
    Visible("apply_temperature", 'toy model 1 after "live the" at T = 0.5 (king 0.545, queen 0.455)',
            "apply_temperature({logits}, 0.5)", inputs={"logits": _LIVE_THE_3},
            expected=ref.apply_temperature(_LIVE_THE_3, 0.5), atol=5e-4,
            mistakes=_temperature_mistakes(_LIVE_THE_3, 0.5)),
    Visible("apply_temperature", 'toy model 1 after "live the" at T = 2 (king 0.502, queen 0.479, banana 0.0054)',
            "apply_temperature({logits}, 2)", inputs={"logits": _LIVE_THE_3},
            expected=ref.apply_temperature(_LIVE_THE_3, 2), atol=5e-5,
            mistakes=_temperature_mistakes(_LIVE_THE_3, 2)),
    Visible("apply_temperature", "T = 0 is greedy: share 1 on the first of the top scores",
            "apply_temperature({logits}, 0)", inputs={"logits": np.array([1.0, 3.0, -2.0, 3.0, 0.5])},
            expected=[0.0, 1.0, 0.0, 0.0, 0.0], mistakes={LAST_TIE: [0.0, 0.0, 0.0, 1.0, 0.0]}),
    Visible("apply_temperature", "a negative temperature raises ValueError", "apply_temperature({logits}, -1)",
            inputs={"logits": THE_CAT_LOGITS}, compare="raises", expected="ValueError"),
    Visible("sample_next", 'queen\'s share in 4,000 draws after "live the" at T = 1 (0.477)', _SHARE,
            inputs={"probs": ref.apply_temperature(_LIVE_THE_3, 1)}, expected=SHARES_T1[1], atol=0.04),
    Visible("sample_next", "the same seed gives the same draws, whatever np.random's global state",
            _SAME_SEED, inputs={"probs": ref.apply_temperature(_LIVE_THE_3, 2)}, compare="equal", expected=True,
            mistakes={GLOBAL_STATE: False}),
    Visible("top_p_filter", '"the cat" with p = 0.75: sat and the are kept, renormalised',
            "top_p_filter({probs}, 0.75)", inputs={"probs": _THE_CAT_P}, expected=ref.top_p_filter(_THE_CAT_P, 0.75),
            mistakes={CROSSING_DROPPED: _top_p_variant(_THE_CAT_P, 0.75, "crossing_dropped"),
                      NOT_RENORMALISED: _top_p_variant(_THE_CAT_P, 0.75, "not_renormalised")}),
    Visible("top_p_filter", '"the cat" with p = 0.4: sat alone reaches it', "top_p_filter({probs}, 0.4)",
            inputs={"probs": _THE_CAT_P}, expected=ref.top_p_filter(_THE_CAT_P, 0.4),
            mistakes={ASCENDING: _top_p_variant(_THE_CAT_P, 0.4, "ascending")}),
    Visible("top_p_filter", "ties at the cut go to the lower id", "top_p_filter({probs}, 0.5)",
            inputs={"probs": np.array([0.1, 0.3, 0.3, 0.3])}, expected=[0.0, 0.5, 0.5, 0.0],
            mistakes={REVERSED_TIES: _top_p_variant([0.1, 0.3, 0.3, 0.3], 0.5, "reversed_ties")}),
    Visible("generate", 'greedy from "long live": long live the king said yes', _GREEDY,
            inputs=dict(_W), compare="equal", expected=GREEDY_IDS, mistakes={PROMPT_DROPPED: GREEDY_IDS[2:]}),
    Visible("generate", "T = 1: queen at the fork in about 47.7% of 1,000 seeds", _QUEENS, inputs=dict(_W),
            expected=SHARES_T1[1], atol=0.08, mistakes={"decode greedily whatever T is": 0.0}),
]
