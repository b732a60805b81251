"""The grader's half of the wire with a running child: one request out, one answer back, within one deadline.

``Exchange`` holds the methods of ``remote.ChildSubmission`` that send a request (``child/wire.py``), wait
for the answer while serving the child's callbacks (products with weights the grader keeps, ``submission/counted.py``),
and turn what came back into a value or a ``StudentCodeError`` (``_interpret``). ``RemoteObject`` is a
student object living in the child; ``clean_error`` caps and escapes the errors a child reports.
"""
from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import time

from autograder.child import wire
from autograder.core import safetext
from autograder.sandbox.limits import StudentCodeError
from autograder.submission.counted import CountedWeights, WeightsRegistry
from autograder.submission.repeated import Repetitions, arguments, as_accept, check_times, check_vary


class RemoteObject:
    """A student object living in the child (e.g. a ``KVCache`` instance)."""

    def __init__(self, submission, handle, type_name, label):
        self._submission, self._handle = submission, handle
        self._type, self._label = type_name, label

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._submission._request({"op": "getattr", "handle": self._handle, "attr": name},
                                          f"{self._label}.{name}")
        if isinstance(value, dict) and "__callable__" in value:
            def method(*args, **kwargs):
                return self._submission._request(
                    {"op": "method", "handle": self._handle, "method": name,
                     "args": args, "kwargs": kwargs}, f"{self._label}.{name}")
            return method
        return value

    def __len__(self):
        return self._submission._request({"op": "len", "handle": self._handle}, f"len({self._label})")

    def __call__(self, *args, **kwargs):
        """Call the object in the child (a probe that is a function, e.g. the model a
        ``generate`` check hands in), so the grader can rerun a reference with it."""
        return self._submission._request({"op": "method", "handle": self._handle, "method": "__call__",
                                          "args": args, "kwargs": kwargs}, f"{self._label}()")

    def __repr__(self):
        return f"<{self._type} in the submission>"


def _to_wire_args(value, registry=None):
    if isinstance(value, RemoteObject):
        return {"__handle__": value._handle}
    if isinstance(value, CountedWeights):
        return registry.add(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_wire_args(v, registry) for v in value)
    if isinstance(value, dict):
        return {k: _to_wire_args(v, registry) for k, v in value.items()}
    return value


def clean_error(err) -> dict | None:
    """The ``{"type", "message", "where", "function"}`` a child reported, as capped, escaped text
    (``None`` when it is not such a dict; ``function``: the innermost notebook function, or None)."""
    if not isinstance(err, dict) or not isinstance(err.get("type"), str):
        return None
    where, inside = err.get("where"), err.get("function")
    return {"type": safetext.clean(err["type"], safetext.NAME_CHARS),
            "message": safetext.clean(err.get("message") or "", safetext.MESSAGE_CHARS),
            "where": safetext.clean(where, safetext.WHERE_CHARS) if where else None,
            "function": safetext.clean(inside, safetext.NAME_CHARS) if isinstance(inside, str) and inside else None}


class Exchange:
    """Methods of ``ChildSubmission`` kept here (see the module docstring); ``ChildSubmission`` inherits them."""

    def _exchange(self, message, seconds, more=None):
        t0 = time.monotonic()
        try:
            return self._exchange_timed(message, seconds, more)
        finally:
            self.seconds_used += time.monotonic() - t0

    def _send(self, text, deadline):
        """Write ``text`` to the child without ever blocking past ``deadline``.

        Returns ``None`` when written, else a ``_died``-style answer."""
        try:
            self._req.flush()  # the start-up line, written through the file object
            fd = self._req.fileno()
            os.set_blocking(fd, False)
        except (OSError, ValueError):
            return self._died("it exited")
        view = memoryview(text.encode("utf-8"))
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._died("it stopped reading its requests", timeout=True)
            _, writable, _ = select.select([], [fd], [], left)
            if not writable:
                continue
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except OSError:
                return self._died("it exited")
        return None

    def _exchange_timed(self, message, seconds, more=None):
        # One deadline covers the whole exchange: sending, the child's work, its callbacks
        # and decoding the answer; it never reaches past the notebook's remaining budget.
        # A repeated call (``more``: a ``repeated.Repetitions``) answers one line per
        # repetition; each line it takes gives the next one the deadline of a single call.
        now = time.monotonic()
        budget_ends = now + max(0.0, self.seconds_left())
        deadline = min(now + seconds + 2.0, budget_ends)  # the child's own alarm fires first
        # Each request carries a random id that its answer must echo: a line the student's
        # code writes into the channel itself is skipped, and cannot shift later answers.
        request_id = secrets.token_hex(8)
        try:
            text = json.dumps(wire.to_wire(dict(message, id=request_id)), separators=(",", ":")) + "\n"
        except ValueError as exc:
            raise StudentCodeError("unsendable", str(message.get("name") or message.get("op")),
                                   f"arguments that cannot be sent ({exc})") from None
        failed = self._send(text, deadline)
        if failed:
            return failed
        lines = []
        while True:
            while not lines:
                while b"\n" not in self._buffer:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return self._too_late(deadline, budget_ends, seconds)
                    ready, _, _ = select.select([self._resp], [], [], left)
                    if not ready:
                        continue
                    chunk = os.read(self._resp, 1 << 20)
                    if not chunk:
                        return self._died(self._exit_reason())
                    self._buffer += chunk
                    # (Repeated: each answer line is held to the limit, not the lines together.)
                    pending = len(self._buffer) - (self._buffer.rfind(b"\n") + 1 if more is not None else 0)
                    if pending > self.limits.response_bytes:
                        return dict(self._died(f"answer larger than {self.limits.response_bytes} bytes"),
                                    too_large=True)
                # All complete lines at once (one partition per line would be quadratic in a
                # flood of short lines); what follows the last newline waits for more.
                *lines, self._buffer = self._buffer.split(b"\n")
                lines.reverse()
            line = lines.pop()
            if time.monotonic() > deadline:  # a flood of lines must not outlast the deadline
                return self._too_late(deadline, budget_ends, seconds)
            if request_id.encode() not in line:
                continue  # not an answer to this request: something the student's code wrote
            try:
                answer = wire.loads(line.decode("utf-8", errors="replace"),
                                    wire.Budget(deadline=deadline), max_chars=self.limits.response_bytes)
            except wire.WireError as exc:
                # The line was read whole, but the child may still be answering: end it.
                return dict(self._died(f"its answer was refused: {exc}"), too_large=True)
            except MemoryError:
                return dict(self._died("its answer does not fit in the grader's memory"), too_large=True)
            except ValueError:
                continue  # not JSON: something the student's code printed into the channel
            if not (isinstance(answer, dict) and answer.get("id") == request_id):
                continue
            if "callback" in answer:  # a product with weights we keep, or a helper's right answer
                reply = self._callback(answer["callback"])
                failed = self._send(json.dumps(wire.to_wire(reply), separators=(",", ":")) + "\n", deadline)
                if failed:
                    return failed
                continue
            if more is not None:
                verdict = more(answer)
                if verdict == "skip":
                    continue
                if verdict == "next":
                    deadline = min(time.monotonic() + seconds + 2.0, budget_ends)
                    continue
            return answer

    def _too_late(self, deadline, budget_ends, seconds):
        if deadline >= budget_ends:
            return dict(self._died("the notebook used up its grading time", timeout=True), budget=True)
        return self._died(f"no answer within {seconds:g} s", timeout=True)

    def _exit_reason(self):
        try:
            code = self.proc.wait(timeout=5) if self.proc else None
        except subprocess.TimeoutExpired:  # it closed the channel but lives on
            return "it closed its answer channel"
        if code is not None and self.sandbox is not None and 128 < code < 160:
            code = 128 - code  # bwrap reports a child killed by signal N as status 128 + N
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            hint = " (out of memory?)" if name in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""
            return f"killed by {name}{hint}"
        return f"it exited with status {code}"

    def _died(self, reason, timeout=False):
        self.dead_reason = reason
        self.close()
        return {"died": reason, "timeout": timeout}

    def _callback(self, request):
        """The reply to a child's callback: a stand-in helper's question goes to the table of
        the call in progress (``checks/answered.py``), anything else to the counted weights."""
        table = getattr(self, "_helper_answers", None)
        if isinstance(request, dict) and request.get("op") == "helper":
            return table.answer(request) if table is not None else {"error": "no helper answers"}
        return self._weights_registry().answer(request)

    def _weights_registry(self):
        if getattr(self, "_weights", None) is None:
            self._weights = WeightsRegistry()
        return self._weights

    def _request(self, message, label, more=None):
        fn = message.get("name") or label
        if self.seconds_left() <= 0:
            raise StudentCodeError("time budget", label, f"the notebook used up its {self.limits.notebook_seconds:g} s "
                                   "of grading time")
        crashes = getattr(self, "crashes", None)
        if crashes is None:
            crashes = self.crashes = {}
        if crashes.get(fn, 0) >= self.limits.max_restarts:
            raise StudentCodeError("crashed", label, f"{self.dead_reason or 'it died'}; {fn} was not run again "
                                   f"after it crashed {crashes[fn]} times")
        # A function that hung once gets a short limit from then on: its other checks
        # still run (a hang may depend on the input), but it cannot cost minutes.
        seconds = self.limits.retry_seconds if fn in self.timed_out else self.limits.call_seconds
        cpu_seconds = min(self.limits.call_cpu_seconds, seconds)  # CPU time: a busy machine does not stretch it
        try:
            self.ensure_started()
        except StudentCodeError:
            crashes[fn] = crashes.get(fn, 0) + 1
            raise
        registry = self._weights_registry()
        message = dict(message, args=_to_wire_args(message.get("args", []), registry),
                       kwargs=_to_wire_args(message.get("kwargs", {}), registry), timeout=seconds,
                       cpu_timeout=cpu_seconds)
        if "vary" in message:
            message["vary"] = _to_wire_args(message["vary"], registry)
        answer = self._exchange(message, seconds, more)
        if "died" in answer and not answer.get("timeout"):
            crashes[fn] = crashes.get(fn, 0) + 1
        if more is not None and more.finished:
            return more.results
        return self._interpret(answer, fn, label, seconds)

    def repeat(self, name, times, args=(), kwargs=None, accept=None, vary=None):
        """``times`` calls of the student's ``name`` with the same arguments, in one exchange
        (``submission/repeated.py``, ``child/repeat.py``).

        Args:
            name: the function. times: int >= 0. args: tuple of positional arguments;
            kwargs: dict or None. accept: ``None``, a set of ints or a ``repeated.Accept``.
            vary: ``None`` or ``{position: [one value per call]}`` (``repeated.check_vary``).
        Returns:
            ``list`` of the values, one per repetition (fewer when ``accept`` ended it early).
        Raises:
            StudentCodeError: as the first separate call that fails would have; the values
                before it are on the error as ``results_before``.
            ValueError: ``times`` is not a count, or ``vary`` does not fit it.
        """
        times, accept = check_times(times), as_accept(accept)
        vary = check_vary(vary, times, tuple(args))
        if times == 0:
            return []
        if times == 1 and vary:  # the child answers one call as a plain call, which has no vary
            args, vary = arguments(args, vary, 0), {}
        more = Repetitions(times, accept, lambda answer: self._interpret(answer, name, name, None))
        message = {"op": "call", "name": name, "args": tuple(args), "kwargs": dict(kwargs or {}), "times": times}
        if accept is not None:
            message["accept"] = accept.to_message()
        if vary:
            message["vary"] = [[position, values] for position, values in vary.items()]
        try:
            return self._request(message, name, more)
        except StudentCodeError as exc:
            exc.results_before = list(more.results)
            raise

    def probe_each(self, name, arg_lists):
        """``[probe(name, *args) for args in arg_lists]`` in one exchange: a list of
        ``RemoteObject``s (``probes.PROBES``).

        Raises:
            StudentCodeError: as ``probe`` (the child died, or its answer was not a list of handles).
        """
        arg_lists = [list(a) for a in arg_lists]
        values = self._request({"op": "probe", "name": name, "each": arg_lists}, name)
        if not (isinstance(values, list) and len(values) == len(arg_lists)
                and all(isinstance(v, dict) and type(v.get("__handle__")) is int for v in values)):
            self._died("it broke the answer format")
            raise StudentCodeError("crashed", name, "it broke the answer format")
        return [RemoteObject(self, v["__handle__"], safetext.clean(v.get("type", "object"), safetext.NAME_CHARS),
                             name) for v in values]

    def _interpret(self, answer, fn, label, seconds):
        if answer.get("budget"):
            raise StudentCodeError("time budget", label, "stopped: the notebook used up its "
                                   f"{self.limits.notebook_seconds:g} s of grading time")
        if answer.get("too_large"):
            raise StudentCodeError("too large", label, answer["died"])
        if "timeout" in answer and ("died" not in answer or answer["timeout"]):
            self.timed_out[fn] = True
            cut_in = answer.get("cut_in")
            if answer.get("cpu") is True and isinstance(cut_in, str):  # see child/timing.py
                # "did not return within" as every timeout says (class_report reads it from text)
                if cut_in == fn:
                    why = "it had already run out of time once"
                else:
                    why = f"stopped inside {safetext.clean(cut_in, safetext.NAME_CHARS)}, which had already run out of time once"
                raise StudentCodeError("timeout", label, f"did not return within {self.limits.hung_cpu_seconds:g} s "
                                       f"of CPU time ({why})")
            if answer.get("cpu") is True:  # the child's CPU timer (the limit is ours, not its word)
                raise StudentCodeError("timeout", label, f"did not return within "
                                       f"{min(self.limits.call_cpu_seconds, seconds):g} s of CPU time")
            raise StudentCodeError("timeout", label, f"did not return within {seconds:g} s")
        if "died" in answer:
            raise StudentCodeError("crashed", label, answer["died"])
        if "missing" in answer:
            raise StudentCodeError("missing", label)
        if "error" in answer:
            err = clean_error(answer["error"])
            if err is None:
                self._died("it broke the answer format")
                raise StudentCodeError("crashed", label, "it broke the answer format")
            if err["type"] == "NotImplementedError":
                raise StudentCodeError("not implemented", label, inside=err["function"])
            if err["type"] == "UnsendableResult":
                raise StudentCodeError("unsendable", label, "returned a value that cannot be sent back "
                                       f"as numbers, strings, lists, tuples or dicts ({err['message']})")
            detail = f"{err['type']}: {err['message']}" if err["message"] else err["type"]
            raise StudentCodeError("raised", label, detail, err["where"], inside=err["function"])
        if "ok" not in answer:
            self._died("it broke the answer format")
            raise StudentCodeError("crashed", label, "it broke the answer format")
        value = answer["ok"]
        if isinstance(value, dict) and "__handle__" in value and set(value) <= {"__handle__", "type"}:
            value = RemoteObject(self, value["__handle__"], safetext.clean(value.get("type", "object"),
                                                                           safetext.NAME_CHARS), label)
        if "args_after" in answer:
            return value, answer["args_after"]
        return value
