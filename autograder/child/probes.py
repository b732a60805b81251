"""Helper objects the grader can ask a submission's child process to build.

A check cannot send a Python function or a counting wrapper as plain data, so it
asks for one of these by name (``submission.probe("name", *args)``) and gets back a
handle. Standard library and numpy only: this file is part of the child's source.
"""
from collections.abc import Callable

import numpy as np

PROBES: dict[str, Callable] = {}  # name -> factory of the helper object (``probe``)


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


# -- kv_cache: the cache the decode_step checks hand a student's decode_step -----------------
class ContractCache:
    """The KVCache contract (append(k, v) storing copies; keys, values as float64 arrays of
    shape (t, d_k), (t, d_v); len), written for the grader: decode_step's checks use it, so a
    bug in a student's own KVCache is charged to KVCache's checks alone. Any attribute a
    student's decode_step sets on it stays (plain object)."""

    def __init__(self):
        self._key_rows, self._value_rows = [], []

    def append(self, k, v):
        self._key_rows.append(np.array(k, dtype=float))
        self._value_rows.append(np.array(v, dtype=float))

    @property
    def keys(self):
        return np.stack(self._key_rows) if self._key_rows else np.zeros((0, 0))

    @property
    def values(self):
        return np.stack(self._value_rows) if self._value_rows else np.zeros((0, 0))

    def __len__(self):
        return len(self._key_rows)

    def __repr__(self):  # what a check shows when a decode_step returns the cache it was given
        return f"the cache decode_step was given, holding {len(self)} key and value rows"


ContractCache.__name__ = ContractCache.__qualname__ = "KVCache"  # as the student's feedback names it


@probe("kv_cache")
def kv_cache():
    """An empty ``ContractCache``."""
    return ContractCache()


# -- kv_cache: arrays the grader keeps a handle on ------------------------------------------
@probe("mutable_array")
def mutable_array(values):
    """A float64 array that stays in the submission's process, so the grader can hand it to
    the student's code by handle and change it in place afterwards (``handle.fill(x)``),
    as a caller reusing a buffer would."""
    return np.array(values, dtype=float)


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


# -- sampling: random generators, and stateless models that generate() loops around ---------
@probe("generator")
def generator(seed):
    """A fresh ``numpy.random.Generator`` (``np.random.default_rng(seed)``), built where the
    student's code runs, so ``sample_next`` and ``generate`` receive a real generator."""
    return np.random.default_rng(int(seed))


@probe("reseed_global")
def reseed_global(seed):
    """Reseed numpy's global random state and Python's ``random`` with ``seed`` (an int).

    Code that draws from the generator it is given does not notice; code that draws from
    the global state does, which is how a check tells the two apart."""
    import random
    np.random.seed(int(seed))
    random.seed(int(seed))
    return None


class _StatelessModel:
    """A callable ``ids -> logits``: a list of token ids in, one score per vocabulary word
    out (float64, shape (V,)); it remembers nothing between calls."""

    def __init__(self, formula, label):
        self._formula, self._label = formula, label

    def __call__(self, ids):
        ids = [int(i) for i in np.asarray(ids).reshape(-1)]
        return np.asarray(self._formula(ids), dtype=float)

    def __repr__(self):
        return f"<model: {self._label}>"


@probe("two_word_model")
def two_word_model(table, W_hidden, b_hidden, W_out, b_out):
    """Toy model 1 of the course (the embeddings and sampling exercises): the embedding rows
    of the last two ids side by side, one ReLU layer, one score per word.

    Args:
        table: embedding table, shape (V, d); W_hidden: (2 d, h); b_hidden: (h,);
        W_out: (h, V); b_out: (V,). All float.
    The model raises ValueError when it is given fewer than two ids (it reads two).
    """
    table, W_hidden, b_hidden, W_out, b_out = (np.asarray(a, dtype=float)
                                               for a in (table, W_hidden, b_hidden, W_out, b_out))

    def scores(ids):
        if len(ids) < 2:
            raise ValueError(f"this model reads the last two token ids; it was given {len(ids)}")
        x = table[ids[-2:]].reshape(-1)
        return np.maximum(x @ W_hidden + b_hidden, 0.0) @ W_out + b_out
    return _StatelessModel(scores, "the last two tokens through a ReLU layer")


@probe("whole_list_model")
def whole_list_model(scores):
    """A model whose scores depend on every id of the list it is given: the row
    ``(sum(ids) + len(ids)) % V`` of ``scores`` (float, shape (V, V)). Feeding it only the
    newest token, or a list that is not the whole text so far, changes what it says."""
    scores = np.asarray(scores, dtype=float)
    return _StatelessModel(lambda ids: scores[(sum(ids) + len(ids)) % len(scores)],
                           "a row chosen by the whole list")


@probe("fixed_scores_model")
def fixed_scores_model(scores):
    """A model that gives the same ``scores`` (float, shape (V,)) whatever ids it is given:
    a generation with it stands at one fork at every step, so one call of ``generate``
    yields many draws from one set of shares."""
    scores = np.asarray(scores, dtype=float)
    return _StatelessModel(lambda ids: scores.copy(), "the same scores at every step")
