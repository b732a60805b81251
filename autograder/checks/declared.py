"""What a check file declares, read from its syntax without importing it.

A check file (``exercises/<exercise>/checks.py``) imports the reference solutions, so
the build (which generates them), the Gradescope bundle and grading read its ``@check(...)``
decorators here instead: each check's function, name and points (``check_metas``), the
points per student function (``points_by_function``), and which checks are randomized
(``randomized_checks``).
"""
from __future__ import annotations

import ast

from autograder.checks.api import CheckMeta


def check_metas(exercise) -> list:
    """The ``CheckMeta`` of every check of ``exercise``, in file order.

    Read from the ``@check(...)`` decorators without importing the check file, so it
    works before the reference solutions are generated (``course/build.py`` needs the points).

    Raises:
        ValueError: a ``@check`` whose arguments are not literals.
    """
    return [meta for _, meta in check_functions(exercise)]


def check_functions(exercise):
    """``[(function name, CheckMeta)]`` of every check of ``exercise``, in file order, e.g.
    ``("check_row_weights", CheckMeta("attention_row", 'weights for "the cat"', 1.0))``: how
    hand-ins (``exercises/<name>/hand_ins.py``) name the checks they must fail.

    Raises:
        ValueError: as ``check_metas``.
    """
    tree = ast.parse(exercise.checks_file.read_text(encoding="utf-8"))
    metas = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("check_")):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "check":
                try:
                    args = [ast.literal_eval(a) for a in deco.args]
                    kwargs = {k.arg: ast.literal_eval(k.value) for k in deco.keywords}
                except ValueError:
                    raise ValueError(f"{exercise.checks_file.name}: @check of {node.name} "
                                     "must use literal arguments") from None
                fn, desc = args[:2]
                points = args[2] if len(args) > 2 else kwargs.get("points", 1.0)
                metas.append((node.name, CheckMeta(fn, desc, float(points))))
    return metas


def points_by_function(exercise) -> dict[str, float]:
    """``{function: total points}`` of ``exercise``'s checks."""
    totals = {}
    for meta in check_metas(exercise):
        totals[meta.function] = totals.get(meta.function, 0.0) + meta.points
    return totals


def randomized_checks(exercise) -> set[str]:
    """Names of ``exercise``'s randomized checks: those whose function takes the ``rng`` fixture.

    Read from the check file's syntax, like ``check_metas`` (whose order it follows),
    so no check file has to say it again.

    Returns:
        set of check names (``CheckMeta.name``, e.g. ``"softmax: random arrays"``).
    """
    tree = ast.parse(exercise.checks_file.read_text(encoding="utf-8"))
    takes_rng = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_") and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "check" for d in node.decorator_list):
            params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            takes_rng.append(any(p.arg == "rng" for p in params))
    metas = check_metas(exercise)
    if len(metas) != len(takes_rng):
        raise ValueError(f"{exercise.checks_file.name}: every @check must decorate a check_* function")
    return {m.name for m, rng in zip(metas, takes_rng, strict=False) if rng}
