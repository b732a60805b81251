"""Independently written, correct solutions of every exercise, in several styles (plain loops,
vectorised numpy, einsum, helper variables ...), written apart from the reference and from each
other: what honest students hand in. The near-copy comparison must keep them apart
(``benchmarks/near_copies.py`` measures the false-flag rate over every pair of them,
``tests/reports/test_near_copy_disguises.py`` grades them).

Each exercise's module holds ``STYLES``: ``{style: {function: source of its solution cell}}``,
each source a whole cell (imports it needs, then the ``def``/``class``), as ``demo.fill.
filled_notebook`` takes it.
"""
from __future__ import annotations

import importlib


def styles(exercise) -> dict:
    """``{style: {function: cell source}}`` of ``exercise`` (an ``Exercise``): the course's
    reference (``"reference"``) and the independent styles of its module here."""
    from autograder.demo.fill import reference_code
    written = importlib.import_module(f"{__name__}.{exercise.name}").STYLES
    return {"reference": {f: s for f, s in reference_code(exercise).items() if f in exercise.functions},
            **written}
