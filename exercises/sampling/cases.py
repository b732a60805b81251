"""Fixed cases of the "sampling" exercise: temperature and top-p on toy model 1 at the fork
after "live the" and on "the cat" (the course text's figures, ``worked.py``), and what the
notebook shows of sampling and generation, each declared once.

``python -m autograder build`` writes the visible ones into the notebook as values only; the
graded ones are hidden checks too (``checks.py`` adds them; ``autograder/checks/cases.py``).
The mistakes' sentences and values come from ``wrong.py``. The graded checks of sample_next
and generate judge draws by their counts and live in ``checks.py``.
"""
import numpy as np

from autograder.authoring import Case, Check
from solutions import sampling as ref

from .worked import (
    BANANA,
    BANANA_T2,
    KING,
    QUEEN,
    SAT,
    SAT_THE_T1,
    SHARES_T05,
    SHARES_T1,
    SHARES_T2,
    THE,
    THE_CAT_LOGITS,
    toy_weights,
)
from .wrong import (
    ASCENDING,
    CROSSING_DROPPED,
    GLOBAL_STATE,
    GREEDY_IDS,
    GREEDY_OR_SAME_DRAWS,
    IGNORES_RNG,
    LARGER_SHARE,
    LAST_TIE,
    LIVE_THE,
    NEVER_DRAWS,
    NOT_RENORMALISED,
    OWN_GENERATOR,
    PROMPT_DROPPED,
    TIE_SPLIT,
    ZERO_DIVIDED,
    _softmax,
    _temperature_mistakes,
    _top_p_mistakes,
    _top_p_variant,
)

_LIVE_THE_3 = np.round(LIVE_THE, 6)
_THE_CAT_P = np.round(_softmax(THE_CAT_LOGITS), 6)
_TIED = np.array([1.0, 3.0, -2.0, 3.0, 0.5])
_GREEDY_LIVE_THE = np.eye(len(LIVE_THE))[KING]
_SAME_SEED = """probs = {probs}
runs = []
for global_seed in (0, 1):
    np.random.seed(global_seed)            # must not matter: the draws come from rng
    rng = np.random.default_rng(5)
    runs.append([sample_next(probs, rng) for _ in range(40)])
return runs[0] == runs[1]"""
_MOVES_ON = """probs = {probs}
rng = np.random.default_rng(3)
for _ in range(5):
    sample_next(probs, rng)
return rng.random() != np.random.default_rng(3).random()    # rng has moved on"""
_SKEWED = """rng = np.random.default_rng(2027)
draws = [sample_next(np.array([0.7, 0.3]), rng) for _ in range(4000)]
return draws.count(0) / len(draws)     # how often the 0.7 token came up"""
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
_SEEDED = _GREEDY.replace("return generate(model, [0, 1], 4, 0, None)", """texts = []
for seed in (11, 11, 12):
    rng = np.random.default_rng(seed)
    texts.append(generate(model, [0, 1], 6, 1, rng))
moved_on = rng.random() != np.random.default_rng(12).random()
return texts[0] == texts[1], moved_on     # same seed, same text; rng moves on""")
_QUEENS = _GREEDY.replace("return generate(model, [0, 1], 4, 0, None)", """queens = 0
for seed in range(1000):
    queens += generate(model, [0, 1], 2, 1, np.random.default_rng(seed))[3] == 4
return queens / 1000      # queen's share at the fork""")


def _shares(logits, T, what, **more):
    """``apply_temperature(logits, T)`` against the reference, to 1e-9."""
    return Case(f"apply_temperature({{logits}}, {T})", inputs={"logits": logits}, expected=ref.apply_temperature(logits, T),
                atol=1e-9, what=what, mistakes=_temperature_mistakes(logits, T), hidden=True, **more)


def _picked(logits, T, ids, want, atol, what):
    """Some shares of ``apply_temperature(logits, T)`` against the course's figures."""
    return Case(f"np.asarray(apply_temperature({{logits}}, {T}))[{list(ids)}]", inputs={"logits": logits},
                expected=list(want), atol=atol, what=what, hidden=True)


def _top_p(probs, p, what, **more):
    """``top_p_filter(probs, p)`` against the reference, to 1e-9."""
    return Case(f"top_p_filter({{probs}}, {p})", inputs={"probs": probs}, expected=ref.top_p_filter(probs, p),
                atol=1e-9, what=what, mistakes=_top_p_mistakes(probs, p), **more)


def _negative(logits, T, **more):
    return Case(f"apply_temperature({{logits}}, {T})", inputs={"logits": logits}, compare="raises",
                expected="ValueError", what=f"apply_temperature({np.round(logits, 3).tolist()}, {T})",
                why="a negative temperature turns the ranking upside down and means nothing", **more)


CASES = [
    # -- apply_temperature --
    Check("apply_temperature", 'toy model 1 after "live the": king and queen at T = 1, 0.5 and 2, banana at T = 2',
          points=2, name="check_temperature_toy", cases=[
              *(case for T, shares in ((1, SHARES_T1), (0.5, SHARES_T05), (2, SHARES_T2)) for case in (
                  _shares(LIVE_THE, T, f'shares after "live the" at T = {T}'),
                  _picked(LIVE_THE, T, (KING, QUEEN), shares, 5e-4, f"king and queen at T = {T} (the course's figures)"))),
              _picked(LIVE_THE, 2, (BANANA,), (BANANA_T2,), 5e-5, 'banana after "live the" at T = 2 (about half a percent)'),
          ]),
    Check("apply_temperature", f'toy model 1 after "live the" at T = 0.5 (king {SHARES_T05[0]}, queen {SHARES_T05[1]})',
          cases=[Case("apply_temperature({logits}, 0.5)", inputs={"logits": _LIVE_THE_3},
                      expected=ref.apply_temperature(_LIVE_THE_3, 0.5), atol=5e-4,
                      mistakes=_temperature_mistakes(_LIVE_THE_3, 0.5))]),
    Check("apply_temperature", f'toy model 1 after "live the" at T = 2 (king {SHARES_T2[0]}, queen {SHARES_T2[1]}, '
                               f'banana {BANANA_T2})',
          cases=[Case("apply_temperature({logits}, 2)", inputs={"logits": _LIVE_THE_3},
                      expected=ref.apply_temperature(_LIVE_THE_3, 2), atol=5e-5,
                      mistakes=_temperature_mistakes(_LIVE_THE_3, 2))]),
    Check("apply_temperature", '"sat" against "the" in "the cat" as T grows (0.5791 and 0.2130 at T = 1)', points=1,
          name="check_temperature_the_cat", cases=[
              *(case for T in (1, 2, 5, 25, 0.5) for case in (
                  _shares(THE_CAT_LOGITS, T, f'shares of "the cat" (the, cat, sat, ran, mat) at T = {T}'),
                  *([_picked(THE_CAT_LOGITS, 1, (SAT, THE), SAT_THE_T1, 5e-5, '"sat" and "the" at T = 1')]
                    if T == 1 else []))),
          ]),
    Check("apply_temperature", "T = 0 is greedy: share 1 on the top score, the first of tied ones", points=1,
          name="check_temperature_zero", cases=[
              Case("apply_temperature({logits}, 0)", inputs={"logits": LIVE_THE}, expected=_GREEDY_LIVE_THE, atol=0.0,
                   what='shares after "live the" at T = 0', mistakes={ZERO_DIVIDED: np.full(len(LIVE_THE), np.nan)},
                   hidden=True),
              Case("apply_temperature({logits}, 0)", inputs={"logits": _TIED}, expected=[0.0, 1.0, 0.0, 0.0, 0.0],
                   atol=0.0, label="T = 0 is greedy: share 1 on the first of the top scores",
                   what=f"shares of {_TIED.tolist()} at T = 0 (ids 1 and 3 tie)",
                   mistakes={LAST_TIE: [0, 0, 0, 1, 0], TIE_SPLIT: [0, .5, 0, .5, 0],
                             ZERO_DIVIDED: np.full(len(_TIED), np.nan)}),
          ]),
    Check("apply_temperature", "a negative temperature raises ValueError", points=1, name="check_temperature_negative",
          cases=[_negative(LIVE_THE, -1.0, hidden=True), _negative(LIVE_THE, -0.5, hidden=True),
                 _negative(THE_CAT_LOGITS, -1)]),
    # -- sample_next (its graded checks count draws: checks.py) --
    Check("sample_next", f'queen\'s share in 4,000 draws after "live the" at T = 1 ({SHARES_T1[1]})', cases=[
        Case(_SHARE, inputs={"probs": ref.apply_temperature(_LIVE_THE_3, 1)}, expected=SHARES_T1[1], atol=0.04),
    ]),
    Check("sample_next", "0.7 and 0.3: the 0.7 token in about 70% of 4,000 draws (not more)", cases=[
        Case(_SKEWED, inputs={}, expected=0.7, atol=0.03, mistakes={LARGER_SHARE: 0.786}),
    ]),
    Check("sample_next", "the draws come from rng: it has moved on after them", cases=[
        Case(_MOVES_ON, inputs={"probs": ref.apply_temperature(_LIVE_THE_3, 2)}, compare="equal", expected=True,
             mistakes={NEVER_DRAWS: False}),
    ]),
    Check("sample_next", "the same seed gives the same draws, whatever np.random's global state", cases=[
        Case(_SAME_SEED, inputs={"probs": ref.apply_temperature(_LIVE_THE_3, 2)}, compare="equal", expected=True,
             mistakes={GLOBAL_STATE: False}),
    ]),
    # -- top_p_filter --
    Check("top_p_filter", '"the cat" with p = 0.75 and p = 0.4: the token that crosses p is kept', points=1,
          name="check_top_p_the_cat", cases=[
              _top_p(ref.apply_temperature(THE_CAT_LOGITS, 1), p,
                     f'top-p {p} of the shares of "the cat" (the, cat, sat, ran, mat)', hidden=True)
              for p in (0.75, 0.4)]),
    Check("top_p_filter", '"the cat" with p = 0.75: sat and the are kept, renormalised', cases=[
        Case("top_p_filter({probs}, 0.75)", inputs={"probs": _THE_CAT_P}, expected=ref.top_p_filter(_THE_CAT_P, 0.75),
             mistakes={CROSSING_DROPPED: _top_p_variant(_THE_CAT_P, 0.75, "crossing_dropped"),
                       NOT_RENORMALISED: _top_p_variant(_THE_CAT_P, 0.75, "not_renormalised")}),
    ]),
    Check("top_p_filter", '"the cat" with p = 0.4: sat alone reaches it', cases=[
        Case("top_p_filter({probs}, 0.4)", inputs={"probs": _THE_CAT_P}, expected=ref.top_p_filter(_THE_CAT_P, 0.4),
             mistakes={ASCENDING: _top_p_variant(_THE_CAT_P, 0.4, "ascending"),
                       CROSSING_DROPPED: _top_p_variant(_THE_CAT_P, 0.4, "crossing_dropped"),
                       NOT_RENORMALISED: _top_p_variant(_THE_CAT_P, 0.4, "not_renormalised")}),
    ]),
    Check("top_p_filter", 'toy model 1 after "live the" with p = 0.9 and p = 0.5, at T = 1 and 2', points=1,
          name="check_top_p_toy", cases=[
              _top_p(ref.apply_temperature(LIVE_THE, T), p, f'top-p {p} of the shares after "live the" at T = {T}',
                     hidden=True) for T in (1, 2) for p in (0.9, 0.5)]),
    Check("top_p_filter", "ties at the cut go to the lower id; p = 1 keeps every token", points=1,
          name="check_top_p_ties", cases=[
              _top_p(np.array(probs), p, f"top_p_filter({probs}, {p})", hidden=i > 0,
                     label="ties at the cut go to the lower id")
              for i, (probs, p) in enumerate((([0.1, 0.3, 0.3, 0.3], 0.5), ([0.25, 0.25, 0.25, 0.25], 0.4),
                                              ([0.2, 0.5, 0.3], 1.0), ([0.1] * 10, 1.0)))]),
    # -- generate (its graded checks run toy models in the student's process: checks.py) --
    Check("generate", 'greedy from "long live": long live the king said yes', cases=[
        Case(_GREEDY, inputs=dict(_W), compare="equal", expected=GREEDY_IDS, mistakes={PROMPT_DROPPED: GREEDY_IDS[2:]}),
    ]),
    Check("generate", "the same seed gives the same text, and rng moves on", cases=[
        Case(_SEEDED, inputs=dict(_W), compare="equal", expected=(True, True),
             mistakes={OWN_GENERATOR: (False, True), IGNORES_RNG: (True, False)}),
    ]),
    Check("generate", f"T = 1: queen at the fork in about {SHARES_T1[1]:.1%} of 1,000 seeds", cases=[
        Case(_QUEENS, inputs=dict(_W), expected=SHARES_T1[1], atol=0.08,
             mistakes={GREEDY_OR_SAME_DRAWS: 0.0}),
    ]),
]
