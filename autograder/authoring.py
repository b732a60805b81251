"""The one module an exercise imports from the grader.

An exercise folder (``exercises/<name>/``) writes its hidden checks, its visible cases, its
worked figures and its hand-ins against these names only, so the grader's own layout can
change without touching any exercise. ``docs/authoring.md`` shows how each is used.
"""
from .checking import Mismatch, check, expect_close, expect_equal, fail, fmt  # noqa: F401
from .child.wire import Opaque  # noqa: F401
from .limits import StudentCodeError  # noqa: F401
from .tiktoken_cache import CL100K_URL, cache_dir  # noqa: F401  (tokens: the production tokenizer)
from .visible import Visible  # noqa: F401
from .worked import FOUNDATIONS, FROM_SCRATCH, Source, Worked  # noqa: F401

__all__ = [
    "CL100K_URL", "FOUNDATIONS", "FROM_SCRATCH", "Mismatch", "Mistake", "Opaque", "Source", "StudentCodeError",
    "Visible", "Worked", "cache_dir", "check", "expect_close", "expect_equal", "fail", "fmt",
]


def __getattr__(name):
    """``Mistake`` (for ``hand_ins.py``) is read from ``autograder.demo.mistakes`` only when asked:
    the Gradescope bundle leaves the demo out, and its checks import this module too."""
    if name == "Mistake":
        from .demo.mistakes import Mistake
        return Mistake
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
