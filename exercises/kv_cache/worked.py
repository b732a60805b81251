"""Worked values of the "kv_cache" exercise: the size of a KV cache.

Each entry is a figure the text prints, where it prints it, and how the reference solution
(``solutions/kv_cache.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FROM_SCRATCH, Source, Worked

LONG_CONTEXT = Source(FROM_SCRATCH, "Generating text, and why the first token is slow / Why long context is hard")

WORKED = [
    Worked("numbers cached per token, 12 layers of width 768", LONG_CONTEXT, 18432,
           lambda ref: ref.kv_cache_size(12, 768, 1)[0]),
    Worked("numbers cached for a 100,000-token context (billions)", LONG_CONTEXT, 1.8,
           lambda ref: ref.kv_cache_size(12, 768, 100_000)[0] / 1e9, tol=0.05),
    Worked("bytes of that cache at 16-bit precision (GB)", LONG_CONTEXT, 3.7,
           lambda ref: ref.kv_cache_size(12, 768, 100_000, bytes_per_number=2)[1] / 1e9, tol=0.05,
           note='The text says "roughly 3.7 GB": 3.6864e9 bytes.'),
]


# -- figures the fixed cases and the checks compare with (cases.py, checks.py) --
# Section 4: the request "the cat".
X_THE_CAT = np.array([[1.0, 0.0], [1.0, 1.0]])
W_Q = np.array([[0.0, 1.0], [1.0, 0.0]])
W_K = np.array([[1.0, 1.0], [0.0, 1.0]])
W_V = np.array([[0.0, 1.0], [1.0, 0.0]])
K_THE, K_CAT = [1.0, 1.0], [1.0, 2.0]
V_THE, V_CAT = [0.0, 1.0], [1.0, 1.0]
# Section 7 (with section 4's weights): the contexts decoded through the cache.
CONTEXT_THE = [0.0, 1.0]
CONTEXT_CAT = [0.669762, 1.0]
# Section 7: the cache of 12 layers of width 768, at 2 bytes per number.
NUMBERS_PER_TOKEN = 18_432
NUMBERS_100K = 1_843_200_000
BYTES_100K = 3_686_400_000
