"""One call made ``n`` times in one exchange with the student's process: the grader's half.

``submission.repeat(name, n, args, kwargs, accept)`` (``ChildSubmission`` through
``exchange.Exchange.repeat``, ``LocalSubmission``, ``checks/helpers.RecordingSubmission``)
returns the list of the ``n`` values that ``n`` separate calls ``function(name)(*args,
**kwargs)`` would have returned, and fails as the first of those calls that fails would have
(the same ``StudentCodeError``; the values before it are on the error as ``results_before``).
The child's half is ``child/repeat.py``; every repetition decodes the arguments afresh and has
the time limits of one call, and the grader gives each answer line the deadline of one call.

``accept`` (a set of ints, or ``None``): the repetition also ends after the first value that is
not one of them (an int, not a bool), which is then the list's last: a check that fails at the
first such value (sampling's token ids) makes no call after it, as with separate calls.
"""
from __future__ import annotations


def accepted(value, accept) -> bool:
    """Whether the repetition goes on after ``value`` (see the module docstring); ``accept``
    ``None`` accepts everything."""
    return accept is None or (type(value) is int and value in accept)


def check_times(times) -> int:
    """``times`` as a count of repetitions.

    Raises:
        ValueError: ``times`` is not an int >= 0 (a bool is not a count).
    """
    if type(times) is not int or times < 0:
        raise ValueError(f"repeat needs a count of calls, an int >= 0, not {times!r}")
    return times


class Repetitions:
    """The answer lines of one repeated call, as the grader reads them (the ``more`` hook of
    ``Exchange._exchange_timed``).

    Args:
        times: the repetitions asked for (int >= 1).
        accept: ``None``, or the set of ints that let the repetition go on.
        value_of: ``answer -> value`` of one ``{"ok": ...}`` answer line (handles become
            ``RemoteObject``s, as for a single call).
    Attributes:
        results: the values received so far, in order.
        finished: True once the last line was an ``ok`` one (the list is complete).
    """

    def __init__(self, times: int, accept, value_of):
        self.times, self.accept, self.value_of = times, accept, value_of
        self.results, self.finished = [], False

    def __call__(self, answer: dict) -> str:
        """``"skip"`` (not the line expected next: a repetition number out of turn), ``"next"``
        (a value; wait for the next line, with a fresh deadline) or ``"last"`` (the exchange
        ends with this line: the last value, or the error a separate call would have raised)."""
        rep = answer.get("rep")
        if rep is not None and rep != len(self.results):
            return "skip"
        if "ok" not in answer:
            return "last"
        value = self.value_of(answer)
        self.results.append(value)
        if rep is None or len(self.results) >= self.times or not accepted(value, self.accept):
            self.finished = True
            return "last"
        return "next"
