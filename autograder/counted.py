"""Weight matrices the grader keeps: a submission multiplies by them, the grader counts.

The KV-cache check must know how many token rows a student's ``decode_step`` projects
through ``W_Q``, ``W_K`` and ``W_V`` in each step. A count kept inside the submission's
process could be rewritten by it, and a plain copy of the weights (``np.asarray(W)``)
could be multiplied where no counter sees it. So the values never go to the submission:
it receives handles (``child/probes.py``, ``Weights``) whose matrix products are sent back
to the grader over the request channel, computed here and counted here.

Only one product is offered: ``tokens @ W`` for ``tokens`` of shape ``(m, d_model)``, which
counts the distinct token rows (a row multiplied twice in one step counts once). Every
other use of the matrix (``np.asarray(W)``, elementwise arithmetic, ``W @ Y``) asks for the
values, which counts as projecting all ``d_model`` basis rows: with ``d_model`` larger than
the rows recomputing the prefix costs, reading a matrix out (or extracting it row by row with
basis vectors) never pays.
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
        self.reads = [0]

    @property
    def shape(self):
        return self.values.shape

    def new_step(self):
        """Start counting a new decode step (the grader calls this before each step)."""
        self.steps.append(set())
        self.reads.append(0)

    @property
    def rows_per_step(self):
        """Distinct token rows projected in each step (``list`` of ``int``)."""
        return [len(s) for s in self.steps]

    @property
    def rows_projected(self):
        """Distinct token rows projected, summed over the steps (``int``)."""
        return sum(self.rows_per_step)

    @property
    def read_out(self):
        """Whether the submission asked for the matrix's values in any step (``bool``)."""
        return any(self.reads)

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
        """The matrix's values; counted as projecting all ``d_model`` basis rows in this step."""
        self.reads[-1] += 1
        self.project(np.eye(self.values.shape[0]))
        return self.values.copy()


class WeightsRegistry:
    """The ``CountedWeights`` one submission may multiply by, under small integer ids."""

    def __init__(self):
        self._by_id = {}

    def add(self, weights):
        """Register ``weights``; returns its wire form ``{"__weights__": id, "shape": [r, c]}``."""
        for ident, known in self._by_id.items():
            if known is weights:
                break
        else:
            ident = len(self._by_id) + 1
            self._by_id[ident] = weights
        return {"__weights__": ident, "shape": list(weights.shape)}

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
