# Visible checks: your functions against the course's worked examples.
# This cell only COMPARES values: the expected values, and the values that known mistakes
# give, are written out in each check cell below. Run this cell first; nothing here is
# graded. (This text is copied verbatim into every notebook by the course build.)
import numpy as np

_visible_results = {}  # "function: label" -> True (passed) or False (failed), latest run


class VisibleCheckFailed(AssertionError):
    """A visible check failed; the lines printed above say which, and why."""


def _short(value, limit=300):
    """Readable text for a value; a long one is shortened in the middle."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.ndim > 0:
        text = np.array2string(value, separator=", ", max_line_width=10_000, threshold=60,
                               formatter={"float_kind": lambda x: f"{x:.6g}"})
    elif isinstance(value, (float, np.floating)):
        text = f"{float(value):.6g}"
    else:
        text = repr(value)
    return _clip(text, limit)


def _clip(text, limit=300):
    """``text`` on one line; a long one keeps its start and its end, joined by " ... "."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit // 2 - 3] + " ... " + text[-(limit // 2 - 2):]


def _plain(value):
    """Lists for tuples and arrays, Python numbers for numpy scalars (so (1, 2) == [1, 2])."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _numbers(value):
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _same(got, want, compare, atol):
    """Does ``got`` equal ``want``? "close": numbers within atol; "equal": the same values;
    "keys": a dict whose keys come in the order ``want`` lists."""
    if compare == "close":
        a, b = _numbers(got), np.asarray(want, dtype=float)
        return (a is not None and a.shape == b.shape and bool(np.all(np.isfinite(a) == np.isfinite(b)))
                and bool(np.allclose(a, b, atol=atol, rtol=0.0, equal_nan=True)))
    if compare == "keys":
        return isinstance(got, dict) and _plain(list(got)) == _plain(want)
    return _plain(got) == _plain(want)


def _hint(got, want, compare, atol):
    """One more sentence when the wrong value has a recognisable shape."""
    if compare != "close":
        return ""
    a, b = _numbers(got), np.asarray(want, dtype=float)
    if a is None:
        return " Expected numbers."
    if b.ndim == 2 and a.shape == b.T.shape and np.allclose(a, b.T, atol=atol):
        return " It is the transpose of the right answer."
    if a.shape != b.shape:
        return f" Expected shape {b.shape}, got shape {a.shape}."
    if not np.all(np.isfinite(a)):
        return " It contains nan or inf (an overflow, or a division by zero?)."
    return ""


def _run_case(function, case):
    """``(passed, lines)`` for one case: its call, then the comparison."""
    compare, atol = case.get("compare", "close"), case.get("atol", 1e-4)
    try:
        got = case["run"]()
    except NotImplementedError:
        return False, [f"not implemented yet: {function} still raises NotImplementedError "
                       "(fill in its cell above and run it)"]
    except Exception as exc:
        if compare == "raises" and type(exc).__name__ == case["expected"]:
            return True, []
        hint = case.get("hints", {}).get(type(exc).__name__)
        return False, [f"your code raised {type(exc).__name__}: {_clip(str(exc), 200)}"] + ([hint] if hint else [])
    if compare == "raises":
        return False, [f"returned {_short(got)}; expected it to raise {case['expected']}"]
    part = case.get("part")
    if part is not None:
        if not isinstance(got, (tuple, list)) or len(got) <= part:
            return False, [f"expected a tuple of {case.get('parts', part + 1)} results, "
                           f"got {_short(got)}"]
        got = got[part]
    want = case["expected"]
    if _same(got, want, compare, atol):
        return True, []
    shown = _numbers(want) if compare == "close" else None  # numbers printed alike on both lines
    lines = [f"expected {_short(want if shown is None else shown)}", f"got      {_short(got)}"]
    named = [name for name, wrong in case.get("mistakes", {}).items() if _same(got, wrong, compare, atol)]
    if named:
        lines.append("That is the value you get when you " + " (or when you ".join(named)
                     + ")" * (len(named) - 1) + ".")
    else:
        hint = _hint(got, want, compare, atol).strip()
        if hint:
            lines.append(hint)
    return False, lines


def check_visible(function, cases):
    """Run the visible checks of ``function``; print PASS or FAIL (expected, got, the named
    mistake) for each. Returns "" when all pass, else a line saying which failed (the check
    cell raises VisibleCheckFailed with it, so the cell shows as failed)."""
    failed = []
    for case in cases:
        name = f"{function}: {case['label']}"
        passed, lines = _run_case(function, case)
        _visible_results[name] = passed
        print(("PASS  " if passed else "FAIL  ") + name)
        for line in lines:
            print("      " + line)
        if not passed:
            failed.append(case["label"])
    if not failed:
        return ""
    return f"{len(failed)} of {len(cases)} visible checks of {function} failed (see above): {'; '.join(failed)}"


def visible_checks_summary(names, hidden_checks, points):
    """List which visible checks passed, and say what the hidden grading adds.

    names: every visible check of this notebook; hidden_checks: how many hidden checks
    grade it; points: {function: points its hidden checks carry}.
    """
    passed = sum(_visible_results.get(n) is True for n in names)
    print("Visible checks of this notebook (worked examples; they earn no points by themselves):")
    for n in names:
        state = {True: "PASS   ", False: "FAIL   ", None: "not run"}[_visible_results.get(n)]
        print(f"  {state}  {n}")
    print(f"{passed} of {len(names)} visible checks pass.")
    if passed < len(names):
        print("Run the check cell under each function again after fixing it.")
    total = sum(points.values())
    per_function = ", ".join(f"{f} {p:g}" for f, p in points.items())
    print(f"\nAfter you submit, {hidden_checks} hidden checks grade this notebook for {total:g} points "
          f"({per_function}). They use these worked examples AND cases randomized for each "
          "student, so passing every visible check is a good sign, not a guarantee.")
