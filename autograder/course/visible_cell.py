# Visible checks: your functions against the course's worked examples.
# This cell only COMPARES values: the expected values, and the values that known mistakes
# give, are written out at its end (the visible cases). Run this cell first; nothing here is
# graded. (The course build writes this text into every notebook.)
import numpy as np
from autograder.checks.values import like_mistake, show, show_pair  # PASTE show_values.py (the build puts its text here)

_visible_results = {}  # "function: label" -> True (passed) or False (failed), latest run
_visible_named = {}    # "function: label" -> the mistakes its latest wrong value matched
_visible_blamed = {}   # "function: label" -> the functions it runs that fail a visible check above
_visible_cases = {}    # function -> its visible cases (written at the end of this cell)


class VisibleCheckFailed(AssertionError):
    """A visible check failed; the lines printed above say which, and why."""

    def _render_traceback_(self):
        """What Jupyter shows for it (IPython asks for this method): the message alone, in plain
        text (no frames, no colours), so nbgrader validate and its dialog show those lines."""
        lines = str(self).splitlines() or [""]
        return [f"{type(self).__name__}: {lines[0]}", *lines[1:]]


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


def same_as_expected(got, want, compare, atol):
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


def _raised_in(exc, function):
    """The notebook function other than ``function`` in which ``exc`` was raised (the innermost
    frame that runs a function of this notebook), or None."""
    codes = {getattr(v, "__code__", None): k for k, v in list(globals().items())
             if callable(v) and not k.startswith("_")}
    inside, tb = None, exc.__traceback__
    while tb is not None:
        inside = codes.get(tb.tb_frame.f_code, inside)
        tb = tb.tb_next
    return inside if inside != function else None


def _run_case(function, case):
    """``(passed, lines)`` for one case: its call, then the comparison."""
    return _outcome(function, case)[:2]


def _outcome(function, case):
    """``(passed, lines, named)``: as ``_run_case``, and the names of the known mistakes
    whose value the function returned ([] when none matched)."""
    compare, atol = case.get("compare", "close"), case.get("atol", 1e-4)
    try:
        got = case["run"]()
    except NotImplementedError as exc:
        helper = _raised_in(exc, function)
        if helper:
            return False, [f"not implemented yet: {helper}, which {function} calls, still raises "
                           f"NotImplementedError (fill in the cell of {helper} above and run it)"], []
        return False, [f"not implemented yet: {function} still raises NotImplementedError "
                       "(fill in its cell above and run it)"], []
    except Exception as exc:
        if compare == "raises" and type(exc).__name__ == case["expected"]:
            return True, [], []
        hints = case.get("hints", {})
        hint = hints.get(type(exc).__name__, hints.get("*"))
        helper = _raised_in(exc, function)
        who = f"{helper}, which {function} calls," if helper else "your code"
        return False, [f"{who} raised {type(exc).__name__}: {_clip(str(exc), 200)}"] + ([hint] if hint else []), []
    if compare == "raises":
        return False, [f"returned {show(got)}; expected it to raise {case['expected']}"], []
    part = case.get("part")
    if part is not None:
        if not isinstance(got, (tuple, list)) or len(got) <= part:
            return False, [f"expected a tuple of {case.get('parts', part + 1)} results, "
                           f"got {show(got)}"], []
        got = got[part]
    want = case["expected"]
    if same_as_expected(got, want, compare, atol):
        return True, [], []
    # both at one precision that tells them apart (and the difference when they print alike)
    shown_want, shown_got, note = show_pair(want, got)  # in the student's container (tuple, list)
    lines = [f"expected {shown_want}", f"got      {shown_got}" + (f"  ({note})" if note else "")]
    # a mistake is recognised by what it does, whatever constant or container (values.py)
    named = [name for name, wrong in case.get("mistakes", {}).items()
             if (like_mistake(got, wrong, atol) if compare == "close" else same_as_expected(got, wrong, compare, atol))]
    if named:
        lines.append("That is the value you get when you " + " (or when you ".join(named)
                     + ")" * (len(named) - 1) + ".")
    else:
        hint = _hint(got, want, compare, atol).strip()
        if hint:
            lines.append(hint)
    return False, lines, named


def _fails(function):
    """Whether a visible check of ``function`` failed in its latest run."""
    return any(passed is False for name, passed in _visible_results.items() if name.split(": ", 1)[0] == function)


FAILURE_WIDTH = 76  # nbgrader validate shows each line of an error up to 86 characters, indented by 4


def check_visible(function, cases=None):
    """Run the visible checks of ``function``; print PASS or FAIL (expected, got, the named
    mistake) for each. Never raises: a failing check does not stop Run All; the summary
    cell at the end of the notebook raises once for all of them (``visible_checks_summary``).

    cases: the cases to run (default: those this cell wrote for ``function``).
    """
    cases = _visible_cases.get(function, []) if cases is None else cases
    for case in cases:
        name = f"{function}: {case['label']}"
        passed, lines, named = _outcome(function, case)
        # one bug, charged once: a failure of a case that runs a function failing above comes from it
        unfinished = bool(lines) and lines[0].startswith("not implemented yet")
        blamed = [] if passed or unfinished else [f for f in case.get("uses", ()) if _fails(f)]
        if blamed:
            lines.append(f"This check runs {' and '.join(blamed)}, which fail{'s' if len(blamed) == 1 else ''} "
                         "a visible check above: fix that first; this check may then pass.")
        _visible_results[name] = passed
        _visible_named[name] = named
        _visible_blamed[name] = blamed
        print(("PASS  " if passed else "FAIL  ") + name)
        for line in lines:
            print("      " + line)


def failure_message(failing, points, width=FAILURE_WIDTH, blamed=None):
    """The text the summary cell raises ``VisibleCheckFailed`` with, which is what
    ``nbgrader validate`` and its Validate button show: short, what to fix first.

    failing: ``[(check name, [named mistakes])]`` of the checks that fail or did not run;
    points: ``{function: points}``; blamed: ``{check name: [functions it runs that fail a
    visible check]}``: such checks are listed as coming from those functions, not as mistakes
    of their own. The named mistakes come first, the functions worth most points first; then
    the checks that come from another function; then how many other checks fail per function;
    lines of at most ``width``.
    """
    import textwrap

    def weight(item):
        return -points.get(item[0].split(":", 1)[0], 0.0)

    blamed = blamed or {}
    caused = [f for f in failing if blamed.get(f[0])]
    own = [f for f in failing if not blamed.get(f[0])]
    named = sorted((f for f in own if f[1]), key=weight)
    other = sorted((f for f in own if not f[1]), key=weight)
    out = [f"{len(failing)} visible check{'s' if len(failing) != 1 else ''} did not pass."]
    if named:
        out.append("Fix first (a known mistake gives these values):")
        grouped = {}  # one line per function and mistake, however many of its checks it fails
        for name, mistakes in named:
            grouped.setdefault((name.split(":", 1)[0], tuple(mistakes)), []).append(name)
        for (function, mistakes), names in grouped.items():
            which = names[0] if len(names) == 1 else f"{function}, {len(names)} checks"
            out += textwrap.wrap(f"{which}: you " + "; or you ".join(mistakes), width,
                                 initial_indent="  ", subsequent_indent="    ")
    if other:
        counts = {}
        for name, _ in other:
            function = name.split(":", 1)[0]
            counts[function] = counts.get(function, 0) + 1
        listed = ", ".join(f"{f} ({n} check{'s' if n != 1 else ''})" for f, n in counts.items())
        out += textwrap.wrap(("Also failing: " if named else "Failing: ") + listed, width, subsequent_indent="  ")
    if caused:
        by = {}  # (function, the functions it runs that fail) -> how many of its checks
        for name, _ in caused:
            key = (name.split(":", 1)[0], tuple(blamed[name]))
            by[key] = by.get(key, 0) + 1
        for (function, causes), n in by.items():
            out += textwrap.wrap(f"{function} ({n} check{'s' if n != 1 else ''}) runs {' and '.join(causes)}: "
                                 "fix that first, then run these again.", width, subsequent_indent="  ")
    out.append("Each FAIL above, under its function's check cell, shows expected and got.")
    return "\n".join(out)


def visible_checks_gate(function):
    """Raise ``VisibleCheckFailed`` when a visible check of ``function`` does not pass. Its
    hidden-test cell calls this only under ``nbgrader validate`` run without the course's
    settings, which then checks nbgrader's grade cells alone and would say "Success!" over
    failing visible checks (docs/students.md)."""
    names = [f"{function}: {c['label']}" for c in _visible_cases.get(function, [])]
    failing = [(n, _visible_named.get(n, [])) for n in names if _visible_results.get(n) is not True]
    if failing:
        raise VisibleCheckFailed(failure_message(failing, {}, blamed=_visible_blamed) + "\n(nbgrader validate runs without the "
                                 "course's settings,\nstudent/nbgrader_config.py: see docs/students.md)")


def visible_checks_summary(hidden_checks, points, names=None):
    """List which visible checks passed, and say what the hidden grading adds.

    hidden_checks: how many hidden checks grade the notebook; points: {function: points its
    hidden checks carry}; names: every visible check of this notebook (default: every case
    this cell wrote). Returns "" when every visible check passes, else ``failure_message``,
    which the summary cell raises (the one cell ``nbgrader validate`` reports).
    """
    if names is None:
        names = [f"{f}: {c['label']}" for f, cases in _visible_cases.items() for c in cases]
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
    failing = [(n, _visible_named.get(n, [])) for n in names if _visible_results.get(n) is not True]
    return failure_message(failing, points, blamed=_visible_blamed) if failing else ""
