"""The submission interface of ``remote.ChildSubmission`` over a namespace in this process.

``LocalSubmission`` is what the hidden test cells use inside ``nbgrader autograde`` (see
``nbgrader_glue/in_kernel.py``), where the student's code runs in the kernel anyway.
"""
import json

from autograder.child import wire
from autograder.child.probes import PROBES, CountedArray
from autograder.sandbox.limits import StudentCodeError
from autograder.submission.counted import CountedWeights, WeightsRegistry
from autograder.submission.repeated import accepted, arguments, as_accept, check_times, check_vary


class LocalSubmission:
    """The same interface as ``ChildSubmission`` over a namespace in this process.

    Used inside ``nbgrader autograde``, where the hidden test cells run in the
    student's kernel anyway. Arguments and results still go through ``wire`` so a
    check sees exactly the values it would see from a child process.
    """

    def __init__(self, namespace, fresh_namespace=None):
        """``fresh_namespace(checkpoint)``: optional, the notebook's code up to its hidden-test
        cell ``checkpoint`` run again in a new namespace (``nbgrader_glue/in_kernel.py`` runs the
        kernel's history); without it ``fresh`` gives ``None``."""
        self.ns = namespace
        self._fresh_namespace = fresh_namespace
        self.startup = {"defined": sorted(k for k, v in namespace.items() if callable(v)),
                        "errors": []}

    def ensure_started(self):
        return self.startup

    def fresh(self, checkpoint):
        """A ``LocalSubmission`` of the notebook's code up to its hidden-test cell ``checkpoint``
        run again in a new namespace, or ``None`` when there is no way to run it again (a
        namespace without a notebook)."""
        if self._fresh_namespace is None:
            return None
        return LocalSubmission(self._fresh_namespace(checkpoint))

    def close(self):
        pass

    def _run(self, label, thunk, keep=False, return_args=None):
        try:
            result = thunk()
        except NotImplementedError as exc:
            raise StudentCodeError("not implemented", label, inside=self._inside(exc)) from None
        except StudentCodeError:
            raise
        except Exception as exc:
            raise StudentCodeError("raised", label, f"{type(exc).__name__}: {exc}",
                                   inside=self._inside(exc)) from None
        if keep:
            return LocalObject(self, result, label)
        value = _round_trip(result)
        if callable(result) and isinstance(value, wire.Opaque):
            return {"__callable__": label}
        if return_args is not None:
            return value, _round_trip(list(return_args))
        return value

    def _inside(self, exc):
        """The innermost function of the namespace running where ``exc`` was raised, or None."""
        codes = {getattr(v, "__code__", None): k for k, v in self.ns.items() if callable(v)}
        inside = None
        tb = exc.__traceback__
        while tb is not None:
            inside = codes.get(tb.tb_frame.f_code, inside)
            tb = tb.tb_next
        return inside

    def _lookup(self, name):
        if name not in self.ns:
            raise StudentCodeError("missing", name)
        return self.ns[name]

    def function(self, name):
        def call(*args, **kwargs):
            args, kwargs = _args(args), _round_trip(kwargs)
            return self._run(name, lambda: self._lookup(name)(*args, **kwargs))
        call.__name__ = name
        return call

    def repeat(self, name, times, args=(), kwargs=None, accept=None, vary=None):
        """As ``ChildSubmission.repeat``: ``times`` calls of ``name``, each on fresh wire copies
        of ``args`` (with ``vary``'s values put in) and ``kwargs`` (objects the check built here
        stay the same objects).

        Returns:
            ``list`` of the values (fewer when ``accept`` ended it early, see ``repeated.py``).
        Raises:
            StudentCodeError: as the first call that fails; the values before it are on the
                error as ``results_before``.
            ValueError: ``times`` is not a count, or ``vary`` does not fit it.
        """
        times, accept = check_times(times), as_accept(accept)
        vary = check_vary(vary, times, tuple(args))
        results = []
        for i in range(times):
            a, k = _args(arguments(args, vary, i)), _round_trip(kwargs or {})
            try:
                value = self._run(name, lambda a=a, k=k: self._lookup(name)(*a, **k))
            except StudentCodeError as exc:
                exc.results_before = results
                raise
            results.append(value)
            if not accepted(value, accept):
                break
        return results

    def call_keeping_args(self, name, *args, **kwargs):
        args, kwargs = _args(args), _round_trip(kwargs)
        return self._run(name, lambda: self._lookup(name)(*args, **kwargs), return_args=args)

    def call_answered(self, name, table, *args, **kwargs):
        """As ``ChildSubmission.call_answered``: ``name`` called with its helpers ``HelperAnswers.names``
        bound, for the call, to stand-ins answering from ``table`` (through wire copies)."""
        from autograder.child.server import stand_in
        held = {id(a._obj): a._obj for a in args if isinstance(a, LocalObject)}
        args, kwargs = _args(args), _round_trip(kwargs)

        def handles(value):  # an object the check handed in travels as its handle, as in a child
            if id(value) in held and held[id(value)] is value:
                return {"__local__": id(value)}
            if isinstance(value, (list, tuple)):
                return type(value)(handles(v) for v in value)
            if isinstance(value, dict):
                return {k: handles(v) for k, v in value.items()}
            return value

        def ask(request):
            reply = table.answer(_round_trip(handles(request)))
            return _round_trip(reply.get("ok"))
        originals = {h: self.ns[h] for h in table.names if callable(self.ns.get(h))}
        try:
            self.ns.update({h: stand_in(h, ask, own) for h, own in originals.items()})
            return self._run(name, lambda: self._lookup(name)(*args, **kwargs))
        finally:
            self.ns.update(originals)

    def new(self, name, *args, **kwargs):
        args, kwargs = _args(args), _round_trip(kwargs)
        return self._run(name, lambda: self._lookup(name)(*args, **kwargs), keep=True)

    def probe(self, name, *args):
        return LocalObject(self, PROBES[name](*args), name)

    def probe_each(self, name, arg_lists):
        """As ``ChildSubmission.probe_each``: ``[probe(name, *args) for args in arg_lists]``."""
        return [self.probe(name, *args) for args in arg_lists]

    def counted_weights(self, values):
        """As ``ChildSubmission.counted_weights``: the student's code gets a ``CountedArray``
        whose products with token rows are reported, through wire copies, to the ``CountedWeights``."""
        return CountedWeights(values)


def _ask_local(registry):
    def ask(request):
        answer = registry.answer(_round_trip(request))
        if "ok" not in answer:
            raise ValueError(answer.get("error"))
        return _round_trip(answer["ok"])
    return ask


def _round_trip(value):
    return wire.from_wire(json.loads(json.dumps(wire.to_wire(value))))


def _args(args):
    """Fresh copies of the arguments, as a child process would receive them."""
    return [a._obj if isinstance(a, LocalObject) else _weights_handle(a) if isinstance(a, CountedWeights)
            else _round_trip(a) for a in args]


def _weights_handle(weights):
    registry = WeightsRegistry()
    wire_form = registry.add(weights)
    return CountedArray.of(wire_form["values"], _ask_local(registry), wire_form["__weights__"])


class LocalObject:
    """In-process twin of ``RemoteObject``: results still pass through ``wire``."""

    def __init__(self, submission, obj, label):
        self._submission, self._obj, self._label = submission, obj, label

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        label = f"{self._label}.{name}"
        attr = self._submission._run(label, lambda: getattr(self._obj, name), keep=True)._obj
        if callable(attr) and not hasattr(attr, "__array__"):
            def method(*args, **kwargs):
                args, kwargs = _args(args), _round_trip(kwargs)
                return self._submission._run(label, lambda: attr(*args, **kwargs))
            return method
        return _round_trip(attr)

    def __len__(self):
        return self._submission._run(f"len({self._label})", lambda: len(self._obj))

    def __call__(self, *args, **kwargs):
        """Call the object (a probe that is a function), as ``RemoteObject.__call__``."""
        args, kwargs = _args(args), _round_trip(kwargs)
        return self._submission._run(f"{self._label}()", lambda: self._obj(*args, **kwargs))
