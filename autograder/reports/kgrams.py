"""Hashes of the k-grams that copydetect winnows, the same in every process.

copydetect 0.5.0 hashes each k-gram with Python's ``hash``, which is salted per process
(``PYTHONHASHSEED``): winnowing then keeps other fingerprints on each run, and a pair near the
threshold is flagged on one run of the class and not on the next. ``stable_kgrams`` replaces it
(``use_stable_hashes``) with a 64-bit polynomial hash of the k-gram's code points, finished by
splitmix64's mixer (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014) so that the minimum of each window is as unbiased as winnowing assumes (Schleimer,
Wilkerson and Aiken, "Winnowing", SIGMOD 2003)."""
from __future__ import annotations

import numpy as np

_BASE = np.uint64(0x100000001B3)  # FNV-1's 64-bit prime: odd, so no code point's weight vanishes


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, element-wise on ``uint64`` (wrapping arithmetic)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def stable_kgrams(string: str, k: int) -> np.ndarray:
    """The hash of every ``k``-character window of ``string``, in order: ``int64`` array of
    ``len(string) - k + 1`` values (empty when the text is shorter than ``k``); a drop-in for
    ``copydetect.utils.hashed_kgrams`` whose values do not depend on the process."""
    codes = np.frombuffer(string.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    n = len(codes) - k + 1
    if n <= 0:
        return np.array([], dtype=np.int64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * _BASE + codes[j:j + n]
        return _mix(h).view(np.int64)


def use_stable_hashes() -> None:
    """Make copydetect fingerprint with ``stable_kgrams`` in this process (idempotent)."""
    import copydetect.utils
    copydetect.utils.hashed_kgrams = stable_kgrams
