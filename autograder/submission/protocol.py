"""The one interface every submission the checks see offers (``typing.Protocol``).

Implemented by ``remote.ChildSubmission`` (the student's code in a child process, the grade
of record), ``local.LocalSubmission`` (the kernel's own namespace, inside ``nbgrader
autograde``) and ``grading.notebook.BrokenSubmission`` (a notebook that cannot run: every call fails
with ``StudentCodeError`` kind "not run"). Every call into student code either returns a
plain value (``child/wire.py``) or raises ``limits.StudentCodeError``.
"""
from typing import Any, Callable, Protocol, runtime_checkable


@runtime_checkable
class Submission(Protocol):
    def ensure_started(self) -> dict:
        """Start the student's code if needed; returns ``{"defined": [...], "errors": [...]}``."""

    def close(self) -> None:
        """Release the process and files behind the submission (idempotent)."""

    def function(self, name: str) -> Callable[..., Any]:
        """A callable forwarding to the student's function or class ``name``."""

    def call_keeping_args(self, name: str, *args, **kwargs) -> tuple:
        """``(result, args_after)``: the call's value and its arguments after the call."""

    def repeat(self, name: str, times: int, args: tuple = (), kwargs: dict | None = None,
               accept: Any = None, vary: dict | None = None) -> list:
        """``times`` calls of ``name`` with the same arguments, in one exchange; see ``repeated.py``."""

    def new(self, name: str, *args, **kwargs) -> Any:
        """An instance of the student's class ``name`` (a handle whose methods are forwarded)."""

    def probe(self, name: str, *args) -> Any:
        """A helper object built where the student's code runs (``child.probes.PROBES``)."""

    def probe_each(self, name: str, arg_lists: list) -> list:
        """``[probe(name, *args) for args in arg_lists]``, in one exchange."""

    def counted_weights(self, values) -> Any:
        """A ``counted.CountedWeights`` the student's code may multiply by, counted by the grader."""
