"""A student's solution code put in a canonical form before the near-copy comparison fingerprints it
(``near_copies._found``), so that code padded, renamed or reordered to read differently while doing
the same compares as what it does.

The idea is JPlag's token-sequence normalisation (dead code out, independent statements in a
canonical order), done here on Python's own syntax tree (``ast``):

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
   use, helper functions ``h0, h1, ...``; augmented assignments ``x += y`` read as ``x = x + y``;
4. the code is printed again by ``ast.unparse`` (one layout, one quoting).

A region that does not parse (even with IPython's ``%``/``!`` lines left out) is kept as its text,
as the comparison read it before. The class report keeps showing the students' own code: this form
is only what is fingerprinted.
"""
from __future__ import annotations

import ast
import heapq
import keyword
import re

PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex", "dict", "divmod",
    "enumerate", "filter", "float", "format", "frozenset", "hasattr", "hash", "hex", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "oct", "ord", "pow", "range",
    "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip",
    "getattr", "object", "Exception", "ValueError", "TypeError", "KeyError", "IndexError"})
PURE_MODULES = frozenset({"np", "numpy", "math", "operator", "itertools", "functools", "string", "re",
                          "collections", "statistics", "cmath", "fractions", "decimal"})
# numpy and module functions that write into their arguments or into hidden state
IMPURE_ATTRS = frozenset({"random", "copyto", "put", "place", "putmask", "fill_diagonal", "seterr", "save",
                          "savez", "savetxt", "load", "loadtxt", "fromfile", "tofile", "at", "shuffle",
                          "seed", "setdefault", "update", "purge", "compile"})
PURE_METHODS = frozenset({
    "copy", "sum", "mean", "max", "min", "astype", "reshape", "dot", "transpose", "tolist", "item",
    "argmax", "argmin", "argsort", "cumsum", "cumprod", "prod", "std", "var", "any", "all", "ravel",
    "flatten", "squeeze", "clip", "round", "conj", "nonzero", "swapaxes", "repeat", "take", "diagonal",
    "trace", "split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper", "join", "encode",
    "decode", "get", "keys", "values", "items", "count", "index", "startswith", "endswith", "replace",
    "format", "find", "splitlines", "isdigit", "isalpha", "isspace", "most_common", "bit_length"})
_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_REORDER_MAX = 200   # longest block put in canonical order (the dependence test is quadratic)
_ROUNDS = 20         # removal passes at most (each removes something or stops)


def normalise(regions: dict, functions) -> str:
    """The canonical form of one student's solution regions of one assignment (see the module).

    Args:
        regions: ``{function: source}`` (``boilerplate.regions``), any subset of ``functions``.
        functions: the exercise's graded functions and classes, in order: what roots the removal of
            unreached helpers, and the order the regions are joined in.
    Returns:
        str: the parsed regions' canonical code, then the text of each region that does not parse.
    """
    trees, kept = [], []
    for f in functions:
        source = regions.get(f, "")
        if not source.strip():
            continue
        tree = _parse(source)
        if tree is None:
            kept.append(source)
        else:
            trees.append(tree)
    body = [node for tree in trees for node in tree.body]
    try:
        module = _canonical(ast.Module(body=body, type_ignores=[]), set(functions), " ".join(kept))
        text = ast.unparse(module) if body else ""
    except Exception:  # noqa: BLE001 -- code this cannot take apart (nested too deep ...) is compared as handed in
        return "\n\n".join(regions.get(f, "") for f in functions if regions.get(f, "").strip())
    return "\n\n".join(x for x in [text, *kept] if x.strip())


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


def _canonical(module, graded: set, other_text: str):
    pure_defs = _pure_defs(module)
    for _ in range(_ROUNDS):
        before = ast.dump(module)
        module.body = _prune_module(module.body, graded, other_text, pure_defs)
        for node in ast.walk(module):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.body = _clean(node.body, _reads(node), _declared(node), pure_defs) or [ast.Pass()]
        if ast.dump(module) == before:
            break
    ast.fix_missing_locations(module)  # (new statements: ``ast.unparse`` reads their line numbers)
    for node in ast.walk(module):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) \
                    and not isinstance(node, ast.ClassDef):
                setattr(node, field, _ordered(block, pure_defs))
    _rename(module, graded)
    return ast.fix_missing_locations(module)


# -- what an expression or statement does -----------------------------------------------------------

def _root(node):
    """The name an attribute or subscript chain starts from (``np`` of ``np.linalg.norm``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _chain(node) -> list:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return names


def _pure_call(call, pure_defs) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in PURE_BUILTINS or func.id in pure_defs
    if isinstance(func, ast.Attribute):
        if _root(func) in PURE_MODULES and isinstance(func.value, (ast.Name, ast.Attribute)):
            return not IMPURE_ATTRS.intersection(_chain(func))
        return func.attr in PURE_METHODS
    return False


def _pure(node, pure_defs) -> bool:
    """Whether evaluating ``node`` has no effect beyond its value (an exception aside)."""
    for x in ast.walk(node):
        if isinstance(x, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
            return False
        if isinstance(x, ast.Call) and not _pure_call(x, pure_defs):
            return False
    return True


def _pure_defs(module) -> set:
    """Top-level functions of ``module`` whose calls have no effect: no impure call (other such
    functions assumed pure), no global or nonlocal, no store into or mutation of a parameter."""
    defs = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    pure = set(defs)
    changed = True
    while changed:
        changed = False
        for name in sorted(pure):
            node = defs[name]
            params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            bad = any(isinstance(x, (ast.Global, ast.Nonlocal)) for x in ast.walk(node)) \
                or not all(_pure(s, pure) for s in _calls_of(node)) \
                or params & _mutated(node)
            if bad:
                pure.discard(name)
                changed = True
    return pure


def _calls_of(node) -> list:
    return [x for x in ast.walk(node) if isinstance(x, (ast.Call, ast.Yield, ast.YieldFrom, ast.Await))]


def _mutated(node) -> set:
    """Names whose object ``node`` changes in place: stored into by subscript or attribute, or given
    a method call that is not known to leave it as it is."""
    found = set()
    for x in ast.walk(node):
        if isinstance(x, (ast.Subscript, ast.Attribute)) and isinstance(x.ctx, (ast.Store, ast.Del)):
            found.add(_root(x))
        elif isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) \
                and x.func.attr not in PURE_METHODS and _root(x.func) not in PURE_MODULES:
            found.add(_root(x.func))
    return found - {None}


def _reads(node) -> set:
    """Every name loaded anywhere in ``node`` (nested functions included)."""
    return {x.id for x in ast.walk(node) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load)}


def _writes(node) -> set:
    found = {x.id for x in ast.walk(node) if isinstance(x, ast.Name) and isinstance(x.ctx, (ast.Store, ast.Del))}
    for x in ast.walk(node):
        if isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(x.name)
        elif isinstance(x, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).split(".")[0] for a in x.names}
    return found | _mutated(node)


def _declared(node) -> set:
    return {n for x in ast.walk(node) if isinstance(x, (ast.Global, ast.Nonlocal)) for n in x.names}


def _barrier(stmt, pure_defs) -> bool:
    """Whether ``stmt`` must keep its place against every other statement."""
    for x in ast.walk(stmt):
        if isinstance(x, (*_TERMINAL, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await,
                          ast.With, ast.AsyncWith, ast.Try, ast.Assert, ast.NamedExpr)):
            return True
        if isinstance(x, ast.Call) and not _pure_call(x, pure_defs) and not (
                isinstance(x.func, ast.Attribute) and _root(x.func) not in PURE_MODULES
                and _root(x.func) is not None):
            return True  # an unknown call; a method call mutates its base (``_mutated``) only
    return False


# -- constants ---------------------------------------------------------------------------------------

_NO = object()


def _constant(node):
    """The value of ``node`` when it is a constant small enough to fold, else ``_NO``."""
    try:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) < 50:
            items = [_constant(e) for e in node.elts]
            return _NO if _NO in items else tuple(items)
        if isinstance(node, ast.UnaryOp):
            v = _constant(node.operand)
            if v is _NO:
                return _NO
            return {ast.Not: lambda: not v, ast.USub: lambda: -v, ast.UAdd: lambda: +v}.get(type(node.op), lambda: _NO)()
        if isinstance(node, ast.BoolOp):
            values = [_constant(v) for v in node.values]
            for v in values:
                if v is _NO:
                    return _NO
                if bool(v) == isinstance(node.op, ast.Or):
                    return v
            return values[-1]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = _constant(node.left), _constant(node.comparators[0])
            ops = {ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b, ast.Lt: lambda: a < b,
                   ast.LtE: lambda: a <= b, ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b,
                   ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                   ast.In: lambda: a in b, ast.NotIn: lambda: a not in b}
            return _NO if _NO in (a, b) else ops.get(type(node.ops[0]), lambda: _NO)()
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.FloorDiv)):
            a, b = _constant(node.left), _constant(node.right)
            small = all(isinstance(v, (int, float)) and abs(v) < 1e9 or isinstance(v, str) and len(v) < 1000
                        for v in (a, b))
            if _NO in (a, b) or not small or isinstance(node.op, ast.Mult) and (isinstance(a, str) or isinstance(b, str)):
                return _NO
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                    ast.Mod: lambda: a % b, ast.FloorDiv: lambda: a // b}[type(node.op)]()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
                and node.func.id in ("len", "str", "int", "bool", "abs", "float") and len(node.args) == 1:
            v = _constant(node.args[0])
            if v is _NO or isinstance(v, int) and abs(v) > 1e9:
                return _NO
            return {"len": len, "str": str, "int": int, "bool": bool, "abs": abs, "float": float}[node.func.id](v)
    except Exception:  # noqa: BLE001 -- a constant that raises (1 // 0, int("x")) is not folded
        return _NO
    return _NO


# -- removal -----------------------------------------------------------------------------------------

def _prune_module(body, graded, other_text, pure_defs) -> list:
    """Top-level statements without the unreached helpers, unused imports and dead statements."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    named = {n.name: n for n in body if isinstance(n, defs)}
    roots = set(graded) | set(re.findall(r"[A-Za-z_]\w*", other_text))
    if not graded & set(named):
        roots |= set(named)  # no graded function defined here: nothing to tell helpers by
    for n in body:
        if not isinstance(n, (*defs, ast.Import, ast.ImportFrom)):
            roots |= _reads(n)
        elif isinstance(n, defs) and (n.decorator_list or n.name in graded):
            roots |= _reads(n) | {n.name}
    reached, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        if name in named:
            todo += list(_reads(named[name]))
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
        if out and isinstance(out[-1], _TERMINAL):
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
    return [] if _pure(value, pure_defs) else [ast.Expr(value)]


def _clean_stmt(stmt, reads, declared, pure_defs, top) -> list:
    sub = lambda block: _clean(block, reads, declared, pure_defs)  # noqa: E731
    if isinstance(stmt, ast.Pass):
        return []
    if isinstance(stmt, ast.Expr):
        return _expr(stmt.value, pure_defs)
    if isinstance(stmt, ast.Assign) and all(_dead_target(t, reads, declared) for t in stmt.targets):
        return _expr(stmt.value, pure_defs)
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
        test = _constant(stmt.test)
        if test is not _NO:
            return sub(stmt.body if test else stmt.orelse)
        body, orelse = sub(stmt.body), sub(stmt.orelse)
        if not body and not orelse:
            return _expr(stmt.test, pure_defs)
        if not body:
            return [ast.If(ast.UnaryOp(ast.Not(), stmt.test), orelse, [])]
        return [ast.If(stmt.test, body, orelse)]
    if isinstance(stmt, ast.While):
        test = _constant(stmt.test)
        if test is not _NO and not test:
            return sub(stmt.orelse)
        return [ast.While(stmt.test, sub(stmt.body) or [ast.Pass()], sub(stmt.orelse))]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        body, orelse = sub(stmt.body), sub(stmt.orelse)
        if not body and _pure(stmt.iter, pure_defs) and _dead_target(stmt.target, reads, declared):
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
        reads = _reads(s) if not isinstance(s, defs) else set().union(
            *(_reads(d) for d in [*s.decorator_list, *getattr(getattr(s, "args", None), "defaults", [])]))
        facts.append((reads, _writes(s) if not isinstance(s, defs) else {s.name}, _barrier(s, pure_defs)
                      and not isinstance(s, defs)))
    after = [[] for _ in block]
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
        bound = [n for n in _in_order(node) if n not in _declared(node)]
        local = {name: f"v{i}" for i, name in enumerate(bound)}
        own = node.name
        _Renamer({**top, **local}).visit(node)
        node.name = top.get(own, own)
    _Renamer(top).visit(ast.Module(body=[n for n in module.body if n not in functions], type_ignores=[]))
