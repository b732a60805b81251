"""Running a notebook's code cells inside the child (the ``init`` request).

``run_cells(cells, ns, cell_timeout, definitions_only)`` executes the cells in ``ns`` and
returns the errors they raised. Part of the child package: standard library only.
"""
import ast

from .timing import GraderTimeout, alarm
from .errors import error_of

ALLOWED_TOP_LEVEL = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                     ast.ClassDef, ast.Assign, ast.AnnAssign, ast.AugAssign)


def _strip_magics(source):
    """Drop IPython-only lines (%magic, !shell, %%cell magic header, trailing ?)."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return ""  # a cell magic makes the whole cell IPython-specific
    kept = []
    for line in lines:
        s = line.lstrip()
        if s.startswith(("%", "!")) or (s.endswith("?") and not s.startswith("#")):
            kept.append(line[: len(line) - len(s)] + "pass")
        else:
            kept.append(line)
    return "\n".join(kept)


DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _selected(tree, definitions_only=False):
    for node in tree.body:
        if isinstance(node, DEFINITIONS if definitions_only else ALLOWED_TOP_LEVEL):
            yield node
        elif isinstance(node, ast.Try) and all(isinstance(n, (ast.Import, ast.ImportFrom))
                                               for n in node.body):
            yield node  # try: import x / except ImportError: ...


def run_cells(cells, ns, cell_timeout=10.0, definitions_only=False):
    """Execute ``cells`` (list of ``(index, source)``) in the namespace ``ns``.

    Returns:
        list of error dicts ``{"cell", "type", "message", "where"}``, one per failure.
    """
    errors = []
    for index, source in cells:
        filename = f"<cell {index}>"
        try:
            tree = ast.parse(_strip_magics(source), filename=filename)
        except SyntaxError as exc:
            errors.append({"cell": index, "type": "SyntaxError",
                           "message": f"{exc.msg} (line {exc.lineno})", "where": filename[1:-1]})
            continue
        except (RecursionError, MemoryError, ValueError) as exc:
            errors.append({"cell": index, "type": type(exc).__name__,
                           "message": "the cell is too deeply nested or too large to compile",
                           "where": filename[1:-1]})
            continue
        alarm(cell_timeout)
        try:
            for node in _selected(tree, definitions_only):
                try:
                    code = compile(ast.Module(body=[node], type_ignores=[]), filename, "exec")
                    exec(code, ns)
                except GraderTimeout:
                    raise
                except BaseException as exc:  # SystemExit, KeyboardInterrupt included
                    errors.append(dict(error_of(exc), cell=index))
        except GraderTimeout:
            errors.append({"cell": index, "type": "Timeout",
                           "message": f"cell did not finish within {cell_timeout:g} s",
                           "where": f"cell {index}"})
        finally:
            alarm(0)
    return errors
