"""Which of the fork server's optional imports a notebook needs (``child/forkserver.py``'s ``OPTIONAL``).

A fork server imports numpy for every student; matplotlib's pyplot (about half of a start that
imported everything) and tiktoken with its ``cl100k_base`` encoding (a fifth) only when the
grader asks, before forking the child of a notebook that needs them. ``groups(cells)`` reads the
cells the child will run (those before the last hidden-test cell: the child runs no cell after
it) and names a group when

* a top-level statement imports it (``import matplotlib.pyplot as plt``, ``import tiktoken``,
  ``from matplotlib import pyplot``; inside ``if``/``for``/``with``/``try`` too), or
* a function whose body imports it is called by a top-level statement of those cells (a plotting
  helper defined and used at once).

A helper that is only defined, or called in a cell the grader does not run (an instructor demo,
a cell after the last hidden-test cell), names nothing. The reading is an estimate of cost, not
a rule: a notebook that imports a module the reading did not see (``__import__`` of a built
string, a call inside another function) imports it in its own child, as a cold child does, and
is graded the same; it only pays the import itself. A cell that does not parse is read as text.
"""
from __future__ import annotations

import ast

# top-level module name -> the fork server's group (the keys of forkserver.OPTIONAL)
GROUPS = {"matplotlib": "matplotlib", "tiktoken": "tiktoken"}


def _imported(node) -> set[str]:
    """Groups named by an ``import``/``from ... import`` statement ``node``."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        names = [node.module]
    else:
        return set()
    return {GROUPS[n.split(".")[0]] for n in names if n.split(".")[0] in GROUPS}


def _statements(body):
    """The statements of ``body`` that run when it runs: nested blocks (``if``, ``for``, ``with``,
    ``try``) included, function and class bodies not (a ``def`` itself is yielded)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(n for n in getattr(node, field, ()) or () if isinstance(n, ast.AST))


def _calls(tree):
    """Names called outside function and class bodies in ``tree``."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            yield node.func.id
        stack.extend(ast.iter_child_nodes(node))


def _parse(source):
    """``ast.Module`` of ``source``, or ``None`` when it cannot be parsed (a syntax error, a
    null byte, nesting too deep for the parser)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _run_cells(cells) -> list[str]:
    """Sources of the cells a child runs: up to the last hidden-test cell, demos and visible
    checks left out."""
    cells = list(cells)
    last = max((i for i, c in enumerate(cells) if getattr(c, "checkpoint", None)), default=len(cells))
    return [getattr(c, "source", "") or "" for c in cells[:last]
            if not getattr(c, "skipped", getattr(c, "demo", False)) and not getattr(c, "checkpoint", None)]


def groups(cells) -> list[str]:
    """The fork server's optional groups the notebook ``cells`` needs (see the module docstring).

    Args:
        cells: ``submission.notebook.Cell`` list (``source``, ``checkpoint``, ``demo``), or
            plain ``(label, source)`` pairs (read in full: they mark no hidden-test cell).
    Returns:
        sorted ``list`` of group names (``"matplotlib"``, ``"tiktoken"``); empty when none.
    """
    cells = list(cells)
    if any(hasattr(c, "source") for c in cells):
        sources = _run_cells(c for c in cells if hasattr(c, "source"))
    else:
        sources = [c[1] for c in cells if isinstance(c, (tuple, list)) and len(c) == 2 and isinstance(c[1], str)]
    found, helpers = set(), {}
    for source in sources:  # only cells that name a group are parsed: most name none
        named = [g for name, g in GROUPS.items() if name in source]
        if not named:
            continue
        tree = _parse(source)
        if tree is None:
            found.update(named)
            continue
        for node in _statements(tree.body):
            found |= _imported(node)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = set().union(*(_imported(n) for n in ast.walk(node)))
                if inner - found:
                    helpers[node.name] = inner
    for source in sources:  # a helper that imports one: is it called where the grader runs it?
        names = [n for n in helpers if n in source and not helpers[n] <= found]
        if names:
            tree = _parse(source)
            called = set(_calls(tree)) if tree is not None else set()
            for name in called.intersection(names):
                found |= helpers[name]
    return sorted(found)
