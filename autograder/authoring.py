"""The one module an exercise imports from the grader.

An exercise folder (``exercises/<name>/``) writes its fixed cases, its other hidden checks, its
worked figures and its hand-ins against these names only, so the grader's own layout can
change without touching any exercise. ``docs/authoring.md`` shows how each is used.
"""
from autograder.checks.api import Mismatch, check, excuse, expect_close, expect_equal, fail, fmt  # noqa: F401
from autograder.checks.cases import Case, Check, hidden_checks  # noqa: F401  (the fixed cases: cases.py)
from autograder.child.probes import PROBES  # noqa: F401  (objects a check builds in the child: models, generators)
from autograder.child.wire import Opaque  # noqa: F401
from autograder.core.worked import FOUNDATIONS, FROM_SCRATCH, Source, Worked  # noqa: F401
from autograder.sandbox.limits import StudentCodeError  # noqa: F401
from autograder.sandbox.tiktoken_cache import CL100K_URL, cache_dir  # noqa: F401  (tokens: the production tokenizer)
from autograder.submission.repeated import Accept  # noqa: F401  (which values let submission.repeat go on)

__all__ = [
    "Accept", "CL100K_URL", "Case", "Check", "FOUNDATIONS", "FROM_SCRATCH", "Mismatch", "Mistake", "Opaque", "PROBES", "Source", "StudentCodeError",  # noqa: F822 (Mistake: module __getattr__ below)
    "Worked", "cache_dir", "check", "excuse", "expect_close", "expect_equal", "fail", "fmt", "hidden_checks",
]


def __getattr__(name):
    """``Mistake`` (for ``hand_ins.py``) is read from ``autograder.demo.mistakes`` only when asked:
    the Gradescope bundle leaves the demo out, and its checks import this module too."""
    if name == "Mistake":
        from autograder.demo.mistakes import Mistake
        return Mistake
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
