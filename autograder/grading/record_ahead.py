"""The grades recorded in nbgrader's gradebook while the class is graded, not after it.

Recording a notebook (its scores, late penalty, manual overrides kept, feedback notebook: about
0.1 s on the build machine) needs only that notebook's result, so ``RecordAhead`` records each
result as the workers hand it in, in a thread of the grading command, through one gradebook
session (``gradebook.record_pairs_for_cli``, the same call the record stage makes). On README's
path (``--jobs 1``) the workers keep one core busy and the command's process waits: the gradebook's
time then passes during the grading instead of after it. The record stage (``class_run.record``,
``outputs.record``) hands it what it did not take (results reused from an earlier run, those taken
beyond ``QUEUED``), ends the session and gets the totals: the gradebook, the notes and the lines
printed are those of recording after the grading.

If the command stops during the grading, the notebooks recorded so far stay recorded (each as a
complete notebook: scores and feedback), as they would after an interrupted ``nbgrader autograde``;
the next run records every notebook again, which changes nothing for those (recording is
idempotent: ``tests/nbgrader_glue``). A thread that fails leaves the rest to the record stage,
which records every notebook as it always did.
"""
from __future__ import annotations

import queue
import threading

from autograder.grading import late


class RecordAhead:
    """Records each graded notebook as it comes (see the module docstring).

    Args:
        jobs: the run's ``vocabulary.Job`` list (a result is known by its job's position in it).
        gradebook: ``--gradebook`` ("auto" or a database URL; "none" records nothing: don't make one).
        path: what was graded (where the course is found).
        late_found: ``late.for_cli``'s finds (``{index: late.Late}``), marked on each result before
            it is recorded, as the record stage marks them.
    """

    QUEUED = 64  # results waiting at most (each held until recorded): memory bounded, the rest read back later

    def __init__(self, jobs: list, gradebook: str, path, late_found: dict | None = None):
        self.index = {id(job): i for i, job in enumerate(jobs)}
        self.gradebook, self.path, self.late_found = gradebook, path, dict(late_found or {})
        self.queue: queue.Queue = queue.Queue()
        self.taken: set = set()
        self.thread: threading.Thread | None = None
        self.totals: dict = {}
        self.outcome: bool | None = None  # record_pairs_for_cli's answer once the thread ends
        self.failed: BaseException | None = None

    def take(self, job, result) -> None:
        """Queue ``job``'s fresh ``result`` for recording (the grading's hand-in hook)."""
        i = self.index.get(id(job))
        if (i is None or result is None or self.failed is not None or self.outcome is not None
                or self.queue.qsize() >= self.QUEUED):
            return  # the record stage records it
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="gradebook-record-ahead", daemon=True)
            self.thread.start()
        self.taken.add(i)
        self.queue.put((job, self._marked(i, result)))

    def _marked(self, i, result):
        if i in self.late_found:
            late.mark([result], {0: self.late_found[i]})
        return result

    def _pairs(self):
        while (item := self.queue.get()) is not None:
            yield item

    def _work(self):
        from autograder.nbgrader_glue.gradebook import record_pairs_for_cli
        try:
            self.outcome = record_pairs_for_cli(self.gradebook, self.path, self._pairs(), self.totals)
        except BaseException as exc:  # noqa: BLE001 -- the record stage records every notebook instead
            self.failed = exc
        finally:
            while True:  # a session that ended early (no gradebook file) takes no more
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    break

    def finish(self, jobs: list, results) -> tuple | None:
        """Record what was not taken, end the session and wait for it.

        Args:
            jobs, results: the run's jobs and their results (a ``stream.Results``, read one at a time).
        Returns:
            ``(recorded, totals)`` as ``outputs.record`` returns them, or ``None`` when nothing was
            taken or the thread failed: the caller then records every notebook itself.
        """
        if self.thread is None:
            return None
        for i, job in enumerate(jobs):
            if i not in self.taken and self.failed is None and self.thread.is_alive():
                result = results[i]
                if result is not None:
                    self.queue.put((job, self._marked(i, result)))
        self.queue.put(None)
        self.thread.join()
        if self.failed is not None or self.outcome is None:
            return None
        return self.outcome, self.totals
