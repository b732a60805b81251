# Visible checks: your functions against the course's worked examples.
# This cell only COMPARES values: the expected values, and the values that known mistakes
# give, are written out in each check cell below. Run this cell first; nothing here is
# graded. (The course build writes this text into every notebook.)
import numpy as np
from autograder.checks.values import show, show_pair  # PASTE show_values.py (the build puts its text here)

_visible_results = {}  # "function: label" -> True (passed) or False (failed), latest run


class VisibleCheckFailed(AssertionError):
    """A visible check failed; the lines printed above say which, and why."""


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
        return False, [f"returned {show(got)}; expected it to raise {case['expected']}"]
    part = case.get("part")
    if part is not None:
        if not isinstance(got, (tuple, list)) or len(got) <= part:
            return False, [f"expected a tuple of {case.get('parts', part + 1)} results, "
                           f"got {show(got)}"]
        got = got[part]
    want = case["expected"]
    if _same(got, want, compare, atol):
        return True, []
    # both at one precision that tells them apart (and the difference when they print alike)
    shown_want, shown_got, note = show_pair(_numbers(want) if compare == "close" else want, got)
    lines = [f"expected {shown_want}", f"got      {shown_got}" + (f"  ({note})" if note else "")]
    named = [name for name, wrong in case.get("mistakes", {}).items() if _same(got, wrong, compare, atol)]
    if named:
        lines.append("That is the value you get when you " + " (or when you ".join(named)
                     + ")" * (len(named) - 1) + ".")
    else:
        hint = _hint(got, want, compare, atol).strip()
        if hint:
            lines.append(hint)
    return False, lines


FAILURE_WIDTH = 76  # nbgrader validate shows each line of an error up to 86 characters, indented by 4


def failure_message(function, failures, total, width=FAILURE_WIDTH):
    """The text of the exception a failing visible check cell raises: what ``nbgrader
    validate`` and its Validate button show, so it is short. The first failing check in
    full (its name, expected, got, the named mistake or a hint), the others by name, on
    lines of at most ``width`` characters (a long value is shortened in its middle).

    failures: ``[(label, lines)]`` of the failing checks, ``lines`` as ``_run_case`` gives
    them; total: how many visible checks ``function`` has.
    """
    import textwrap
    label, lines = failures[0]
    out = [f"{len(failures)} of {total} visible checks of {function} failed.",
           *textwrap.wrap(f"{function}: {label}", width)]
    for line in lines:
        if line.startswith(("expected ", "got ")):
            room = width - 2
            out.append("  " + (line if len(line) <= room else
                               line[:room // 2 - 3] + " ... " + line[-(room - room // 2 - 2):]))
        else:
            out += textwrap.wrap(line, width, initial_indent="  ", subsequent_indent="  ")
    if len(failures) > 1:
        out += textwrap.wrap("Also failed: " + "; ".join(f[0] for f in failures[1:]), width)
    return "\n".join(out)


def check_visible(function, cases):
    """Run the visible checks of ``function``; print PASS or FAIL (expected, got, the named
    mistake) for each. Returns "" when all pass, else the short account of the failures
    (``failure_message``) that the check cell raises VisibleCheckFailed with, so the cell
    shows as failed and ``nbgrader validate`` shows what went wrong."""
    failed = []
    for case in cases:
        name = f"{function}: {case['label']}"
        passed, lines = _run_case(function, case)
        _visible_results[name] = passed
        print(("PASS  " if passed else "FAIL  ") + name)
        for line in lines:
            print("      " + line)
        if not passed:
            failed.append((case["label"], lines))
    if not failed:
        return ""
    return failure_message(function, failed, len(cases))


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
