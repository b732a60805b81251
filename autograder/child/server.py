"""The child's request loop: answer the grader's requests about one submission.

Protocol: one JSON request per line on the request pipe, one JSON answer per line on the
answer pipe (``wire`` encoding). The first request is ``{"op": "init", "cells": [...],
"cell_timeout": s, "stop_at": checkpoint or null, ...}``: the notebook's cells run
(``cells.Runner``) up to the hidden-test cell ``stop_at`` (to the end when null); the answer
lists the names the notebook defined and the errors its cells raised. ``{"op": "run_to",
"checkpoint": ...}`` runs on to a later hidden-test cell, with the same answer. Other
requests call functions (``call``; with ``answered``, some globals bound to stand-ins for
the call, see ``Child.swap_in``; with ``times``, n calls answered one line each, see
``repeat.py``), build objects (``new``, ``probe``; with ``each``, several), read attributes
(``getattr``), call methods (``method``) and ``len``. While answering, the child may ask the
grader something (``ask_grader``: a line ``{"callback": ..., "id": <the request's id>}``,
answered on the request pipe), e.g. the token rows a product with counted weights projects
(``probes.CountedArray``).
"""
import json
import time

from . import timing
from .cells import Runner
from .errors import error_of
from .probes import PROBES, CountedArray
from .repeat import repeat
from .timing import GraderTimeout, alarm
from .wire import dumps, from_wire


def _note_hung_names(names):
    """Functions the grader saw run out of time in an earlier process of this notebook."""
    if isinstance(names, list):
        timing.hung.update(n for n in names if isinstance(n, str))


def stand_in(name, ask, own):
    """A function to bind to the global ``name`` while a caller runs: asks ``ask(request)`` (the
    grader, or the local table of ``submission/local.py``) for the answer to its inputs, and calls
    ``own`` (the student's helper) when there is none; see ``Child.swap_in``."""
    def helper(*args, **kwargs):
        reply = ask({"op": "helper", "name": name, "args": list(args), "kwargs": dict(kwargs)})
        if isinstance(reply, dict) and "hit" in reply:
            return reply["hit"]
        return own(*args, **kwargs)
    helper.__name__ = helper.__qualname__ = name
    return helper


class _Dummy:
    """Stands in for get_ipython() and display() so notebook idioms do not fail."""

    def __getattr__(self, name):
        return lambda *a, **k: None

    def __call__(self, *a, **k):
        return None


class Child:
    def __init__(self, req, resp):
        self.req = req
        self.resp = resp
        # As in a kernel: __name__ is "__main__" (so `if __name__ == "__main__":` blocks run).
        self.ns = {"__name__": "__main__", "__builtins__": __builtins__, "display": _Dummy()}
        self.runner = None
        self.handles = {}

    # -- running the notebook ------------------------------------------------
    def init(self, msg):
        self.recheck = float(msg.get("recheck", 0))
        self.runner = Runner(msg["cells"], self.ns, float(msg.get("cell_timeout", 10)),
                             msg.get("definitions_only", False), float(msg.get("cell_cpu_timeout", 0)),
                             self.recheck)
        _note_hung_names(msg.get("hung"))
        return self.run_to(msg.get("stop_at"), msg.get("budget"))

    def run_to(self, checkpoint, budget=None, hung=None):
        _note_hung_names(hung)
        errors = self.runner.run_to(checkpoint, None if budget is None else float(budget))
        defined = sorted(k for k, v in self.ns.items() if callable(v) and not k.startswith("__"))
        return {"ok": {"defined": defined, "errors": errors}}

    # -- requests ------------------------------------------------------------
    def resolve(self, value):
        if isinstance(value, dict) and "__handle__" in value:
            return self.handles[value["__handle__"]]
        if isinstance(value, dict) and "__weights__" in value:  # a matrix the grader keeps
            return CountedArray.of(value["values"], self.ask_grader, value["__weights__"])
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.resolve(v) for v in value)
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        return value

    def new_handle(self, obj):
        handle = len(self.handles) + 1
        self.handles[handle] = obj
        return {"__handle__": handle, "type": type(obj).__name__}

    def target(self, msg):
        if "handle" in msg:
            return self.handles[msg["handle"]]
        name = msg["name"]
        if name not in self.ns:
            raise LookupError(name)
        return self.ns[name]

    def handle(self, msg):
        op = msg["op"]
        if op == "init":
            return self.init(msg)
        if op == "run_to":
            return self.run_to(msg.get("checkpoint"), msg.get("budget"), msg.get("hung"))
        if op == "probe":
            factory = PROBES[msg["name"]]
            if isinstance(msg.get("each"), list):  # several objects of one kind, one exchange
                return {"ok": [self.new_handle(factory(*self.resolve(list(a)))) for a in msg["each"]]}
            return {"ok": self.new_handle(factory(*self.resolve(msg.get("args", []))))}
        if op == "call" and type(msg.get("times")) is int and msg["times"] > 1:
            return repeat(self, msg)
        try:
            obj = self.target(msg)
        except LookupError:
            return {"missing": msg.get("name")}
        args = self.resolve(list(msg.get("args", [])))
        kwargs = self.resolve(msg.get("kwargs", {}))
        return self.invoke(op, obj, args, kwargs, msg)

    def invoke(self, op, obj, args, kwargs, msg):
        """Run one request ``op`` on ``obj`` with the call's time limits (``msg``'s ``timeout``,
        ``cpu_timeout``); returns the answer dict (``ok``, ``error`` or ``timeout``)."""
        timeout = float(msg.get("timeout", 10))
        cpu_timeout = float(msg.get("cpu_timeout", 0))
        alarm(timeout, cpu_timeout, getattr(self, "recheck", 0.0))
        swapped = self.swap_in(msg.get("answered"))
        try:
            if op == "call":
                result = obj(*args, **kwargs)
            elif op == "method":
                result = getattr(obj, msg["method"])(*args, **kwargs)
            elif op == "new":
                return {"ok": self.new_handle(obj(*args, **kwargs))}
            elif op == "getattr":
                result = getattr(obj, msg["attr"])
                if callable(result) and not hasattr(result, "__array__"):
                    return {"ok": {"__callable__": msg["attr"]}}
            elif op == "len":
                result = len(obj)
            else:
                return {"error": {"type": "ProtocolError", "message": f"unknown op {op}", "where": None}}
        except GraderTimeout as exc:
            answer = {"timeout": cpu_timeout if timing.fired == "cpu" else timeout, "cpu": timing.fired == "cpu"}
            if timing.cut_in is not None:
                answer.update(timeout=self.recheck, cut_in=timing.cut_in)
            timing.note_hung(exc.__traceback__)
            if op == "call" and isinstance(msg.get("name"), str):
                timing.hung.add(msg["name"])
            return answer
        except BaseException as exc:
            return {"error": error_of(exc)}
        finally:
            alarm(0)
            self.ns.update(swapped)
        answer = {"ok": result}
        if msg.get("return_args"):
            answer["args_after"] = args
        if msg.get("keep"):
            answer = {"ok": self.new_handle(result)}
        return answer

    def swap_in(self, names):
        """Bind each global in ``names`` (helpers of the function about to be called) to a
        stand-in that asks the grader for the right answer to its inputs and calls the student's
        own function when the grader has none (``checks/answered.py``, rule 5 of an excuse).
        Returns ``{name: original}`` to put back after the call."""
        originals = {}
        for name in names if isinstance(names, list) else ():
            if isinstance(name, str) and callable(self.ns.get(name)):
                originals[name] = own = self.ns[name]
                self.ns[name] = stand_in(name, self.ask_with_handles, own)
        return originals

    def ask_with_handles(self, request):
        """``ask_grader`` for a stand-in: an object the grader holds a handle to (a generator or
        a model a check built here) is sent as that handle, so the grader can tell it apart."""
        held = {id(obj): handle for handle, obj in self.handles.items()}

        def handles(value):
            if id(value) in held and self.handles[held[id(value)]] is value:
                return {"__handle__": held[id(value)]}
            if isinstance(value, (list, tuple)):
                return type(value)(handles(v) for v in value)
            if isinstance(value, dict):
                return {k: handles(v) for k, v in value.items()}
            return value
        return self.ask_grader(handles(request))

    # -- callbacks: a request to the grader in the middle of answering one ------------------
    def ask_grader(self, request):
        """Send ``request`` to the grader (e.g. a product with weights it keeps) and return
        its answer; raises ValueError with the grader's message when it refuses."""
        self.resp.write(dumps({"callback": request, "id": self.request_id}) + "\n")
        self.resp.flush()
        line = self.req.readline()
        if not line:
            raise EOFError("the grader closed the channel")
        answer = from_wire(json.loads(line))
        if not isinstance(answer, dict) or "ok" not in answer:
            raise ValueError(str(answer.get("error") if isinstance(answer, dict) else answer))
        return answer["ok"]

    def serve(self):
        self.request_id = None
        for line in self.req:
            t0, c0 = time.perf_counter(), time.process_time()
            self.request_id = None
            try:
                self.raw = json.loads(line)  # kept: a repeated call decodes its arguments again (repeat.py)
                msg = from_wire(self.raw)
                self.request_id = msg.get("id")
                answer = self.handle(msg)
            except GraderTimeout:
                answer = {"timeout": None}
            except BaseException as exc:  # never let the harness die on a bad value
                answer = {"error": dict(error_of(exc), type="GraderError:" + type(exc).__name__)}
            if answer is not None:  # None: the answers were sent already (a repeated call)
                self.send(answer, t0, c0)

    def send(self, answer, t0, c0):
        """Write ``answer`` as one line, with the request's id and the wall and CPU seconds since
        ``t0`` (``perf_counter``) and ``c0`` (``process_time``). Returns False when the answer
        could not be encoded (an ``UnsendableResult`` error was sent instead), else True."""
        answer["seconds"] = time.perf_counter() - t0
        answer["cpu_seconds"] = time.process_time() - c0  # for benchmarks/call_limits.py
        answer["id"] = self.request_id
        sent = True
        try:
            text = dumps(answer)
        except BaseException as exc:
            unsendable = {"error": {"type": "UnsendableResult", "message": str(exc)[:500], "where": None},
                          "id": self.request_id}
            if "rep" in answer:
                unsendable["rep"] = answer["rep"]
            text = dumps(unsendable)
            sent = False
        self.resp.write(text + "\n")
        self.resp.flush()
        return sent

    def send_many(self, first, texts, t0, c0):
        """Write one ``{"ok_many": [...], "rep": first}`` line of the already encoded values
        ``texts`` of repetitions ``first``, ``first + 1``, ... (``repeat.py``)."""
        tail = dumps({"rep": first, "seconds": time.perf_counter() - t0,
                      "cpu_seconds": time.process_time() - c0, "id": self.request_id})
        head = '{"__dict__":[["ok_many",[' + ",".join(texts) + "]],"   # the wire form of a dict
        self.resp.write(head + tail[len('{"__dict__":['):] + "\n")
        self.resp.flush()
