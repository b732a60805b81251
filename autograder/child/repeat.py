"""One call run ``n`` times in one exchange: ``{"op": "call", "name": ..., "times": n, ...}``.

A check that calls the same function with the same arguments many times (sampling's
``sample_next``: hundreds of draws from one generator) would pay a round trip to the grader
for each call. This request makes the same calls in the child, one after another, and answers
each one on its own line as it finishes: ``{"ok": value, "rep": k, "id": ...}``, or the error,
timeout or missing name a separate call would have answered, which ends the repetition.

Each repetition is what a separate request would be:

* the function is looked up in the notebook's namespace again, and the arguments are decoded
  afresh from the request's JSON (``Child.raw``), so a function that writes into an argument
  array sees a fresh copy each time; a handle (``{"__handle__": k}``, e.g. a generator a check
  built with a probe) resolves to the same object each time, so its state carries over;
* the call has the request's own time limits (``timeout``, ``cpu_timeout``), set again for each
  repetition (``Child.invoke``), and a timeout is noted in ``timing.hung`` as for one call;
* its answer line is written before the next repetition starts, so the grader can give each
  one the deadline of a single call (``submission/exchange.py``) and decode each line within
  the limits of a single answer.

With ``"accept": [ints]``, the repetition also stops after the first value whose wire form is
not one of those ints (a token id out of range, or not an int): a check that fails at the first
such value would have made no further call.

Part of the child package: standard library and ``wire`` only.
"""
import time

from .wire import from_wire, to_wire


def accepted(value, accept) -> bool:
    """Whether ``value``, as the grader will receive it (its wire form), is an int (not a bool)
    in ``accept`` (a set of ints)."""
    try:
        sent = to_wire(value)
    except BaseException:  # it cannot be sent: the answer says so, and the repetition stops
        return False
    return type(sent) is int and sent in accept


def _field(raw, key, default):
    """The still-encoded value of ``key`` in a request as read from JSON (a dict is sent as
    ``{"__dict__": [[key, value], ...]}``, ``wire.to_wire``), or ``default``."""
    pairs = raw.get("__dict__") if isinstance(raw, dict) else None
    for pair in pairs if isinstance(pairs, list) else ():
        if isinstance(pair, list) and len(pair) == 2 and pair[0] == key:
            return pair[1]
    return default


def repeat(child, msg):
    """Answer a ``call`` request with ``times`` = n > 1 for ``child`` (a ``server.Child``), one
    line per repetition (``Child.send``); returns ``None`` (every answer has been sent)."""
    times = msg["times"]
    accept = msg.get("accept")
    accept = {a for a in accept if type(a) is int} if isinstance(accept, list) else None
    for k in range(times):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            obj = child.target(msg)
        except LookupError:
            answer = {"missing": msg.get("name")}
        else:
            if k == 0:  # decoded with the request
                args, kwargs = list(msg.get("args", [])), msg.get("kwargs", {})
            else:  # decoded again: what a separate request would have brought
                args = list(from_wire(_field(child.raw, "args", [])))
                kwargs = from_wire(_field(child.raw, "kwargs", {}))
            answer = child.invoke("call", obj, child.resolve(args), child.resolve(kwargs), msg)
        answer["rep"] = k
        last = (k == times - 1 or "ok" not in answer
                or (accept is not None and not accepted(answer["ok"], accept)))
        if not child.send(answer, t0, c0) or last:
            return None
    return None
