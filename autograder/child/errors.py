"""How an exception raised by student code is described to the grader (plain data)."""
import traceback

# ``{file name a cell is compiled under: its label}`` (``cells.cell_file_name``)
LABELS = {}


def student_location(tb):
    """'cell N, line L' of the innermost frame that is student code, or None."""
    where = None
    for frame, lineno in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.startswith("<cell "):
            where = f"{LABELS.get(name, name[1:-1])}, line {lineno}"
    return where


def error_of(exc, tb=None):
    """``{"type", "message", "where"}`` for ``exc``; never raises, whatever ``str(exc)`` does."""
    tb = tb if tb is not None else exc.__traceback__
    try:
        message = str(exc)
    except Exception:
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message[:2000], "where": student_location(tb)}
