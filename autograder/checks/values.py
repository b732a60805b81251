"""One way to write a value for a student: the visible checks, the hidden checks' feedback
(and so results.json) and the HTML report all print numbers with these two functions.

* ``show(value)``: plain text, never a repr of a numpy type (``0.417768``, not
  ``array(0.417768)``); every float to 6 significant digits in ``%g`` style, so a tiny value
  stays visible (``1.2e-08``, not ``0.``), and a whole number as an integer, never in
  e-notation (``1843200000``, not ``1.8432e+09``); lists, tuples and dicts of numbers alike.
* ``show_pair(expected, got)``: both at the same precision. When they would print alike
  at 6 digits, more digits are used (up to 17, enough to tell any two float64 apart), and a
  note gives the difference itself: ``differs by 1.6e-07`` (for arrays, the largest
  difference and where it is). The expected value is shown in the student's container (a
  tuple beside a tuple, a list beside a list) when the two hold the same numbers of items,
  since the checks accept either: the text must not suggest one is required.

And one way to tell that a value is a known mistake's, whatever the student spelled it with:

* ``like_mistake(got, wrong)``: ``got`` shows what a mistake does when it equals ``wrong``, the
  value a wrong implementation of the mistake gives, on every entry the mistake decides. An
  entry that is -inf in ``wrong`` (a masked score) takes any fill at or below ``MASK_FILL``
  (-1e9, ``np.finfo(float).min``, -inf alike); an entry masked in ``wrong`` (a ``numpy.ma``
  masked array) is one the mistake leaves undefined (the first row of a mask that also hides
  the diagonal has nothing left to read: nan with -inf, a uniform row with -1e9, zeros with a
  multiplied mask), so any value matches there.

Self-contained (only numpy): the course build pastes this text into every notebook's
checker cell, where the student's kernel has no grader package.
"""
import numpy as np

SIGNIFICANT = 6     # digits a value is shown with
MOST_DIGITS = 17    # enough to tell any two float64 values apart (IEEE 754: 17 significant digits)
# A masked score at or below this gets softmax weight exactly 0 in float64 beside any real score
# (exp underflows to 0 below about -745), whichever constant the student filled it with.
MASK_FILL = -1e4
WHOLE_LIMIT = 2.0 ** 53  # below it every whole float64 is an exact integer: shown with all its digits
SHOWN_LIMIT = 300   # characters of one value's text; a longer text keeps its start and its end


def _clip_middle(text, limit):
    """``text`` on one line; a long one keeps its start and its end, joined by " ... "."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = (limit - 5) // 2
    return text[:head] + " ... " + text[len(text) - (limit - 5 - head):]


def _number(x, digits):
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, complex):
        return repr(x)
    if float(x).is_integer() and abs(float(x)) < WHOLE_LIMIT and abs(float(x)) >= 10 ** SIGNIFICANT:
        return str(int(x))  # a count or a size (1843200000), never 1.8432e+09
    if digits > SIGNIFICANT:  # more digits than usual: keep trailing zeros, so both texts line up
        return f"{float(x):#.{digits}g}"
    return f"{float(x):.{digits}g}"


def _lists_of_numbers(value):
    """Is ``value`` a number, or a list nesting only lists and numbers (tuples stay tuples)?"""
    if isinstance(value, list):
        return all(_lists_of_numbers(v) for v in value)
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _numeric_array(value):
    """``value`` as a numeric ndarray when it is an array, or a (nested) list or tuple of
    numbers of one rectangular shape; else None."""
    if isinstance(value, np.ndarray):
        return value if value.dtype.kind in "biuf" else None
    if not isinstance(value, list) or not value or not _lists_of_numbers(value):
        return None
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return arr if arr.dtype.kind in "iuf" and arr.ndim >= 1 else None


def _text(value, digits):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int, float)):
        return _number(value, digits)
    arr = _numeric_array(value)
    if arr is not None:
        kind = "int_kind" if arr.dtype.kind in "iu" else "float_kind"
        formatter = {kind: lambda x: _number(x, digits), "bool": lambda x: str(bool(x))}
        return np.array2string(arr, separator=", ", max_line_width=10_000, threshold=60,
                               formatter=formatter)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_text(v, digits) for v in value)
        if isinstance(value, tuple):
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_text(k, digits)}: {_text(v, digits)}" for k, v in value.items()) + "}"
    return repr(value)


def show(value, digits=SIGNIFICANT, limit=SHOWN_LIMIT):
    """Plain, one-line text for ``value`` (numbers to ``digits`` significant digits).

    Args:
        value: a number, numpy scalar or array, or a list/tuple/dict of them; anything else
            is shown by its ``repr``.
        digits: significant digits of every float (int, 1 to 17).
        limit: at most this many characters; a longer text keeps its start and its end.
    Returns:
        str, e.g. ``"[0.140234, 0.153, 1.2e-08]"``, ``"0.417768"``, ``"[(0, 0.948683)]"``.
    """
    return _clip_middle(_text(value, digits), limit)


def _difference(expected, got):
    """``"differs by 1.6e-07"`` (arrays: the largest difference and its index), or "" when
    the two are not numbers of one shape, or do not differ."""
    try:
        a = np.asarray(expected, dtype=float)
        b = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return ""
    if a.shape != b.shape or a.size == 0:
        return ""
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(b - a)
    diff = np.where(np.isnan(a) & np.isnan(b), 0.0, diff)
    if not np.any(diff > 0) and not np.any(np.isnan(diff)):
        return ""
    where = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))), a.shape)
    size = diff[where]
    amount = "by nan" if np.isnan(size) else f"by {size:.2g}"
    if a.ndim == 0:
        return f"differs {amount}"
    index = ", ".join(str(int(i)) for i in where)
    return f"differs {'at most ' if a.size > 1 else ''}{amount} (at index [{index}])"


def shaped_like(expected, got):
    """``expected`` in the container of ``got``: a tuple where the student returned a tuple, a
    list where they returned a list (items paired one to one, nested alike), when both hold as
    many items; else ``expected`` itself. Arrays and numbers are left as they are."""
    if isinstance(expected, np.ndarray) and expected.ndim >= 1 and isinstance(got, (list, tuple)):
        expected = list(expected)
    if not isinstance(expected, (list, tuple)) or not isinstance(got, (list, tuple)) \
            or len(expected) != len(got):
        return expected
    items = [shaped_like(e, g) for e, g in zip(expected, got, strict=True)]
    return tuple(items) if isinstance(got, tuple) else items


def show_pair(expected, got, limit=SHOWN_LIMIT):
    """Texts for an expected and a returned value, at the same precision, that tell them apart.

    Args:
        expected, got: the right and the student's value (see ``show``).
        limit: at most this many characters per text.
    Returns:
        ``(expected_text, got_text, note)``: both at 6 significant digits, or at more (up to
        17) when they would print alike at 6; ``note`` is "" when the 6-digit texts already
        differ, else the difference itself (``"differs by 1.6e-07"``), or "" when the two
        values are not numbers of one shape.
    """
    expected = shaped_like(expected, got)
    shown = show(expected, SIGNIFICANT, limit), show(got, SIGNIFICANT, limit)
    if shown[0] != shown[1]:
        return shown[0], shown[1], ""
    for digits in range(SIGNIFICANT + 1, MOST_DIGITS + 1):
        more = show(expected, digits, limit), show(got, digits, limit)
        if more[0] != more[1]:
            shown = more
            break
    return shown[0], shown[1], _difference(expected, got)


def like_mistake(got, wrong, atol=1e-4, rtol=0.0):
    """Does ``got`` show what a known mistake does (see the module docstring)?

    Args:
        got: the student's value (numbers of any container or dtype).
        wrong: the value a wrong implementation of the mistake gives: numbers, or a
            ``numpy.ma`` masked array whose masked entries the mistake leaves undefined.
        atol, rtol: tolerances, as for the right value.
    Returns:
        bool: same shape, and every entry the mistake decides equal within ``atol + rtol *
        |wrong|`` (nan matches nan; -inf in ``wrong`` matches any value <= ``MASK_FILL``); False
        when the mistake decides no entry at all.
    """
    try:
        a = np.asarray(got, dtype=float)
        w = np.asarray(np.ma.getdata(wrong), dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != w.shape:
        return False
    free = np.broadcast_to(np.ma.getmaskarray(wrong), w.shape) if isinstance(wrong, np.ma.MaskedArray) \
        else np.zeros(w.shape, bool)
    if w.size and free.all():
        return False
    with np.errstate(invalid="ignore"):
        filled = np.isneginf(w) & (a <= MASK_FILL)
        same = np.isclose(a, w, atol=atol, rtol=rtol, equal_nan=True)
    return bool(np.all(free | filled | same))


def plain(value):
    """Lists for tuples and arrays, Python numbers for numpy scalars, recursively: how the
    notebook's "equal" compares (``course/visible_cell.py``), so ``(1, 2)`` equals ``[1, 2]``."""
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value
