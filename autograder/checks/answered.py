"""Rule 5 of an excuse (``helpers.judge_excuse``): the caller's own code must be right.

A helper's mistake excuses a caller only if the caller, given right answers from its helpers,
returns the right value. The grader records what the reference helpers answer while the plain
reference caller runs (``HelperAnswers``), then calls the student's caller once more with its
helpers' global names bound, for that one call, to stand-ins (``call_answered`` of the
submission, ``child/server.py`` and ``submission/local.py``). A stand-in asks the grader for the
answer to the inputs it was given: the grader answers from its table when the inputs are ones
the reference passed (numbers to 1e-6), and otherwise the stand-in calls the student's own
helper. The table never enters the student's process: its answers leave the grader one at a
time, for inputs the student's code already holds.

A caller that does nothing (``learn_bpe`` returning ``[]`` whatever it is given) cannot keep
its points this way, however its helpers answer; a right caller calls its helpers with the
reference's inputs, meets the reference's answers, and returns the reference's value.
"""
from __future__ import annotations

from autograder.checks.sameness import _copied, same_value


class HelperAnswers:
    """The reference helpers' answers on the inputs the reference caller passed them.

    ``add(name, args, kwargs, answer)`` records one call; ``names`` are the helpers recorded;
    ``answer(request)`` answers a stand-in's callback ``{"op": "helper", "name": str,
    "args": list, "kwargs": dict}`` with ``{"ok": {"hit": answer}}`` when those inputs were
    recorded for that helper, ``{"ok": {"miss": True}}`` when not, ``{"error": text}`` for a
    malformed request (never raises).
    """

    def __init__(self):
        self.calls = []

    def add(self, name: str, args, kwargs, answer) -> None:
        self.calls.append((name, tuple(args), dict(kwargs), answer))

    @property
    def names(self) -> list[str]:
        return sorted({c[0] for c in self.calls})

    def lookup(self, name, args, kwargs):
        """``(True, answer)`` for recorded inputs of ``name``, else ``(False, None)``."""
        for known, a, k, answer in self.calls:
            if known == name and same_value(list(args), list(a), ordered=True) and \
                    same_value(dict(kwargs), k, ordered=False):
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


def stand_in(name, ask, own):
    """A function to bind to the global ``name`` while a caller runs: asks ``ask(request)`` (the
    local table of ``submission/local.py``) for the answer to its inputs, and calls ``own`` (the
    student's helper) when there is none. The child builds its own twin (``child/server.py``),
    which imports nothing of the grader."""
    def helper(*args, **kwargs):
        reply = ask({"op": "helper", "name": name, "args": list(args), "kwargs": dict(kwargs)})
        if isinstance(reply, dict) and "hit" in reply:
            return reply["hit"]
        return own(*args, **kwargs)
    helper.__name__ = helper.__qualname__ = name
    return helper


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
        args, kwargs = _copied((c.args, c.kwargs))
        try:
            got = call(function, table, *args, **kwargs)
        except Exception:
            return refusal
        if not same_value(got, want):
            return refusal
    return None
