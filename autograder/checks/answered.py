"""Rule 5 of an excuse (``helpers.judge_excuse``): the caller's own code must be right.

A helper's mistake excuses a caller only if the caller, given right answers from its helpers,
returns the right value. The grader records what the reference helpers answer while the plain
reference caller runs (``HelperAnswers``), then calls the student's caller once more with its
helpers' global names bound, for that one call, to stand-ins (``call_answered`` of the
submission, ``child/server.py`` and ``submission/local.py``). A stand-in asks the grader for the
answer to the inputs it was given: the grader answers from its table when the inputs are ones
the reference passed (numbers to 1e-6), and otherwise the stand-in calls the student's own
helper. The table never enters the student's process: its answers leave the grader one at a
time, for inputs the student's code already holds. Inputs that hold objects of the
submission's process (sampling's model and generator) reach the grader as handles and match
only the same handle (``keyed``; see ``HelperAnswers``).

A caller that does nothing (``learn_bpe`` returning ``[]`` whatever it is given) cannot keep
its points this way, however its helpers answer; a right caller calls its helpers with the
reference's inputs, meets the reference's answers, and returns the reference's value.
"""
from __future__ import annotations

from autograder.checks.sameness import copied, same_value


class _Handle:
    """An object of the submission's process, known by its handle: equal only to the same one."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        return isinstance(other, _Handle) and other.key == self.key

    def __hash__(self):
        return hash(self.key)


def keyed(value):
    """``value`` with every handle to an object of the submission's process made a ``_Handle``:
    a ``RemoteObject`` and its wire form ``{"__handle__": int}`` (what ``child/server.py``
    sends for an object it holds), a ``LocalObject`` and its form ``{"__local__": int}``
    (``submission/local.py``). Plain data keeps its value (containers are rebuilt)."""
    kind = type(value).__name__
    if kind == "RemoteObject":
        return _Handle(("remote", value._handle))
    if kind == "LocalObject":
        return _Handle(("local", id(value._obj)))
    if isinstance(value, dict):
        for tag, where in (("__handle__", "remote"), ("__local__", "local")):
            if set(value) == {tag} and isinstance(value[tag], int):
                return _Handle((where, value[tag]))
        return {k: keyed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(keyed(v) for v in value)
    return value


def _handles_in(value) -> bool:
    if isinstance(value, _Handle):
        return True
    if isinstance(value, dict):
        return any(_handles_in(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_handles_in(v) for v in value)
    return False


class HelperAnswers:
    """The reference helpers' answers on the inputs the reference caller passed them.

    ``add(name, args, kwargs, answer)`` records one call; ``names`` are the helpers recorded;
    ``answer(request)`` answers a stand-in's callback ``{"op": "helper", "name": str,
    "args": list, "kwargs": dict}`` with ``{"ok": {"hit": answer}}`` when those inputs were
    recorded for that helper, ``{"ok": {"miss": True}}`` when not, ``{"error": text}`` for a
    malformed request (never raises).

    Inputs may hold handles to objects of the submission's process (sampling's generators and
    models): a handle matches only the same handle. Such an object may change with each call
    (a generator's state), so a recorded call that holds one answers once, in the order the
    reference made them: the k-th ``sample_next(shares, rng)`` of a right caller gets the
    reference's k-th draw from that ``rng``. A plain-data call answers as often as it is asked.
    """

    def __init__(self):
        self.calls = []
        self._keyed = []
        self._used = set()

    def add(self, name: str, args, kwargs, answer) -> None:
        self.calls.append((name, tuple(args), dict(kwargs), answer))
        a, k = keyed(list(args)), keyed(dict(kwargs))
        self._keyed.append((a, k, _handles_in((a, k))))

    @property
    def names(self) -> list[str]:
        return sorted({c[0] for c in self.calls})

    def lookup(self, name, args, kwargs):
        """``(True, answer)`` for recorded inputs of ``name``, else ``(False, None)``."""
        args, kwargs = keyed(list(args)), keyed(dict(kwargs))
        for i, ((known, _, _, answer), (a, k, once)) in enumerate(zip(self.calls, self._keyed, strict=True)):
            if known != name or i in self._used:
                continue
            if same_value(args, a, ordered=True) and same_value(kwargs, k, ordered=False):
                if once:
                    self._used.add(i)
                return True, answer
        return False, None

    def answer(self, request) -> dict:
        if not (isinstance(request, dict) and isinstance(request.get("name"), str)
                and isinstance(request.get("args"), (list, tuple)) and isinstance(request.get("kwargs"), dict)):
            return {"error": "malformed request"}
        try:
            hit, value = self.lookup(request["name"], request["args"], request["kwargs"])
        except Exception as exc:  # inputs no comparison can take: not the reference's
            return {"ok": {"miss": True, "why": type(exc).__name__}}
        return {"ok": {"hit": value}} if hit else {"ok": {"miss": True}}


def own_code_refusal(function, mine, plain, table, submission):
    """``None`` when ``function`` (the student's) returns the plain reference's value on every
    recorded call ``mine`` once its helpers answer rightly (``table``), else the feedback text
    that refuses the excuse. ``plain``: the reference's values, one per call. A call that raises
    refuses it too; a submission without ``call_answered`` refuses (nothing shows the caller right)."""
    call = getattr(submission, "call_answered", None)
    names = " and ".join(table.names)
    refusal = (f"not excused by {names}: given the right answers of {names}, your {function} still "
               f"does not return the right value, so its own code is wrong")
    if call is None or not table.names:
        return refusal
    for c, want in zip(mine, plain, strict=False):
        args, kwargs = copied((c.args, c.kwargs))
        try:
            got = call(function, table, *args, **kwargs)
        except Exception:
            return refusal
        if not same_value(got, want):
            return refusal
    return None
