"""How an exception raised by student code is described to the grader (plain data)."""
import traceback

# ``{file name a cell is compiled under: its label}`` (``cells.cell_file_name``)
LABELS: dict[str, str] = {}


def student_location(tb):
    """'cell N, line L' of the innermost frame that is student code, or None."""
    where = None
    for frame, lineno in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.startswith("<cell "):
            where = f"{LABELS.get(name, name[1:-1])}, line {lineno}"
    return where


def student_function(tb):
    """Name of the innermost notebook function running at ``tb`` (the one that raised), or None.
    Comprehensions and lambdas (``<listcomp>``, ``<lambda>``) are passed over for the function
    around them."""
    inside = None
    for frame, _ in traceback.walk_tb(tb):
        code = frame.f_code
        if code.co_filename.startswith("<cell ") and not code.co_name.startswith("<"):
            inside = code.co_name
    return inside


def error_of(exc, tb=None):
    """``{"type", "message", "where", "function"}`` for ``exc`` (``function``: ``student_function``);
    never raises, whatever ``str(exc)`` does."""
    tb = tb if tb is not None else exc.__traceback__
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message[:2000], "where": student_location(tb),
            "function": student_function(tb)}
