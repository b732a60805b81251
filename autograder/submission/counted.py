"""Weight matrices the grader counts products with: a submission multiplies by them, the
grader keeps the tally.

The KV-cache check must know how many token rows a student's ``decode_step`` projects
through ``W_Q``, ``W_K`` and ``W_V`` in each step. The tally is kept here, in the grader,
where the submission cannot rewrite it. The submission gets the matrices as real arrays
(``child/probes.py``, ``CountedArray``: ``isinstance(W, np.ndarray)`` holds, and reading the
values out with ``np.asarray(W)``, ``W.copy()``, ``W[i]`` or ``x.dot(W)`` is free), whose
products with token rows (``x @ W``, ``np.dot``, ``np.matmul``, ``np.einsum``, ``W.T @ x``)
are reported here as ``tokens @ W`` and counted: what is counted is distinct token rows
projected per decode step (a row multiplied twice in one step counts once).

A count cannot see products of a plain copy; that is why the check judges caching by
behaviour in the same calls (cache rows the grader changes between steps must show up in
the output, ``exercises/kv_cache/checks.py``): a step that recomputes the prefix instead of
reading the cache gives wrong contexts, whatever it counts.
"""
import numpy as np

MAX_TOKEN_ROWS = 4096  # rows of one product: far more than any check sends


class CountedWeights:
    """A weight matrix of shape ``(d_model, d_out)`` held by the grader, with a tally.

    Args:
        values: the matrix (array-like of floats, 2-D).
    Attributes:
        values: ``ndarray`` ``(d_model, d_out)``, float64 (never sent to the submission except
            through ``read``, which counts).
        steps: one ``set`` of counted token rows (their bytes) per decode step.
    """

    def __init__(self, values):
        self.values = np.array(values, dtype=float)
        if self.values.ndim != 2:
            raise ValueError("CountedWeights needs a 2-D matrix")
        self.steps = [set()]

    @property
    def shape(self):
        return self.values.shape

    def new_step(self):
        """Start counting a new decode step (the grader calls this before each step)."""
        self.steps.append(set())

    @property
    def rows_per_step(self):
        """Distinct token rows projected in each step (``list`` of ``int``)."""
        return [len(s) for s in self.steps]

    @property
    def rows_projected(self):
        """Distinct token rows projected, summed over the steps (``int``)."""
        return sum(self.rows_per_step)

    def project(self, tokens):
        """``tokens @ values``, counting each distinct row of ``tokens`` once per step.

        Args:
            tokens: ``ndarray`` of shape ``(m, d_model)``, float64, ``m <= MAX_TOKEN_ROWS``.
        Returns:
            ``ndarray`` of shape ``(m, d_out)``, float64.
        Raises:
            ValueError: tokens of another shape or dtype.
        """
        d_model = self.values.shape[0]
        if not (isinstance(tokens, np.ndarray) and tokens.dtype == np.float64 and tokens.ndim == 2
                and tokens.shape[1] == d_model and len(tokens) <= MAX_TOKEN_ROWS):
            raise ValueError(f"a product with these weights needs token rows of length {d_model}")
        step = self.steps[-1]
        for row in tokens:
            step.add(np.ascontiguousarray(row).tobytes())
        return tokens @ self.values

    def read(self):
        """The matrix's values (``ndarray`` copy); reading them costs nothing and is not counted."""
        return self.values.copy()


class WeightsRegistry:
    """The ``CountedWeights`` one submission may multiply by, under small integer ids."""

    def __init__(self):
        self._by_id = {}

    def add(self, weights):
        """Register ``weights``; returns its wire form ``{"__weights__": id, "shape": [r, c],
        "values": ndarray}`` (the submission gets the values; its products are counted)."""
        for ident, known in self._by_id.items():  # noqa: B007 (ident is the found one after break)
            if known is weights:
                break
        else:
            ident = len(self._by_id) + 1
            self._by_id[ident] = weights
        return {"__weights__": ident, "shape": list(weights.shape), "values": weights.values.copy()}

    def answer(self, request):
        """Answer one callback from the submission (a ``dict`` decoded from the wire).

        ``{"op": "project", "weights": id, "tokens": (m, d_model) array}`` or
        ``{"op": "read", "weights": id}``.
        Returns:
            ``{"ok": ndarray}`` or ``{"error": text}`` (never raises for a bad request).
        """
        if not isinstance(request, dict):
            return {"error": "malformed request"}
        weights = self._by_id.get(request.get("weights")) if type(request.get("weights")) is int else None
        if weights is None:
            return {"error": "unknown weights"}
        try:
            if request.get("op") == "project":
                return {"ok": weights.project(request.get("tokens"))}
            if request.get("op") == "read":
                return {"ok": weights.read()}
        except ValueError as exc:
            return {"error": str(exc)}
        return {"error": "unknown request"}
