"""A grading worker's warm sandboxes (``warm.StudentSandbox``): the current student's, and a spare.

A worker grades one student's notebooks after another through one warm sandbox (``for_student``).
A new student gets the spare sandbox started ahead when there is one (its fork server has imported
numpy and the child's code meanwhile, about 0.2 CPU s; pyplot and tiktoken come later, for this
student only if a notebook needs them), and a new spare is started for whoever comes next. A spare
is bound to no student until taken, and serves only the one that takes it; a sandbox never serves
two students. The last spare of a run is closed unused, when the worker exits.

Each worker process has one ``WorkerSandboxes``, ``WORKER``; the pool runs ``start_spare`` as a
worker starts (``grading/early.py``: the spare boots while the command runs its preflight) and
``close_worker`` as it exits (both plain functions, which the pool pickles by name).
"""
from __future__ import annotations


class WorkerSandboxes:
    """The warm sandboxes of one grading worker.

    Attributes:
        current: ``(student_id, limits, StudentSandbox)`` of the student graded last, or ``None``.
        spare: ``(limits, StudentSandbox)`` started ahead for the next student, or ``None``.
    """

    def __init__(self):
        self.current = None
        self.spare = None

    def for_student(self, student_id: str, limits):
        """The warm sandbox for ``student_id`` (``warm.StudentSandbox``): the one of the previous
        notebook when it is the same student with the same ``limits`` and still usable, else a new
        one (the previous one is closed first), the spare when it was started with these limits.
        ``None`` when unconfined, at the setuid level (no namespaces to hold a fork server), or when
        it cannot start (the notebook then starts cold)."""
        current = self.current
        if current is not None and (current[0] != student_id or current[1] != limits or not current[2].usable):
            self.close_current()
        if self.current is None and limits.confine and limits.level in (None, "bubblewrap"):
            from autograder.sandbox.warm import StudentSandbox, WarmUnavailable
            box = self._take_spare(limits)
            if box is None:
                try:
                    box = StudentSandbox(limits)
                except WarmUnavailable:
                    return None
            self.current = (student_id, limits, box)
            self.start_spare(limits)
        return self.current[2] if self.current is not None else None

    def start_spare(self, limits) -> None:
        """Start a spare sandbox with ``limits`` for the next student (none when it cannot start)."""
        from autograder.sandbox.warm import StudentSandbox, WarmUnavailable
        try:
            self.spare = (limits, StudentSandbox(limits))
        except WarmUnavailable:
            self.spare = None

    def _take_spare(self, limits):
        spare, self.spare = self.spare, None
        if spare is None:
            return None
        if spare[0] == limits and spare[1].usable:
            return spare[1]
        spare[1].close()
        return None

    def close_current(self) -> None:
        """Close the current student's sandbox, if any."""
        if self.current is not None:
            self.current[2].close()
            self.current = None

    def close(self) -> None:
        """Close both sandboxes, the spare too."""
        self.close_current()
        if self.spare is not None:
            self.spare[1].close()
            self.spare = None


WORKER = WorkerSandboxes()  # this process's (a grading worker's)


def start_spare(limits) -> None:
    """``WORKER.start_spare(limits)``: what a pool's worker runs as it starts (``grading/early.py``)."""
    WORKER.start_spare(limits)


def close_worker() -> None:
    """``WORKER.close()``: what a pool's worker runs as it exits."""
    WORKER.close()
