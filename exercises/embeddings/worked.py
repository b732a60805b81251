"""Worked values of the "embeddings" exercise: cosine similarity, and toy model 1's similarities.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/embeddings.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, FROM_SCRATCH, Source, Worked

COSINE = Source(FOUNDATIONS, "2. Embeddings: Meaning as Geometry / Questions to Work Through")
MODEL_1 = Source(FROM_SCRATCH, "Build it: a language model in 60 lines / What you get")

_RUN = {}


def _toy(ref):
    """Toy model 1 trained as the text trains it (3,001 steps, seed 0), once per reference module."""
    if ref not in _RUN:
        _RUN[ref] = ref.train_toy_model()
    return _RUN[ref]


def _similarity(ref, table, a, b):
    return ref.cosine_similarity(table[ref.TOY_INDEX[a]], table[ref.TOY_INDEX[b]])


WORKED = [
    Worked("cos((1, 2, 2), (2, 4, 4))", COSINE, 1.0,
           lambda ref: ref.cosine_similarity(np.array([1.0, 2, 2]), np.array([2.0, 4, 4])), tol=1e-12),
    Worked("king~queen before training", MODEL_1, 0.577,
           lambda ref: _similarity(ref, _toy(ref)["start"], "king", "queen"), tol=0.0005),
    Worked("king~banana before training", MODEL_1, -0.487,
           lambda ref: _similarity(ref, _toy(ref)["start"], "king", "banana"), tol=0.0005),
    Worked("king~queen after training", MODEL_1, 0.988,
           lambda ref: _similarity(ref, _toy(ref)["table"], "king", "queen"), tol=0.0005),
    Worked("king~banana after training", MODEL_1, -0.458,
           lambda ref: _similarity(ref, _toy(ref)["table"], "king", "banana"), tol=0.0005),
]
