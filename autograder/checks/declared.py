"""What an exercise's checks are, read from their syntax without importing them.

The hidden checks of an exercise are its declared fixed checks (``Check(...)`` with points in
``exercises/<exercise>/cases.py``, ``checks/cases.py``) and the ``@check`` functions of its
``checks.py`` (randomized and property checks). Both files import the reference solutions, so
the build (which generates them), the Gradescope bundle and grading read them here instead:
each check's function, name and points (``check_metas``), the points per student function
(``points_by_function``), and which checks are randomized (``randomized_checks``).

The order of the checks (``check_functions``), which results, reports and the notebook's
summary follow: the exercise's functions in their order; under each, its declared checks
in ``cases.py`` order, then its ``checks.py`` checks in file order.
"""
from __future__ import annotations

import ast

from autograder.checks.meta import CheckMeta


def check_metas(exercise) -> list:
    """The ``CheckMeta`` of every check of ``exercise``, in file order.

    Read from the ``@check(...)`` decorators without importing the check file, so it
    works before the reference solutions are generated (``course/build.py`` needs the points).

    Raises:
        ValueError: a ``@check`` whose arguments are not literals.
    """
    return [meta for _, meta in check_functions(exercise)]


def check_functions(exercise):
    """``[(check name, CheckMeta)]`` of every check of ``exercise``, in the order of the module
    docstring, e.g. ``("check_row_weights", CheckMeta("attention_row", 'weights for "the cat"', 1.0))``:
    how hand-ins (``exercises/<name>/hand_ins.py``) name the checks they must fail.

    Raises:
        ValueError: a ``@check`` or a graded ``Check`` whose function, description, points or
            name is not a literal; a function no check of the exercise's contract.
    """
    found = _declared_checks(exercise) + [(name, meta) for name, meta, _ in _file_checks(exercise)]
    rank = {f: i for i, f in enumerate(exercise.functions)}
    strays = sorted({meta.function for _, meta in found} - set(rank))
    if strays:
        raise ValueError(f"{exercise.name}: checks of {strays}, which exercise.toml's functions do not list")
    return sorted(found, key=lambda item: rank[item[1].function])


def _file_checks(exercise):
    """``[(name, CheckMeta, takes rng)]`` of the ``@check`` functions of ``checks.py``, in file order."""
    tree = ast.parse(exercise.checks_file.read_text(encoding="utf-8"))
    found = []
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
                params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                found.append((node.name, CheckMeta(fn, desc, float(points)), any(p.arg == "rng" for p in params)))
    return found


def _declared_checks(exercise):
    """``[(name, CheckMeta)]`` of the graded ``Check(...)`` calls of ``cases.py``, in file order."""
    path = exercise.folder / "cases.py"
    if not path.is_file():
        return []
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Check"):
            continue
        fields = dict(zip(("function", "description", "cases", "points", "name"), node.args, strict=False))
        fields.update({k.arg: k.value for k in node.keywords})
        if "points" not in fields:
            continue  # a worked example, never graded
        try:
            meta = {k: ast.literal_eval(fields[k]) for k in ("function", "description", "points", "name")}
        except (KeyError, ValueError):
            raise ValueError(f"{path.name}: a graded Check (line {node.lineno}) must give its function, "
                             "description, points and name as literals") from None
        found.append((node.lineno, meta["name"], CheckMeta(meta["function"], meta["description"],
                                                           float(meta["points"]))))
    return [(name, meta) for _, name, meta in sorted(found, key=lambda item: item[0])]


def points_by_function(exercise) -> dict[str, float]:
    """``{function: total points}`` of ``exercise``'s checks."""
    totals: dict[str, float] = {}
    for meta in check_metas(exercise):
        totals[meta.function] = totals.get(meta.function, 0.0) + meta.points
    return totals


def randomized_checks(exercise) -> set[str]:
    """Names of ``exercise``'s randomized checks: the ``checks.py`` functions that take the ``rng``
    fixture (a declared case is fixed), read from the syntax, so no check file says it again.

    Returns:
        set of check names (``CheckMeta.name``, e.g. ``"softmax: random arrays"``).
    """
    return {meta.name for _, meta, takes_rng in _file_checks(exercise) if takes_rng}
