"""Worked values of the "sampling" exercise.

Each entry is a figure the course text prints, where it prints it, and how the reference
solution (``solutions/sampling.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.worked import FOUNDATIONS, Source, Worked

INPUTS = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Tokenize, Embed, and Add Position")

# "the cat": each token's embedding plus its position stamp, one row per token.
X_THE_CAT = np.array([[1.0, 0.0], [1.0, 1.0]])

WORKED = [
    Worked('input vector of "cat" (its embedding plus its position stamp)', INPUTS, [1, 1],
           lambda ref: X_THE_CAT[1]),
]
