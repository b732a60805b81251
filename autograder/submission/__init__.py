"""The submission interface the checks use, wherever the student's code runs.

* ``client.ChildSubmission``: the code runs in a confined child process (the grade of record).
* ``local.LocalSubmission``: the code runs in this process (nbgrader's hidden test cells).
* ``limits.Limits`` and ``limits.StudentCodeError``: limits of a child, and the one error
  every failure of student code becomes.

This module only re-exports them, so checks and callers import from one place.
"""
from autograder.sandbox.limits import Limits, StudentCodeError  # noqa: F401
from autograder.submission.local import LocalObject, LocalSubmission  # noqa: F401
from autograder.submission.remote import ChildSubmission, RemoteObject, SandboxUnavailable, child_env  # noqa: F401
