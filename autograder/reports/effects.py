"""What a piece of Python code does, as the canonical form of ``normalise.py`` needs to know it:
which calls may have an effect beyond their value, which names a statement reads and writes (a
subscript or attribute store and a mutating method call write their base name), which statements
must keep their place, and the value of a condition that is a constant.

Side-effect-free calls are known by name: Python builtins that only compute (``len``, ``str``,
``abs`` ...), functions of numpy, math and a few other standard modules but those that write into
their arguments or draw random numbers (``np.random``, ``np.copyto``, ``np.add.at`` ...), methods
that only read (``.sum()``, ``.copy()``, ``.reshape()`` ...), and the student's own top-level
functions whose bodies call only such and change no parameter in place (``pure_defs``). Any other
call may have any effect.
"""
from __future__ import annotations

import ast

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
TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def root(node):
    """The name an attribute or subscript chain starts from (``np`` of ``np.linalg.norm``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def chain(node) -> list:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return names


def pure_call(call, pure_defs) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in PURE_BUILTINS or func.id in pure_defs
    if isinstance(func, ast.Attribute):
        if root(func) in PURE_MODULES and isinstance(func.value, (ast.Name, ast.Attribute)):
            return not IMPURE_ATTRS.intersection(chain(func))
        return func.attr in PURE_METHODS
    return False


def pure(node, pure_defs) -> bool:
    """Whether evaluating ``node`` has no effect beyond its value (an exception aside)."""
    for x in ast.walk(node):
        if isinstance(x, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
            return False
        if isinstance(x, ast.Call) and not pure_call(x, pure_defs):
            return False
    return True


def pure_defs(module) -> set:
    """Top-level functions of ``module`` whose calls have no effect: no impure call (other such
    functions assumed pure), no global or nonlocal, no store into or mutation of a parameter."""
    defs = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = set(defs)
    changed = True
    while changed:
        changed = False
        for name in sorted(found):
            node = defs[name]
            params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            bad = any(isinstance(x, (ast.Global, ast.Nonlocal)) for x in ast.walk(node)) \
                or not all(pure(s, found) for s in calls_of(node)) \
                or params & mutated(node)
            if bad:
                found.discard(name)
                changed = True
    return found


def calls_of(node) -> list:
    return [x for x in ast.walk(node) if isinstance(x, (ast.Call, ast.Yield, ast.YieldFrom, ast.Await))]


def mutated(node) -> set:
    """Names whose object ``node`` changes in place: stored into by subscript or attribute, or given
    a method call that is not known to leave it as it is."""
    found = set()
    for x in ast.walk(node):
        if isinstance(x, (ast.Subscript, ast.Attribute)) and isinstance(x.ctx, (ast.Store, ast.Del)):
            found.add(root(x))
        elif isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) \
                and x.func.attr not in PURE_METHODS and root(x.func) not in PURE_MODULES:
            found.add(root(x.func))
    return found - {None}


def reads(node) -> set:
    """Every name loaded anywhere in ``node`` (nested functions included)."""
    return {x.id for x in ast.walk(node) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load)}


def facts(stmt, pure_defs) -> tuple:
    """``(reads, writes, barrier)`` of ``stmt``, in one walk: the names it loads; the names it binds
    (assignments, ``def``/``class``, imports) or whose object it may change in place (subscript and
    attribute stores, method calls not known to only read); whether it must keep its place against
    every other statement (a call that may have any other effect, ``return``/``raise``/``break``/
    ``continue``, ``yield``, ``await``, ``global``, ``with``, ``try``, ``assert``, ``:=``)."""
    loads: set[str] = set()
    stores: set[str] = set()
    changed, stop = set(), False
    for x in ast.walk(stmt):
        if isinstance(x, ast.Name):
            (loads if isinstance(x.ctx, ast.Load) else stores).add(x.id)
        elif isinstance(x, (ast.Subscript, ast.Attribute)) and isinstance(x.ctx, (ast.Store, ast.Del)):
            changed.add(root(x))
        elif isinstance(x, ast.Call):
            if isinstance(x.func, ast.Attribute) and x.func.attr not in PURE_METHODS \
                    and root(x.func) not in PURE_MODULES:
                changed.add(root(x.func))
            if not pure_call(x, pure_defs) and not (isinstance(x.func, ast.Attribute) and root(x.func) is not None
                                                     and root(x.func) not in PURE_MODULES):
                stop = True
        elif isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(x.name)
        elif isinstance(x, (ast.Import, ast.ImportFrom)):
            stores |= {(a.asname or a.name).split(".")[0] for a in x.names}
        elif isinstance(x, (*TERMINAL, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await,
                            ast.With, ast.AsyncWith, ast.Try, ast.Assert, ast.NamedExpr)):
            stop = True
    return loads, stores | (changed - {None}), stop


def reads_and_declared(node) -> tuple:
    """``(reads(node), declared(node))`` in one walk of ``node``."""
    loads, names = set(), set()
    for x in ast.walk(node):
        if isinstance(x, ast.Name):
            if isinstance(x.ctx, ast.Load):
                loads.add(x.id)
        elif isinstance(x, (ast.Global, ast.Nonlocal)):
            names.update(x.names)
    return loads, names


def declared(node) -> set:
    return {n for x in ast.walk(node) if isinstance(x, (ast.Global, ast.Nonlocal)) for n in x.names}


def splits(stmt) -> bool:
    """Whether ``stmt`` assigns a tuple of values to as many names none of the values reads."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List))):
        return False
    targets, values = stmt.targets[0].elts, stmt.value.elts
    if len(targets) != len(values) or not all(isinstance(t, ast.Name) for t in targets) \
            or any(isinstance(v, ast.Starred) for v in values):
        return False
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return len(set(names)) == len(names) and not set(names) & set().union(*(reads(v) for v in values))


# -- constants ---------------------------------------------------------------------------------------

NO = object()


def constant(node):
    """The value of ``node`` when it is a constant small enough to fold, else ``NO``."""
    try:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) < 50:
            items = [constant(e) for e in node.elts]
            return NO if NO in items else tuple(items)
        if isinstance(node, ast.UnaryOp):
            v = constant(node.operand)
            if v is NO:
                return NO
            return {ast.Not: lambda: not v, ast.USub: lambda: -v, ast.UAdd: lambda: +v}.get(type(node.op), lambda: NO)()
        if isinstance(node, ast.BoolOp):
            values = [constant(v) for v in node.values]
            for v in values:
                if v is NO:
                    return NO
                if bool(v) == isinstance(node.op, ast.Or):
                    return v
            return values[-1]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = constant(node.left), constant(node.comparators[0])
            ops = {ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b, ast.Lt: lambda: a < b,
                   ast.LtE: lambda: a <= b, ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b,
                   ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                   ast.In: lambda: a in b, ast.NotIn: lambda: a not in b}
            return NO if NO in (a, b) else ops.get(type(node.ops[0]), lambda: NO)()
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.FloorDiv)):
            a, b = constant(node.left), constant(node.right)
            small = all(isinstance(v, (int, float)) and abs(v) < 1e9 or isinstance(v, str) and len(v) < 1000
                        for v in (a, b))
            if NO in (a, b) or not small or isinstance(node.op, ast.Mult) and (isinstance(a, str) or isinstance(b, str)):
                return NO
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                    ast.Mod: lambda: a % b, ast.FloorDiv: lambda: a // b}[type(node.op)]()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
                and node.func.id in ("len", "str", "int", "bool", "abs", "float") and len(node.args) == 1:
            v = constant(node.args[0])
            if v is NO or isinstance(v, int) and abs(v) > 1e9:
                return NO
            return {"len": len, "str": str, "int": int, "bool": bool, "abs": abs, "float": float}[node.func.id](v)
    except Exception:  # noqa: BLE001 -- a constant that raises (1 // 0, int("x")) is not folded
        return NO
    return NO
