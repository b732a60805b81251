"""Worked values of the "sampling" exercise: temperature on toy model 1 at the fork after
"live the", greedy decoding of the toy, and the "sat"/"the" shares of the "the cat" example.

Each entry is a figure the course texts print, where they print it, and how the reference
solution (``solutions/sampling.py``) reproduces it; ``docs/worked-examples.md`` shows them side
by side. The text prints the temperature shares in whole percents (52/48, 55/45, 50/48, "half
a percent"); they are typed here to one more digit, as the course's re-computation gives them
(the note of each entry says what the text prints), and the checks import them from here.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, FROM_SCRATCH, Source, Worked

MODEL_1 = Source(FROM_SCRATCH, "Build it: a language model in 60 lines / What you get")
GENERATOR = Source(FROM_SCRATCH, "From tray to word: the judges / Run it as a generator")
THE_CAT = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Feed-Forward, Logits, Softmax, Sample")

# Toy model 1's vocabulary, in the order of the course's code.
VOCAB = ("long", "live", "the", "king", "queen", "said", "yes", "peel", "banana", "now")
KING, QUEEN, BANANA = VOCAB.index("king"), VOCAB.index("queen"), VOCAB.index("banana")

# Shares (king, queen) after "live the", per temperature; banana's share at T = 2.
SHARES_T1 = (0.523, 0.477)
SHARES_T05 = (0.545, 0.455)
SHARES_T2 = (0.502, 0.479)
BANANA_T2 = 0.0054
# Greedy decoding from "long live", four steps.
GREEDY_TEXT = "long live the king said yes"
# "the cat": the five logits (the, cat, sat, ran, mat) of the next-token example, and the
# shares of "sat" and "the" at T = 1; greedy picks "sat".
THE_CAT_LOGITS = np.array([1.669762, 1.0, 2.669762, -0.669762, 0.669762])
SAT, THE = 2, 0
SAT_THE_T1 = (0.5791, 0.2130)

_RUN = {}


def toy_weights(ref):
    """Toy model 1 trained by the reference as the course trains it, once per reference module."""
    if ref not in _RUN:
        _RUN[ref] = ref.train_toy_model()
    return _RUN[ref]


def live_the_logits(ref):
    """The ten scores toy model 1 gives after "live the"."""
    return ref.toy_scores(toy_weights(ref), [VOCAB.index("live"), VOCAB.index("the")])


def _shares(ref, T, *ids):
    return ref.apply_temperature(live_the_logits(ref), T)[list(ids)]


def _greedy(ref):
    ids = ref.generate(lambda ids: ref.toy_scores(toy_weights(ref), ids), [0, 1], 4, 0, None)
    return " ".join(VOCAB[i] for i in ids)


WORKED = [
    Worked('king and queen after "live the" at T = 1', MODEL_1, list(SHARES_T1),
           lambda ref: _shares(ref, 1, KING, QUEEN), tol=0.0005, note="The text prints 52% and 48%."),
    Worked('king and queen after "live the" at T = 0.5', GENERATOR, list(SHARES_T05),
           lambda ref: _shares(ref, 0.5, KING, QUEEN), tol=0.0005, note="The text prints 55/45."),
    Worked('king and queen after "live the" at T = 2', GENERATOR, list(SHARES_T2),
           lambda ref: _shares(ref, 2, KING, QUEEN), tol=0.0005, note="The text prints 50/48."),
    Worked('banana after "live the" at T = 2', GENERATOR, BANANA_T2,
           lambda ref: _shares(ref, 2, BANANA)[0], tol=0.00005,
           note='The text says banana "creeps up to half a percent".'),
    Worked('greedy decoding from "long live", four steps', GENERATOR, GREEDY_TEXT, _greedy),
    Worked('"sat" and "the" at T = 1 in "the cat" (greedy picks "sat")', THE_CAT, list(SAT_THE_T1),
           lambda ref: ref.apply_temperature(THE_CAT_LOGITS, 1)[[SAT, THE]], tol=5e-5),
]
