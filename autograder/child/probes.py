"""Helper objects the grader can ask a submission's child process to build.

A check cannot send a Python function or a counting wrapper as plain data, so it
asks for one of these by name (``submission.probe("name", *args)``) and gets back a
handle. Standard library and numpy only: this file is part of the child's source.
"""
import numpy as np

PROBES = {}


def probe(name):
    """Register ``factory`` under ``name`` in ``PROBES``."""
    def register(factory):
        PROBES[name] = factory
        return factory
    return register


# -- next_token: losses that numerical_gradient can differentiate -------------------------
class _LossOfMatrix:
    """A callable ``W -> float`` (a loss of a whole matrix), as a student's code receives it."""

    def __init__(self, formula, label):
        self._formula, self._label = formula, label

    def __call__(self, W):
        return float(self._formula(np.asarray(W, dtype=float)))

    def __repr__(self):
        return f"<loss function: {self._label}>"


@probe("unembedding_loss")
def unembedding_loss(h, target):
    """``W_U -> -log softmax(W_U @ h)[target]``: the next-token loss as a function of W_U.

    Args:
        h: the hidden vector, shape (d,), float.
        target: index of the right next token (int).
    """
    h = np.asarray(h, dtype=float)
    target = int(target)

    def loss(W):
        logits = W @ h
        top = np.max(logits)
        return top + np.log(np.sum(np.exp(logits - top))) - logits[target]
    return _LossOfMatrix(loss, f"cross-entropy of W_U @ h for target {target}")


@probe("cubic_loss")
def cubic_loss():
    """``W -> sum(W ** 3)``: its central difference in one entry w is exactly 3 w**2 + eps**2."""
    return _LossOfMatrix(lambda W: np.sum(W ** 3), "sum of the cubes of the entries")


# -- kv_cache: arrays the grader keeps a handle on ------------------------------------------
@probe("mutable_array")
def mutable_array(values):
    """A float64 array that stays in the submission's process, so the grader can hand it to
    the student's code by handle and change it in place afterwards (``handle.fill(x)``),
    as a caller reusing a buffer would."""
    return np.array(values, dtype=float)


class Weights:
    """A weight matrix whose values stay with the grader (``autograder/counted.py``).

    Stands in for ``W_Q``, ``W_K`` or ``W_V`` when the grader counts a ``decode_step``'s
    projections. Matrix products that project token vectors (``x @ W``, ``X @ W``,
    ``np.dot``, ``np.matmul``, ``np.einsum("i,ij->j", x, W)``, ``W.T @ x``, ``W.T @ X.T``,
    ``out=`` buffers) and concatenations of such matrices along their output axis
    (``np.concatenate([W_Q, W_K, W_V], axis=1)``) are sent to the grader as ``tokens @ W``,
    computed there and counted there. Anything else (``np.asarray(W)``, ``W * 2``,
    ``W @ Y``, ``W[i]``, ``x.dot(W)``) first reads the whole matrix out, which the grader
    counts as projecting every one of its ``d_model`` basis rows.

    Args:
        ask: sends one request to the grader and returns its answer (or raises ValueError).
        parts: ``[(id, (d_model, d_out)), ...]``: the grader's matrices, side by side.
        transposed: whether this is the transpose (``W.T``) of those matrices.
    """

    __array_priority__ = 1000

    def __init__(self, ask, parts, transposed=False):
        self._ask, self._parts, self._transposed = ask, list(parts), transposed
        self._d_model = parts[0][1][0]
        self._d_out = sum(shape[1] for _, shape in parts)

    # -- what it looks like ---------------------------------------------------------
    @property
    def shape(self):
        return (self._d_out, self._d_model) if self._transposed else (self._d_model, self._d_out)

    ndim = 2
    dtype = np.dtype(float)

    @property
    def size(self):
        return self._d_model * self._d_out

    def __len__(self):
        return self.shape[0]

    @property
    def T(self):
        return Weights(self._ask, self._parts, not self._transposed)

    def transpose(self, *axes):
        return self.T

    def astype(self, dtype, *args, **kwargs):
        return self if np.dtype(dtype) == np.float64 else self._values().astype(dtype)

    def copy(self):
        return self

    def __repr__(self):
        return (f"<weights of shape {self.shape}, kept by the grader: multiply with @, np.dot, "
                "np.matmul or np.einsum>")

    # -- the two requests ---------------------------------------------------------------
    def _project(self, tokens):
        """``tokens @ W`` (untransposed W) for tokens of shape (m, d_model)."""
        tokens = np.ascontiguousarray(tokens, dtype=np.float64)
        outs = [np.asarray(self._ask({"op": "project", "weights": ident, "tokens": tokens}), dtype=float)
                for ident, _ in self._parts]
        return np.concatenate(outs, axis=1) if len(outs) > 1 else outs[0]

    def _values(self):
        """The whole matrix (the grader counts all d_model rows as projected)."""
        parts = [np.asarray(self._ask({"op": "read", "weights": ident}), dtype=float)
                 for ident, _ in self._parts]
        values = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        return values.T if self._transposed else values

    # -- products -----------------------------------------------------------------------
    def _matmul(self, a, b):
        """``a @ b`` where ``a`` or ``b`` is self."""
        d = self._d_model
        if b is self and not isinstance(a, Weights):
            a = np.asarray(a, dtype=float)
            if not self._transposed and a.ndim >= 1 and a.shape[-1] == d:
                return self._project(a.reshape(-1, d)).reshape(a.shape[:-1] + (self._d_out,))
        elif a is self and not isinstance(b, Weights):
            b = np.asarray(b, dtype=float)
            if self._transposed and b.ndim == 1 and len(b) == d:
                return self._project(b[None])[0]
            if self._transposed and b.ndim >= 2 and b.shape[-2] == d:
                tokens = np.swapaxes(b, -1, -2)
                out = self._project(tokens.reshape(-1, d)).reshape(tokens.shape[:-1] + (self._d_out,))
                return np.swapaxes(out, -1, -2)
        return np.matmul(_plain(a), _plain(b))

    def __matmul__(self, other):
        return self._matmul(self, other)

    def __rmatmul__(self, other):
        return self._matmul(other, self)

    def dot(self, other, out=None):
        return _store(self._matmul(self, other) if np.ndim(other) <= 2 else np.dot(self._values(), other), out)

    def _einsum(self, subscripts, a, b, kwargs):
        """Two-operand einsum that contracts W's d_model axis with the other operand's axis."""
        if set(kwargs) - {"optimize"} or not isinstance(subscripts, str) or "..." in subscripts \
                or "->" not in subscripts:
            return None
        inputs, output = subscripts.replace(" ", "").split("->")
        if inputs.count(",") != 1:
            return None
        left, right = inputs.split(",")
        w_subs, x_subs, x = (left, right, b) if a is self else (right, left, a)
        if isinstance(x, Weights) or len(w_subs) != 2:
            return None
        dm, do = (w_subs[1], w_subs[0]) if self._transposed else (w_subs[0], w_subs[1])
        x = np.asarray(x, dtype=float)
        if (len(x_subs) != x.ndim or x_subs.count(dm) != 1 or do in x_subs or dm in output
                or len(set(x_subs)) != len(x_subs) or dm == do):
            return None
        axis = x_subs.index(dm)
        moved = np.moveaxis(x, axis, -1)
        rest = x_subs[:axis] + x_subs[axis + 1:]
        projected = self._project(moved.reshape(-1, self._d_model)).reshape(moved.shape[:-1] + (self._d_out,))
        return np.einsum(f"{rest}{do}->{output}", projected)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        if ufunc is np.matmul and method == "__call__" and len(inputs) == 2 and not kwargs:
            return _store(self._matmul(*inputs), out[0] if out else None)
        args = [_plain(x) for x in inputs]
        if out is not None:
            kwargs["out"] = out
        return getattr(ufunc, method)(*args, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.dot, np.matmul) and len(args) == 2 and set(kwargs) <= {"out"}:
            if np.ndim(args[0]) <= 2 and np.ndim(args[1]) <= 2:
                return _store(self._matmul(*args), kwargs.get("out"))
        if func is np.inner and len(args) == 2 and not kwargs and np.ndim(args[0]) <= 2 and np.ndim(args[1]) <= 2:
            a, b = args
            if b is self and not isinstance(a, Weights):   # inner(X, W) = X @ W.T
                t = self.T
                return t._matmul(a, t)
            if a is self and not isinstance(b, Weights):   # inner(W, X) = W @ X.T
                return self._matmul(self, np.asarray(b, dtype=float).T)
        if func is np.einsum and len(args) == 3 and any(x is self for x in args[1:]):
            found = self._einsum(args[0], args[1], args[2], kwargs)
            if found is not None:
                return found
        if func is np.tensordot and len(args) == 2 and args[1] is self and kwargs.get("axes", 2) == 1 \
                and set(kwargs) <= {"axes"} and not isinstance(args[0], Weights):
            return self._matmul(args[0], self)   # tensordot(X, W, axes=1) is X @ W
        if func in _JOINS and args:
            joined = _join(func, args[0], kwargs)
            if joined is not None:
                return joined
        if func is np.transpose and len(args) == 1 and not kwargs:
            return self.T
        if func is np.shape:
            return self.shape
        if func is np.ndim:
            return 2
        return func(*_plain_all(args), **_plain_all(kwargs))

    # -- everything else reads the matrix out -----------------------------------------------
    def __array__(self, dtype=None, copy=None):
        values = self._values()
        return values if dtype is None else values.astype(dtype)

    def __getitem__(self, key):
        return self._values()[key]

    def __iter__(self):
        return iter(self._values())

    def tolist(self):
        return self._values().tolist()

    def __getattr__(self, name):  # ndarray methods not written above (sum, reshape, max ...)
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(name)
        return getattr(self._values(), name)

    def _arith(name):
        def op(self, *others):
            return getattr(self._values(), name)(*[_plain(o) for o in others])
        return op

    for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                  "__rtruediv__", "__neg__", "__pow__", "__eq__", "__ne__", "__lt__", "__le__",
                  "__gt__", "__ge__", "__abs__"):
        locals()[_name] = _arith(_name)
    del _name, _arith
    __hash__ = None


def _plain(x):
    return x._values() if isinstance(x, Weights) else x


def _plain_all(value):
    if isinstance(value, Weights):
        return value._values()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain_all(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain_all(v) for k, v in value.items()}
    return value


def _store(result, out):
    if out is None:
        return result
    out[...] = result
    return out


_JOINS = {np.concatenate: None, np.hstack: 1, np.column_stack: 1, np.vstack: 0}


def _join(func, items, kwargs):
    """Weights side by side along their output axis (``np.concatenate([W_Q, W_K], axis=1)``)."""
    if not (isinstance(items, (list, tuple)) and items and all(isinstance(w, Weights) for w in items)):
        return None
    transposed = items[0]._transposed
    if any(w._transposed != transposed or w._d_model != items[0]._d_model for w in items):
        return None
    axis = kwargs.get("axis", 0) if func is np.concatenate else _JOINS[func]
    if set(kwargs) - {"axis"} or axis not in ((0, -2) if transposed else (1, -1)):
        return None
    return Weights(items[0]._ask, [p for w in items for p in w._parts], transposed)


# -- kv_cache: weights that are real arrays, whose products with token rows are counted ----------
class CountedArray(np.ndarray):
    """A weight matrix handed to ``decode_step``: a real ``float64`` ndarray holding the values
    (``isinstance(W, np.ndarray)`` is true; ``np.asarray(W)``, ``W.copy()``, ``W[i]``,
    ``x.dot(W)`` read it freely), whose products with token rows are reported to the grader.

    What is counted is token rows projected through the matrix (``counted.CountedWeights``
    keeps the tally, in the grader): ``X @ W``, ``np.matmul``, ``np.dot(X, W)``, ``np.einsum``
    with ``W``, ``W.T @ x`` (and the same on views and copies of ``W`` that stay this type).
    A plain array made from it (``np.asarray(W)``) is the student's own and not counted: the
    check judges caching by behaviour too (cache rows the grader changed must show up in the
    output), so reading the weights out is never a way around it.

    Build with ``CountedArray.of(values, ask, ident)``: ``ask`` sends one request to the
    grader (``{"op": "project", "weights": ident, "tokens": (m, d_model) float64}``).
    """

    def __array_finalize__(self, obj):
        self._ask = getattr(obj, "_ask", None)
        self._ident = getattr(obj, "_ident", None)
        self._transposed = getattr(obj, "_transposed", False)

    @classmethod
    def of(cls, values, ask, ident):
        """A ``CountedArray`` copy of ``values`` (2-D ``(d_model, d_out)``) counted under ``ident``."""
        obj = np.array(values, dtype=float).view(cls)
        obj._ask, obj._ident, obj._transposed = ask, ident, False
        return obj

    @property
    def T(self):
        out = np.ndarray.transpose(self)
        out._transposed = not self._transposed
        return out

    def transpose(self, *axes):
        if axes and tuple(axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes) == (0, 1):
            return self.view()
        return self.T

    def dot(self, other, out=None):
        return np.dot(self, other, out=out)

    def _counted(self):
        return self._ask is not None and self.ndim == 2

    def _report(self, tokens):
        """Send the token rows (each of length d_model) to the grader's tally."""
        tokens = np.asarray(tokens, dtype=np.float64)
        if not tokens.size:
            return
        try:
            self._ask({"op": "project", "weights": self._ident,
                       "tokens": np.ascontiguousarray(tokens.reshape(-1, tokens.shape[-1]))})
        except ValueError:
            pass  # a malformed product: numpy's own error (or result) follows

    def _count_product(self, a, b):
        """Count the token rows of ``a @ b`` where one side is a counted matrix."""
        if isinstance(b, CountedArray) and b._counted() and not b._transposed and not isinstance(a, CountedArray):
            a = np.asarray(a)
            if a.ndim >= 1 and a.shape[-1] == b.shape[0]:
                b._report(a.reshape(-1, b.shape[0]))
        elif isinstance(a, CountedArray) and a._counted() and a._transposed and not isinstance(b, CountedArray):
            b = np.asarray(b)
            d = a.shape[1]
            if b.ndim == 1 and len(b) == d:
                a._report(b[None])
            elif b.ndim >= 2 and b.shape[-2] == d:
                a._report(np.swapaxes(b, -1, -2).reshape(-1, d))

    def _count_einsum(self, operands):
        others = [x for x in operands if not isinstance(x, CountedArray)]
        for w in (x for x in operands if isinstance(x, CountedArray) and x._counted()):
            d = w.shape[1] if w._transposed else w.shape[0]
            for x in others:
                x = np.asarray(x)
                axes = [i for i, n in enumerate(x.shape) if n == d]
                if x.dtype.kind in "biuf" and axes:
                    w.view(CountedArray)._report(np.moveaxis(x, axes[-1], -1).reshape(-1, d))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.matmul and method == "__call__" and len(inputs) == 2:
            self._count_product(*inputs)
        args = [_as_plain(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_as_plain(o) for o in kwargs["out"])
        return getattr(ufunc, method)(*args, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.dot, np.matmul) and len(args) == 2:
            self._count_product(*args)
        elif func is np.tensordot and len(args) == 2 and kwargs.get("axes", 2) == 1:
            self._count_product(*args)
        elif func is np.einsum and len(args) >= 2:
            self._count_einsum(args[1:])
        if func is np.transpose and len(args) == 1 and isinstance(args[0], CountedArray):
            return args[0].T
        return func(*_plain_all_arrays(args), **_plain_all_arrays(kwargs))

    def __reduce__(self):  # pickling / deep copies give a plain array
        return np.asarray(self).__reduce__()


def _as_plain(x):
    return x.view(np.ndarray) if isinstance(x, CountedArray) else x


def _plain_all_arrays(value):
    if isinstance(value, CountedArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain_all_arrays(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain_all_arrays(v) for k, v in value.items()}
    return value
