"""Near-copies disguised the way a student who copies and wants to hide it would: the copied code
padded with statements that do nothing, its local names changed, independent statements swapped,
dead code (unused helpers, branches that never run, code after ``return``) added, or all of these.
Every disguise keeps what the code does (the copies grade as the original), so the near-copy
comparison should find them all (``benchmarks/near_copies.py``, ``tests/reports/
test_near_copy_disguises.py``).

Each disguise takes one solution cell's source and a ``random.Random`` and gives the disguised
source; ``disguised(regions, kind, rng)`` applies one kind to each cell of a hand-in.
"""
from __future__ import annotations

import ast
import copy
import random

# statements that do nothing, of many shapes ({n}: a number of the copy's own)
PADDING = ("_z{n} = len(str({n})) and None", "_unused{n} = abs(-{n}) * 2", "None", "'step {n}'", "pass",
           "_tmp{n} = [i * i for i in range({n})]", "_s{n} = sum((1, 2, {n}))", "_flag{n} = max(0, {n}) > 100",
           "_w{n} = np.zeros({n})", "_k{n} = {{'a': {n}}}.get('a', 0)", "{n}", "_r{n} = round({n} / 7, 3)",
           "assert {n} > 0", "_d{n} = {n}\ndel _d{n}", "_a{n}, _b{n} = {n}, str({n})")
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "tmp", "val", "res", "acc", "item", "thing", "stuff")
PURE_CALLS = {"len", "float", "int", "abs", "range", "list", "tuple", "sum", "max", "min", "zip", "enumerate"}
PURE_METHODS = {"copy", "sum", "max", "min", "dot", "reshape", "astype", "mean", "transpose"}


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _blocks(tree):
    """Every statement list of the functions in ``tree`` (their bodies and the blocks within)."""
    for f in _functions(tree):
        for node in ast.walk(f):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    yield block


def pad(source: str, rng: random.Random) -> str:
    """A statement that does nothing after each statement of each function."""
    tree = ast.parse(source)
    for block in list(_blocks(tree)):
        for i in range(len(block), 0, -1):
            if isinstance(block[i - 1], (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                continue
            text = rng.choice(PADDING).format(n=rng.randint(2, 97))
            block[i:i] = ast.parse(text).body
    return ast.unparse(ast.fix_missing_locations(tree))


def rename(source: str, rng: random.Random) -> str:
    """Each function's local variables (not its parameters nor a lambda's) under other names."""
    tree = ast.parse(source)
    for f in _functions(tree):
        params = {a.arg for a in ast.walk(f) if isinstance(a, ast.arg)}  # a lambda's too
        stored = [n.id for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        names = {s: f"{rng.choice(WORDS)}_{s.lower()}{rng.randint(1, 99)}" for s in dict.fromkeys(stored)
                 if s not in params and not s.startswith("__")}
        for n in ast.walk(f):
            if isinstance(n, ast.Name) and n.id in names:
                n.id = names[n.id]
    return ast.unparse(tree)


def _names(node, ctx) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _plain(stmt) -> bool:
    """An assignment to names whose value calls only side-effect-free functions."""
    if not isinstance(stmt, ast.Assign) or not all(isinstance(t, (ast.Name, ast.Tuple)) for t in stmt.targets):
        return False
    for n in ast.walk(stmt.value):
        if isinstance(n, ast.Call):
            f = n.func
            ok = (isinstance(f, ast.Name) and f.id in PURE_CALLS) or (isinstance(f, ast.Attribute) and (
                f.attr in PURE_METHODS or isinstance(f.value, ast.Name) and f.value.id in ("np", "math")))
            if not ok:
                return False
    return True


def reorder(source: str, rng: random.Random) -> str:
    """Adjacent assignments that do not depend on each other swapped; the cell's definitions in
    another order."""
    tree = ast.parse(source)
    for block in list(_blocks(tree)):
        i = 0
        while i + 1 < len(block):
            a, b = block[i], block[i + 1]
            if _plain(a) and _plain(b) and rng.random() < 0.8:
                wa, wb = _names(a, ast.Store), _names(b, ast.Store)
                ra, rb = _names(a, ast.Load), _names(b, ast.Load)
                if not (wa & (rb | wb) or ra & wb):
                    block[i], block[i + 1] = b, a
                    i += 2
                    continue
            i += 1
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    rng.shuffle(defs)
    it = iter(defs)
    tree.body = [next(it) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) else n for n in tree.body]
    return ast.unparse(tree)


def dead_code(source: str, rng: random.Random) -> str:
    """Code that never runs or is never used: an unused helper, a branch on a constant, a loop that
    never turns, statements after the ``return``."""
    tree = ast.parse(source)
    n = rng.randint(2, 97)
    for f in _functions(tree):
        body = f.body
        copied = copy.deepcopy(rng.choice(body))
        at = rng.randint(0, max(len(body) - 1, 0))
        body.insert(at, ast.parse(f"if {rng.choice(['False', '0', 'None', '1 > 2', 'len([]) > 0'])}:\n    pass").body[0])
        body[at].body = [copied]
        body.insert(rng.randint(0, len(body) - 1), ast.parse(f"while {rng.choice(['False', '0'])}:\n    break").body[0])
        body.insert(rng.randint(0, len(body) - 1), ast.parse(f"for _i{n} in range(0):\n    _x{n} = _i{n}").body[0])
        if isinstance(body[-1], ast.Return):
            body.append(ast.parse(rng.choice(["print('done')", f"_after{n} = {n}", "return None"])).body[0])
    helper = ast.parse(f"def _helper{n}(values):\n    total = 0\n    for v in values:\n        total += v * v\n"
                       f"    return total ** 0.5\n\n\nclass _Unused{n}:\n    size = {n}\n")
    where = rng.randint(0, len(tree.body))
    tree.body[where:where] = helper.body
    return ast.unparse(ast.fix_missing_locations(tree))


def combined(source: str, rng: random.Random) -> str:
    """Every disguise in turn: reordered, renamed, padded, dead code added."""
    for disguise in (reorder, rename, dead_code, pad):
        source = disguise(source, rng)
    return source


KINDS = {"padded": pad, "renamed": rename, "reordered": reorder, "dead code": dead_code, "combined": combined}


def disguised(regions: dict, kind: str, rng: random.Random) -> dict:
    """``{function: cell source}`` with each cell disguised by ``KINDS[kind]``."""
    return {f: KINDS[kind](src, rng) for f, src in regions.items()}
