"""The submission interface the checks use, wherever the student's code runs.

* ``client.ChildSubmission``: the code runs in a confined child process (the grade of record).
* ``local.LocalSubmission``: the code runs in this process (nbgrader's hidden test cells).
* ``limits.Limits`` and ``limits.StudentCodeError``: limits of a child, and the one error
  every failure of student code becomes.

This module only re-exports them, so checks and callers import from one place. ``local`` and
``remote`` (numpy, the wire codec) are imported when one of their names is first asked for, so
that importing a light submodule (``submission.files``, ``submission.notebook``) does not load
them: the grading command's own process reads notebooks but runs no student code.
"""
from autograder.sandbox.limits import Limits, StudentCodeError  # noqa: F401

_LAZY = {"LocalObject": "local", "LocalSubmission": "local", "ChildSubmission": "remote",
         "RemoteObject": "remote", "SandboxUnavailable": "remote", "child_env": "remote"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
