"""A student's solution code in a canonical form, what the near-copy comparison fingerprints: code
padded, renamed or reordered to read differently while doing the same compares as what it does.
JPlag's token-sequence normalisation (dead code out, independent statements in one order), done on
Python's own syntax tree (``ast``):

1. statements with no effect are removed, again and again until nothing changes: assignments to
   names never read (the value kept as a statement when it may have an effect), bare expressions
   without an effect (constants, docstrings, names, calls of side-effect-free builtins, numpy and
   math functions and methods such as ``.sum()``), ``pass``, code after ``return``/``raise``/
   ``continue``/``break``, branches of an ``if``/``while`` whose condition is a constant (folded
   from literals, ``not``/``and``/``or``, comparisons, small arithmetic and ``len``/``str``/...),
   empty loops, ``try`` blocks and branches, unused imports, and helper functions and classes that
   no graded function (nor any kept top-level statement) reaches (when the code defines no graded
   function, its functions all stay);
2. statements with no dependence between them are put in a canonical order: a statement depends on
   an earlier one when one writes a name the other reads or writes (a subscript or attribute store
   and a mutating method call, such as ``x.append``, write their base name); a call that may have
   any other side effect (``print``, an unknown function, ``np.random``...), ``return``, ``raise``,
   ``yield`` and the like keep their place against every statement. Among the statements free to go
   first, the one whose text with every name blanked is smallest goes first;
3. each function's local names (parameters included) are renamed ``v0, v1, ...`` in order of first
   use, helper functions ``h0, h1, ...``; augmented assignments ``x += y`` read as ``x = x + y``,
   ``a, b = x, y`` (neither value reading ``a`` or ``b``) as two assignments; ``x = x``, ``del`` of
   names never read and ``assert`` of a true constant are removed with the rest; an ``else`` after
   a branch that ends in ``return`` (``raise`` ...) follows the ``if``; annotations are dropped;
4. the code is printed again by ``ast.unparse`` (one layout, one quoting).

A region that does not parse (even with IPython's ``%``/``!`` lines left out) is kept as its text.
The class report keeps showing the students' own code: this form is only what is fingerprinted.
"""
from __future__ import annotations

import ast
import heapq
import keyword
import re

from autograder.reports import effects

_REORDER_MAX = 200   # longest block put in canonical order (the dependence test is quadratic)
_ROUNDS = 20         # removal passes at most (each removes something or stops)


def normalise(regions: dict, functions) -> str:
    """The canonical form of one student's solution regions of one assignment (see the module).

    Each region (cell) is put in canonical form on its own, knowing of the other cells only what it
    needs: which of its functions they use (so a helper another cell calls stays) and which of
    their functions are free of effects. That form is kept per (cell text, what it knows) for this
    process (``_CACHE`` entries at most), so a cell many students hand in alike is worked out once.

    Args:
        regions: ``{function: source}`` (``boilerplate.regions``), any subset of ``functions``.
        functions: the exercise's graded functions and classes, in order: what roots the removal of
            unreached helpers, and the order the regions are joined in.
    Returns:
        str: each region's canonical code in the order of ``functions``; a region that does not
        parse, or cannot be taken apart, as handed in.
    """
    graded = frozenset(functions)
    texts = [regions.get(f, "") for f in functions if regions.get(f, "").strip()]
    infos = [_info(t) for t in texts]
    defines_graded = any(graded & i[0] for i in infos if i[0] is not None)
    parts = []
    for k, (text, (defined, loads, _)) in enumerate(zip(texts, infos, strict=True)):
        if defined is None:  # does not parse
            parts.append(text)
            continue
        others = [i for j, i in enumerate(infos) if j != k]
        used = set().union(*(i[1] for i in others)) if others else set()
        roots = frozenset((graded | used) & defined) if defines_graded else frozenset(defined)
        outer = frozenset(set().union(*(i[2] for i in others if i[2])) & loads) if others else frozenset()
        key = (text, roots, outer, graded)
        found = _done.get(key)
        if found is None:
            found = _canonical_text(text, graded, roots, outer | infos[k][2])
            if len(_done) >= _CACHE:
                _done.clear()
            _done[key] = found
        parts.append(found)
    return "\n\n".join(x for x in parts if x.strip())


_CACHE = 4096  # canonical cells kept per process
_done: dict = {}   # (cell text, roots, outer pure functions, graded) -> canonical text
_infos: dict = {}  # cell text -> _info


def _info(text: str) -> tuple:
    """``(defined, loads, pure)`` of a cell: its top-level function and class names, every name it
    loads, and its functions free of effects on their own (``effects.pure_defs``); ``(None, names,
    set())`` when it does not parse (its names read from the text)."""
    found = _infos.get(text)
    if found is None:
        tree = _parse(text)
        if tree is None:
            found = (None, set(re.findall(r"[A-Za-z_]\w*", text)), set())
        else:
            try:
                found = (frozenset(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                                ast.ClassDef))),
                         effects.reads(tree), frozenset(effects.pure_defs(tree)))
            except RecursionError:
                found = (None, set(re.findall(r"[A-Za-z_]\w*", text)), set())
        if len(_infos) >= _CACHE:
            _infos.clear()
        _infos[text] = found
    return found


def _canonical_text(text, graded, roots, outer) -> str:
    """One cell's canonical code (``text`` itself when it cannot be taken apart)."""
    try:
        module = _canonical(_parse(text), graded, roots, outer)
        return ast.unparse(module)
    except Exception:  # noqa: BLE001 -- code this cannot take apart (nested too deep ...) is compared as handed in
        return text


def formatted(source: str) -> str:
    """``source`` printed again by ``ast.unparse`` (one layout and quoting, nothing removed or
    renamed); ``source`` itself when it does not parse. For the course's code, so that lines a
    student pasted from it read the same in the student's canonical form."""
    tree = _parse(source)
    try:
        return ast.unparse(tree) if tree is not None else source
    except (RecursionError, ValueError):
        return source


def _parse(source: str):
    """The module ``source`` parses to, retried with IPython's ``%`` and ``!`` lines left out; None."""
    for text in (source, re.sub(r"(?m)^[ \t]*[%!].*$", "", source)):
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _size(tree) -> int:
    return sum(1 for _ in ast.walk(tree))


def _canonical(module, graded, roots, outer):
    """``module`` in canonical form: ``roots`` its functions used from elsewhere (kept), ``outer``
    the functions known to be free of effects (its own and those of the other cells)."""
    pure_defs = outer
    before = _size(module)
    for _ in range(_ROUNDS):
        module.body = _prune_module(module.body, graded, roots, pure_defs)
        for node in ast.walk(module):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.body = _clean(node.body, *effects.reads_and_declared(node), pure_defs) or [ast.Pass()]
        after = _size(module)
        if after == before:  # every removal makes the tree smaller, every rewrite larger
            break
        before = after
    ast.fix_missing_locations(module)  # (new statements: ``ast.unparse`` reads their line numbers)
    for node in ast.walk(module):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) \
                    and not isinstance(node, ast.ClassDef):
                setattr(node, field, _ordered(block, pure_defs))
    for node in ast.walk(module):  # annotations do nothing when the code runs
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            node.body = [ast.Assign([x.target], x.value) if isinstance(x, ast.AnnAssign) and x.value is not None
                         and x.simple else x for x in node.body]
    _rename(module, graded)
    return ast.fix_missing_locations(module)


# -- removal -----------------------------------------------------------------------------------------

def _prune_module(body, graded, used, pure_defs) -> list:
    """Top-level statements without the unreached helpers, unused imports and dead statements
    (``used``: names used from elsewhere, kept)."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    named = {n.name: n for n in body if isinstance(n, defs)}
    roots = set(graded) | set(used)
    for n in body:
        if not isinstance(n, (*defs, ast.Import, ast.ImportFrom)):
            roots |= effects.reads(n)
        elif isinstance(n, defs) and (n.decorator_list or n.name in graded):
            roots |= effects.reads(n) | {n.name}
    reached, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        if name in named:
            todo += list(effects.reads(named[name]))
    kept = []
    for n in body:
        if isinstance(n, defs) and n.name not in reached:
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            n.names = [a for a in n.names if (a.asname or a.name).split(".")[0] in reached or a.name == "*"]
            if not n.names:
                continue
        kept.append(n)
    return _clean(kept, reached, set(), pure_defs, top=True)


def _clean(body, reads, declared, pure_defs, top=False) -> list:
    """``body`` without its statements that have no effect (one pass; see the module)."""
    out = []
    for stmt in body:
        out += _clean_stmt(stmt, reads, declared, pure_defs, top)
        if out and isinstance(out[-1], effects.TERMINAL):
            break
    return out


def _dead_target(target, reads, declared) -> bool:
    if isinstance(target, ast.Name):
        return target.id not in reads and target.id not in declared
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_dead_target(t, reads, declared) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _dead_target(target.value, reads, declared)
    return False


def _expr(value, pure_defs) -> list:
    return [] if effects.pure(value, pure_defs) else [ast.Expr(value)]


def _clean_stmt(stmt, reads, declared, pure_defs, top) -> list:
    sub = lambda block: _clean(block, reads, declared, pure_defs)  # noqa: E731
    if isinstance(stmt, ast.Pass):
        return []
    if isinstance(stmt, ast.Expr):
        return _expr(stmt.value, pure_defs)
    if isinstance(stmt, ast.Assign) and all(_dead_target(t, reads, declared) for t in stmt.targets):
        return _expr(stmt.value, pure_defs)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) \
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == stmt.value.id:
        return []  # x = x
    if effects.splits(stmt):  # a, b = x, y (neither reading a or b): a = x; b = y
        return [ast.Assign([t], v) for t, v in zip(stmt.targets[0].elts, stmt.value.elts, strict=True)]
    if isinstance(stmt, ast.Delete) and all(_dead_target(t, reads, declared) for t in stmt.targets):
        return []  # del of names never read
    if isinstance(stmt, ast.Assert) and effects.constant(stmt.test) not in (effects.NO, False, 0, None, "", ()):
        return []  # assert of a true constant
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and _dead_target(stmt.target, reads, declared) \
            and not (top and isinstance(stmt, ast.AnnAssign)):
        return _expr(stmt.value, pure_defs) if stmt.value is not None else []
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):  # x += y reads as x = x + y
        load = ast.Name(stmt.target.id, ast.Load())
        return [ast.Assign([stmt.target], ast.BinOp(load, stmt.op, stmt.value))]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not top and stmt.name not in reads \
            and not stmt.decorator_list:
        return []  # a nested function never used
    if isinstance(stmt, ast.If):
        test = effects.constant(stmt.test)
        if test is not effects.NO:
            return sub(stmt.body if test else stmt.orelse)
        body, orelse = sub(stmt.body), sub(stmt.orelse)
        if not body and not orelse:
            return _expr(stmt.test, pure_defs)
        if not body:
            return [ast.If(ast.UnaryOp(ast.Not(), stmt.test), orelse, [])]
        if orelse and isinstance(body[-1], effects.TERMINAL):  # else after return: the same as after the if
            return [ast.If(stmt.test, body, []), *orelse]
        return [ast.If(stmt.test, body, orelse)]
    if isinstance(stmt, ast.While):
        test = effects.constant(stmt.test)
        if test is not effects.NO and not test:
            return sub(stmt.orelse)
        return [ast.While(stmt.test, sub(stmt.body) or [ast.Pass()], sub(stmt.orelse))]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        body, orelse = sub(stmt.body), sub(stmt.orelse)
        if not body and effects.pure(stmt.iter, pure_defs) and _dead_target(stmt.target, reads, declared):
            return orelse
        stmt.body, stmt.orelse = body or [ast.Pass()], orelse
        return [stmt]
    if isinstance(stmt, ast.Try):
        body = sub(stmt.body)
        if not body:
            return sub(stmt.orelse) + sub(stmt.finalbody)
        stmt.body, stmt.orelse, stmt.finalbody = body, sub(stmt.orelse), sub(stmt.finalbody)
        for h in stmt.handlers:
            h.body = sub(h.body) or [ast.Pass()]
        return [stmt]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        stmt.body = sub(stmt.body) or [ast.Pass()]
    return [stmt]


# -- order -------------------------------------------------------------------------------------------

def _shape(stmt) -> str:
    """The statement's text with every name blanked: what orders free statements."""
    return re.sub(r"[A-Za-z_]\w*", lambda m: m.group() if keyword.iskeyword(m.group()) else "_", ast.unparse(stmt))


def _ordered(block, pure_defs) -> list:
    """``block`` in canonical order: a topological order of its dependences, the smallest
    ``_shape`` first among the statements free to go."""
    if len(block) < 2 or len(block) > _REORDER_MAX:
        return block
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    facts = []
    for s in block:
        if isinstance(s, defs):  # defining reads only its decorators and defaults, writes its name
            facts.append((set().union(*(effects.reads(d) for d in [
                *s.decorator_list, *getattr(getattr(s, "args", None), "defaults", [])])), {s.name}, False))
        else:
            facts.append(effects.facts(s, pure_defs))
    after: list[list[int]] = [[] for _ in block]
    needs = [0] * len(block)
    for j, (rj, wj, bj) in enumerate(facts):
        for i in range(j):
            ri, wi, bi = facts[i]
            if bi or bj or wi & (rj | wj) or ri & wj:
                after[i].append(j)
                needs[j] += 1
    shapes = [_shape(s) for s in block]
    ready = [(shapes[i], i) for i in range(len(block)) if not needs[i]]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(block[i])
        for j in after[i]:
            needs[j] -= 1
            if not needs[j]:
                heapq.heappush(ready, (shapes[j], j))
    return out


# -- names -------------------------------------------------------------------------------------------

class _Renamer(ast.NodeTransformer):
    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.names.get(node.arg, node.arg)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.names.get(node.name, node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef


def _in_order(node) -> list:
    """Names bound in ``node`` (parameters, stores, nested definitions), in order of appearance."""
    found = []

    class Visit(ast.NodeVisitor):
        def visit_arg(self, x):
            found.append(x.arg)

        def visit_Name(self, x):
            if isinstance(x.ctx, (ast.Store, ast.Del)):
                found.append(x.id)

        def visit_FunctionDef(self, x):
            if x is not node:
                found.append(x.name)
            self.generic_visit(x)

        visit_AsyncFunctionDef = visit_FunctionDef

    Visit().visit(node)
    return list(dict.fromkeys(found))


def _rename(module, graded: set) -> None:
    """Locals ``v0, v1, ...`` per function, top-level helper functions and classes ``h0, h1, ...``."""
    helpers = [n.name for n in module.body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name not in graded]
    top = {name: f"h{i}" for i, name in enumerate(dict.fromkeys(helpers))}
    functions = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    functions += [m for c in module.body if isinstance(c, ast.ClassDef) for m in c.body
                  if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in functions:
        kept = effects.declared(node)
        bound = [n for n in _in_order(node) if n not in kept]
        local = {name: f"v{i}" for i, name in enumerate(bound)}
        own = node.name
        _Renamer({**top, **local}).visit(node)
        node.name = top.get(own, own)
    _Renamer(top).visit(ast.Module(body=[n for n in module.body if n not in functions], type_ignores=[]))
