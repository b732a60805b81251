"""Set environment variables for a while, then put back what was there: the one helper the demo
(``corpus.py``: nbgrader's autograde in this process) and the tests that run kernels use."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def patched_environ(values: Mapping[str, str], unset: tuple = ()) -> Iterator[None]:
    """Within the ``with`` block ``os.environ`` holds ``values`` and lacks the names in ``unset``;
    afterwards each of those names is as before (restored, or removed when it was not set)."""
    saved = {k: os.environ.get(k) for k in [*values, *unset]}
    os.environ.update(values)
    for k in unset:
        os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
