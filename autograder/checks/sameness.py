"""Whether two answers are the same, and plain copies of arguments: shared by the excuse's
rules (``helpers.py``) and the helpers' answer table (``answered.py``)."""
from __future__ import annotations

import numpy as np


def copied(value):
    """A copy of plain data (containers and arrays); anything else (a handle to an object in
    the child) as it is."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(copied(v) for v in value)
    if isinstance(value, dict):
        return {k: copied(v) for k, v in value.items()}
    return value


def same_value(a, b, ordered: bool = False) -> bool:
    """Whether two returned values are the same answer: lists and tuples alike, numbers
    to 1e-6 relative (1e-9 absolute), dicts with equal keys and values (and, with
    ``ordered``, the keys in the same order: a helper whose only mistake is its key order,
    such as tokens' ``get_pair_counts`` sorted alphabetically, is wrong)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y, ordered) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        if ordered and list(a) != list(b):
            return False
        return a.keys() == b.keys() and all(same_value(a[k], b[k], ordered) for k in a)
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        return type(a) is type(b) and a == b
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-6, atol=1e-9, equal_nan=True))
    except Exception:
        return False
    try:
        return bool(a == b)
    except Exception:
        return False
