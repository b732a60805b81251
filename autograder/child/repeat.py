"""One call run ``n`` times in one exchange: ``{"op": "call", "name": ..., "times": n, ...}``.

A check that calls the same function many times (sampling's ``sample_next``: hundreds of draws
from one generator; ``generate``: a hundred runs, each with a generator of its own) would pay a
round trip to the grader for each call. This request makes the calls in the child, one after
another, and answers each one on its own line as it finishes: ``{"ok": value, "rep": k,
"id": ...}``, or the error, timeout or missing name a separate call would have answered, which
ends the repetition.

Each repetition is what a separate request would be:

* the function is looked up in the notebook's namespace again, and the arguments are a fresh
  copy of the request's JSON decoded (``Child.raw``, decoded once more and deep-copied for each
  call), so a function that writes into an argument array sees a fresh copy each time; a handle (``{"__handle__": k}``, e.g. a generator a check
  built with a probe) resolves to the same object each time, so its state carries over;
* ``"vary": [[position, [value of repetition 0, 1, ...]], ...]`` puts repetition k's own value
  at that position (decoded afresh too);
* the call has the request's own time limits (``timeout``, ``cpu_timeout``), set again for each
  repetition (``Child.invoke``), and a timeout is noted in ``timing.hung`` as for one call;
* the values are sent in batches, ``{"ok_many": [value, ...], "rep": k of the first, "id": ...}``:
  a batch is written as soon as ``FLUSH_SECONDS`` have passed since the last line, or it holds
  ``BATCH_CHARS`` characters of answers, or it ends the repetition; an error, timeout or missing
  name is a line of its own, as a separate call's answer. So the grader waits at most one
  call's time limit plus ``FLUSH_SECONDS`` for each line (``submission/exchange.py``), and a
  thousand quick draws cost one line, not a thousand round trips of the grader's reading. A
  timer that stops a call sends the batch first (``timing.before_raise``): code that swallows
  the timeout and is then killed by the grader has its earlier values answered.

With ``"accept": {"in": [ints], "length": L or null, "at": i}``, the repetition also stops
after the first value whose wire form is not an int of ``in`` (``length`` null), or not a list
or tuple of ``L`` ints whose item ``i`` is one of ``in``: a check that fails at the first such
value would have made no further call (``submission/repeated.py``, ``Accept``).

Part of the child package: standard library and ``wire`` only.
"""
import copy
import json
import time

from . import timing
from .wire import from_wire, to_wire

FLUSH_SECONDS = 0.2        # a batch waits at most this long (wall) after the last line
BATCH_CHARS = 1 << 20      # and holds at most this many characters of encoded values


def accepted(value, accept) -> bool:
    """Whether ``value``, as the grader will receive it (its wire form), is accepted by
    ``accept`` (``(set of ints, length or None, at)``)."""
    allowed, length, at = accept
    try:
        sent = to_wire(value)
    except BaseException:  # it cannot be sent: the answer says so, and the repetition stops
        return False
    if length is None:
        return type(sent) is int and sent in allowed
    items = sent.get("__tuple__") if isinstance(sent, dict) else sent
    return (isinstance(items, list) and len(items) == length and all(type(v) is int for v in items)
            and items[at] in allowed)


def _accept(spec):
    if not (isinstance(spec, dict) and isinstance(spec.get("in"), list)):
        return None
    length, at = spec.get("length"), spec.get("at", 0)
    if length is not None and not (type(length) is int and type(at) is int and 0 <= at < length):
        return None
    return {a for a in spec["in"] if type(a) is int}, length, at


def _field(raw, key, default):
    """The still-encoded value of ``key`` in a request as read from JSON (a dict is sent as
    ``{"__dict__": [[key, value], ...]}``, ``wire.to_wire``), or ``default``."""
    pairs = raw.get("__dict__") if isinstance(raw, dict) else None
    for pair in pairs if isinstance(pairs, list) else ():
        if isinstance(pair, list) and len(pair) == 2 and pair[0] == key:
            return pair[1]
    return default


def _vary(decoded, raw, times):
    """``[(position, decoded values, encoded values)]`` of a request's ``vary``, or ``None``
    when it is malformed."""
    out = []
    for item, encoded in zip(decoded or [], raw if isinstance(raw, list) else [], strict=False):
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int
                and isinstance(item[1], list) and len(item[1]) == times
                and isinstance(encoded, list) and len(encoded) == 2 and isinstance(encoded[1], list)):
            return None
        out.append((item[0], item[1], encoded[1]))
    return out if len(out) == len(decoded or []) else None


def repeat(child, msg):
    """Answer a ``call`` request with ``times`` = n > 1 for ``child`` (a ``server.Child``), in
    batches of values (``ok_many``) and lines of their own for errors (``Child.send``); returns
    ``None`` (every answer has been sent)."""
    times = msg["times"]
    accept = _accept(msg.get("accept"))
    vary = _vary(msg.get("vary"), _field(child.raw, "vary", []), times)
    if vary is None:
        return {"error": {"type": "ProtocolError", "message": "malformed vary", "where": None}}
    batch = _Batch(child)
    timing.before_raise = batch.flush  # a timeout the code swallows still leaves these answered
    try:
        return _repeat(child, msg, times, accept, vary, batch)
    finally:
        timing.before_raise = None


def _repeat(child, msg, times, accept, vary, batch):
    pristine = None   # the arguments decoded once more, never handed out (copied for each call)
    for k in range(times):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            obj = child.target(msg)
        except LookupError:
            answer = {"missing": msg.get("name")}
        else:
            if k == 0:  # decoded with the request
                args, kwargs = list(msg.get("args", [])), msg.get("kwargs", {})
                changed = [(position, values[0]) for position, values, _ in vary]
            else:  # a copy of the request's decoding: what a separate request would have brought
                if pristine is None:
                    pristine = (from_wire(_field(child.raw, "args", [])), from_wire(_field(child.raw, "kwargs", {})))
                args, kwargs = copy.deepcopy(pristine)
                args = list(args)
                changed = [(position, from_wire(encoded[k])) for position, _, encoded in vary]
            for position, value in changed:
                if 0 <= position < len(args):
                    args[position] = value
            answer = child.invoke("call", obj, child.resolve(args), child.resolve(kwargs), msg)
        if "ok" in answer and batch.add(k, answer["ok"], t0, c0):
            if k == times - 1 or (accept is not None and not accepted(answer["ok"], accept)):
                batch.flush()
                return None
            continue
        batch.flush()  # the values before it, then the error (or the value that cannot be sent)
        answer["rep"] = k
        child.send(answer, t0, c0)
        return None
    batch.flush()
    return None


class _Batch:
    """Values of successive repetitions, sent as one ``ok_many`` line (see the module docstring)."""

    def __init__(self, child):
        self.child, self.texts, self.chars = child, [], 0
        self.first, self.t0, self.c0 = 0, None, None
        self.last_line = time.perf_counter()

    def add(self, k, value, t0, c0) -> bool:
        """Keep repetition ``k``'s ``value``; False (nothing kept) when it cannot be encoded, so
        that its own answer line says so. Sends the batch when it is due."""
        try:
            text = json.dumps(to_wire(value), separators=(",", ":"))
        except BaseException:
            return False
        if not self.texts:
            self.first, self.t0, self.c0 = k, t0, c0
        self.texts.append(text)
        self.chars += len(text) + 1
        if self.chars >= BATCH_CHARS or time.perf_counter() - self.last_line >= FLUSH_SECONDS:
            self.flush()
        return True

    def flush(self):
        if self.texts:
            self.child.send_many(self.first, self.texts, self.t0, self.c0)
        self.texts, self.chars = [], 0
        self.last_line = time.perf_counter()
