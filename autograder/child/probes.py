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


class CountingMatrix(np.ndarray):
    """A weight matrix that records which token rows are multiplied through it.

    ``x @ W``, ``X @ W``, ``np.matmul``, ``np.dot``, ``np.inner``, ``W.dot`` and products with
    views of ``W`` (``W.T @ x``, ``W[:, j]``, ``W.astype(float)``) are seen. The tokens of
    ``X @ W`` are the rows of ``X``; those of ``W.T @ X.T`` are the columns of ``X.T``.
    Rows are told apart by their bytes and counted once per step (``new_step()``), so
    multiplying the same token twice in a step, or one column of ``W`` at a time, still
    counts that token once. Results are plain ndarrays, so nothing computed from them counts.

    Not seen: copies that drop the subclass (``np.asarray(W)``, ``np.array(W)``, ``x.dot(W)``,
    ``np.einsum``, ``np.tensordot``): then the count stays 0 and the check must decide
    another way (``check_kv_cache`` falls back to a behavioural test).
    """

    def __array_finalize__(self, obj):
        self._tally = getattr(obj, "_tally", None)  # views and copies share their parent's

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        obj = np.asarray(obj).view(np.ndarray)
        return obj[()] if return_scalar else obj

    # -- counting ---------------------------------------------------------------
    def _note(self, left, right):
        """Record the token rows of ``left @ right``, where one side is (a view of) self."""
        left_is_w, right_is_w = isinstance(left, CountingMatrix), isinstance(right, CountingMatrix)
        if left_is_w == right_is_w or self._tally is None:
            return  # weights times weights, or no tally: not a token being projected
        tokens = np.asarray(left if right_is_w else right, dtype=float)
        if tokens.ndim == 0:
            return
        if tokens.ndim == 1:
            rows = tokens.reshape(1, -1)
        elif right_is_w:  # X @ W: every row of X is a token
            rows = tokens.reshape(-1, tokens.shape[-1])
        else:             # W.T @ X.T: every column of X.T is a token
            rows = np.swapaxes(tokens, -1, -2).reshape(-1, tokens.shape[-2])
        step = self._tally["steps"][-1]
        for row in rows:
            step.add(np.ascontiguousarray(row).tobytes())

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.matmul and method == "__call__" and len(inputs) == 2:
            self._note(*inputs)
        plain = [_plain(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.dot, np.inner) and len(args) >= 2:
            a, b = args[0], args[1]
            if func is np.dot:
                self._note(a, b)
            elif isinstance(b, CountingMatrix):  # inner(X, W): the rows of X are the tokens
                self._note(a, b.T)
            else:                                # inner(W, X): so are they here
                self._note(b, a.T)
            return func(*[_plain(x) for x in args], **{k: _plain(v) for k, v in kwargs.items()})
        return super().__array_function__(func, types, args, kwargs)

    def dot(self, other, out=None):
        self._note(self, other)
        return np.dot(_plain(self), _plain(other), out=_plain(out))

    # -- what the grader reads ----------------------------------------------------
    def new_step(self):
        """Start counting a new decode step (the grader calls this before each step)."""
        self._tally["steps"].append(set())

    @property
    def rows_per_step(self):
        """Distinct token rows multiplied through this matrix in each step, as a list of ints."""
        return [len(s) for s in self._tally["steps"]]

    @property
    def rows_projected(self):
        """Distinct token rows multiplied through this matrix, summed over the steps (int)."""
        return sum(self.rows_per_step)


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, CountingMatrix) else x


@probe("counting_matrix")
def counting_matrix(W):
    """``W`` as a ``CountingMatrix`` with a fresh tally (see its docstring)."""
    counted = np.array(W, dtype=float).view(CountingMatrix)
    counted._tally = {"steps": [set()]}
    return counted
