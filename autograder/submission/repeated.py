"""One call made ``n`` times in one exchange with the student's process: the grader's half.

``submission.repeat(name, n, args, kwargs, accept, vary)`` (``ChildSubmission`` through
``exchange.Exchange.repeat``, ``LocalSubmission``, ``checks/helpers.RecordingSubmission``)
returns the list of the ``n`` values that ``n`` separate calls ``function(name)(*args,
**kwargs)`` would have returned, and fails as the first of those calls that fails would have
(the same ``StudentCodeError``; the values before it are on the error as ``results_before``).
The child's half is ``child/repeat.py``; every repetition decodes the arguments afresh and has
the time limits of one call, and the grader gives each answer line the deadline of one call.

``vary`` (``{position: [value of repetition 0, 1, ...]}``): a positional argument that differs
between the repetitions (sampling's ``generate`` runs, each with a generator of its own, built
in one exchange by ``submission.probe_each``).

``accept`` (``None``, a set of ints, or an ``Accept``): the repetition also ends after the first
value it does not accept, which is then the list's last: a check that fails at the first such
value (sampling's token ids) makes no call after it, as with separate calls.
"""
from __future__ import annotations


class Accept:
    """The values that let a repetition go on: ints in ``allowed`` (``length`` ``None``), or lists
    or tuples of ``length`` ints whose item ``at`` is in ``allowed`` (bools are not ints here,
    nor numbers of other types).

    Args:
        allowed: iterable of ints. length: ``None`` or int >= 1. at: int, 0 <= at < length.
    """

    def __init__(self, allowed, length: int | None = None, at: int = 0):
        self.allowed = {a for a in allowed if type(a) is int}
        self.length, self.at = length, at
        if length is not None and not (type(length) is int and type(at) is int and 0 <= at < length):
            raise ValueError(f"Accept needs 0 <= at < length, got at={at!r}, length={length!r}")

    def __call__(self, value) -> bool:
        if self.length is None:
            return type(value) is int and value in self.allowed
        return (isinstance(value, (list, tuple)) and len(value) == self.length
                and all(type(v) is int for v in value) and value[self.at] in self.allowed)

    def to_message(self) -> dict:
        """The form ``child/repeat.py`` reads: ``{"in": [ints], "length": int or None, "at": int}``."""
        return {"in": sorted(self.allowed), "length": self.length, "at": self.at}


def as_accept(accept) -> Accept | None:
    """``accept`` as an ``Accept`` (a set of ints is ``Accept(accept)``), or ``None``."""
    return accept if accept is None or isinstance(accept, Accept) else Accept(accept)


def accepted(value, accept) -> bool:
    """Whether the repetition goes on after ``value``; ``accept`` ``None`` accepts everything."""
    rule = as_accept(accept)
    return rule is None or rule(value)


def check_times(times) -> int:
    """``times`` as a count of repetitions.

    Raises:
        ValueError: ``times`` is not an int >= 0 (a bool is not a count).
    """
    if type(times) is not int or times < 0:
        raise ValueError(f"repeat needs a count of calls, an int >= 0, not {times!r}")
    return times


def check_vary(vary, times, args) -> dict:
    """``vary`` as ``{position: list of times values}``.

    Raises:
        ValueError: a position that is not one of ``args``' (a tuple), or a list of values of
            another length than ``times``.
    """
    out = {}
    for position, values in (vary or {}).items():
        if type(position) is not int or not 0 <= position < len(args):
            raise ValueError(f"vary names argument {position!r}, not one of the {len(args)} given")
        values = list(values)
        if len(values) != times:
            raise ValueError(f"vary gives {len(values)} values of argument {position} for {times} calls")
        out[position] = values
    return out


def arguments(args, vary, k) -> tuple:
    """The positional arguments of repetition ``k``: ``args`` with ``vary``'s values put in."""
    if not vary:
        return tuple(args)
    args = list(args)
    for position, values in vary.items():
        args[position] = values[k]
    return tuple(args)


class Repetitions:
    """The answer lines of one repeated call, as the grader reads them (the ``more`` hook of
    ``Exchange._exchange_timed``).

    Args:
        times: the repetitions asked for (int >= 1).
        accept: ``None`` or an ``Accept``.
        value_of: ``answer -> value`` of one ``{"ok": ...}`` answer line (handles become
            ``RemoteObject``s, as for a single call).
    Attributes:
        results: the values received so far, in order.
        finished: True once the last line was an ``ok`` one (the list is complete).
    """

    def __init__(self, times: int, accept, value_of):
        self.times, self.accept, self.value_of = times, accept, value_of
        self.results: list = []  # the answers so far
        self.finished = False

    def __call__(self, answer: dict) -> str:
        """``"skip"`` (not the line expected next: a repetition number out of turn), ``"next"``
        (values; wait for the next line, with a fresh deadline) or ``"last"`` (the exchange
        ends with this line: the last value, or the error a separate call would have raised).

        A line holds one value (``ok``) or a batch of them (``ok_many``, ``child/repeat.py``);
        values past the one that ends the repetition are ignored."""
        rep = answer.get("rep")
        if rep is not None and rep != len(self.results):
            return "skip"
        if "ok_many" in answer:
            values = answer["ok_many"]
            if rep is None or not isinstance(values, list) or not values:
                return "last"   # not a batch the child makes: _interpret names the broken answer
            for value in values:
                self.results.append(self.value_of({"ok": value}))
                if len(self.results) >= self.times or not accepted(self.results[-1], self.accept):
                    self.finished = True
                    return "last"
            return "next"
        if "ok" not in answer:
            return "last"
        value = self.value_of(answer)
        self.results.append(value)
        if rep is None or len(self.results) >= self.times or not accepted(value, self.accept):
            self.finished = True
            return "last"
        return "next"
