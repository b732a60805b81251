"""Visible checks: the self-checks a student runs in the notebook, written by the build.

Each exercise's ``exercises/<name>/cases.py`` declares its fixed cases once (``CASES``, see
``checks/cases.py``); those with ``hidden=False`` are its visible cases: a call on the course's
public worked-example inputs, the expected value, and the values its known mistakes give
there, computed by the wrong variants of ``wrong.py``, the same the hidden check runs (a graded
case is both). ``python -m autograder build`` renders them as VALUES ONLY into the notebook:

* a locked ``checker`` cell, collapsed (``jupyter.source_hidden``): the comparison helper,
  the text of ``course/visible_cell.py``, then every visible case with its literal inputs,
  the expected value at full precision and the named mistakes' values (no code that
  computes a reference or a mistake, no hidden or randomized case);
* a locked ``visible="<function>"`` cell per contract function: one line,
  ``check_visible("<function>")``, which prints PASS or FAIL per case and never raises, so
  Run All runs every cell;
* a locked ``summary`` cell, the last code cell: which visible checks pass, how many hidden
  checks and points grade the notebook after submission (read from the ``@check``
  decorators), and, when a visible check fails, one short ``VisibleCheckFailed`` with the
  named mistakes first: the one cell ``nbgrader validate`` reports.

``tests/course/test_build.py`` fails when the notebooks drift from what the check files give,
and ``tests/course/test_visible.py`` runs every case against the reference.
"""
from __future__ import annotations

import importlib
import math
import re
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from autograder.checks.cases import TIMEOUT_HINT

HELPER_SOURCE = Path(__file__).with_name("visible_cell.py")


@dataclass(frozen=True)
class Visible:
    """One visible case, as the notebook gets it (``visible_cases`` makes it from a declared ``Case``).

    Attributes:
        function: the contract function it checks, e.g. "attention_row".
        label: what is checked, e.g. 'weights for "the cat"' (shown as "function: label").
        call: Python code with ``{name}`` placeholders for ``inputs``: an expression, or a
            function body ending in ``return ...`` (a scenario, e.g. appending to a cache).
        inputs: ``{name: value}``, each rendered as a literal (arrays as ``np.array([...])``).
        expected: the right value (for "raises": the exception's class name).
        mistakes: ``{what the student did, as "you ...": the value it gives}``; entries
            whose value is None, or equal to ``expected``, are left out.
        compare: "close" (numbers within ``atol``), "equal", "keys" (a dict's key order)
            or "raises".
        part: index of the result to compare when the function returns a tuple.
        parts: how many results that tuple has (for the message when it is not a tuple).
        atol: absolute tolerance of "close".
        hints: ``{exception class name: a sentence}`` printed when the call raises it, e.g.
            why ``UnicodeDecodeError`` happens and what to do instead.
        uses: the other contract functions the case runs: those its call names (a cache
            class) and the function's helpers (``exercise.toml``). When one of them fails a
            visible check, a failure here is shown as coming from it ("one bug, charged once").
    """
    function: str
    label: str
    call: str
    expected: object
    inputs: dict = field(default_factory=dict)
    mistakes: dict = field(default_factory=dict)
    compare: str = "close"
    part: int | None = None
    parts: int | None = None
    atol: float = 1e-4
    hints: dict = field(default_factory=dict)
    uses: tuple = ()

    @property
    def name(self):
        return f"{self.function}: {self.label}"


# -- literals --------------------------------------------------------------------------------
def _float(x):
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else '-float("inf")'
    return repr(float(x))


def to_source(value, digits=None) -> str:
    """Python source that evaluates to ``value`` (arrays become ``np.array(...)``).

    Args:
        value: None, bool, int, float, str, tuple, list, dict, numpy scalar or ndarray.
        digits: round floats to this many decimals (for expected and mistake values).
    Raises:
        TypeError: for anything else (a visible case must be plain data).
    """
    if isinstance(value, np.ma.MaskedArray):  # a mistake's value with entries it leaves undefined
        return (f"np.ma.masked_array({to_source(np.ma.getdata(value), digits)}, "
                f"mask={to_source(np.ma.getmaskarray(value))})")
    if isinstance(value, np.ndarray):
        dtype = {"b": ", dtype=bool", "i": ", dtype=int", "u": ", dtype=int"}.get(value.dtype.kind, "")
        return f"np.array({to_source(value.tolist(), digits)}{dtype})"
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return _float(round(value, digits) if digits is not None and math.isfinite(value) else value)
    if isinstance(value, tuple):
        inner = ", ".join(to_source(v, digits) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(to_source(v, digits) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{to_source(k)}: {to_source(v, digits)}" for k, v in value.items()) + "}"
    raise TypeError(f"a visible case must hold plain data, not {type(value).__name__}")


def _lists(value):
    if isinstance(value, np.ma.MaskedArray):
        return value  # to_source writes its mask too
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return tuple(_lists(v) for v in value)
    if isinstance(value, list):
        return [_lists(v) for v in value]
    return value


def _value(value):
    """Expected and mistake values: arrays (also inside lists) as plain lists, floats at full
    precision (``repr``), so the notebook prints them as the hidden feedback does (rounding
    here first, then to 6 significant digits when shown, printed 1.60357 for 1.6035649)."""
    return to_source(value if isinstance(value, dict) else _lists(value))


# -- reading the cases --------------------------------------------------------------------------
@contextmanager
def _solutions_from(exercise, solution_text):
    """Import the check file against ``solution_text`` (the reference just generated), not
    against whatever ``solutions/<name>.py`` holds on disk."""
    package = importlib.import_module("solutions")
    names = [f"solutions.{exercise.name}", exercise.checks_module, exercise.wrong_module, exercise.cases_module]
    saved = {n: sys.modules.pop(n, None) for n in names}
    saved_attribute = getattr(package, exercise.name, None)
    module = types.ModuleType(names[0])
    module.__file__ = str(exercise.solution_module)
    exec(compile(solution_text, str(exercise.solution_module), "exec"), module.__dict__)
    sys.modules[names[0]] = module
    setattr(package, exercise.name, module)  # `from solutions import x` reads the attribute first
    try:
        yield
    finally:
        for n in names:
            sys.modules.pop(n, None)
            if saved[n] is not None:
                sys.modules[n] = saved[n]
        if saved_attribute is None:
            delattr(package, exercise.name)
        else:
            setattr(package, exercise.name, saved_attribute)


def visible_cases(exercise, solution_text=None):
    """The ``Visible`` cases of ``exercise``: the cases of its ``CASES`` (``cases.py``) that
    students see, in declaration order.

    Args:
        exercise: a ``registry.Exercise``.
        solution_text: the reference module's source to check against (default: the
            committed ``solutions/<name>.py``).
    Raises:
        ValueError: a case of an unknown function, or a duplicate name.
    """
    if solution_text is None:
        solution_text = exercise.solution_module.read_text(encoding="utf-8")
    with _solutions_from(exercise, solution_text):
        module = importlib.import_module(exercise.cases_module)
        declared = list(getattr(module, "CASES", []))
    cases = [shown(check, case) for check in declared for case in check.cases if not case.hidden]
    cases = [replace(c, uses=_uses(exercise, c)) for c in cases]
    seen = set()
    for case in cases:
        if case.function not in exercise.functions or case.name in seen:
            raise ValueError(f"{exercise.name}/cases.py: bad or duplicate visible case {case.name!r}")
        seen.add(case.name)
    return cases


def _uses(exercise, case):
    """The contract functions other than ``case.function`` that ``case`` runs (``Visible.uses``)."""
    named = {f for f in exercise.functions if f != case.function and re.search(rf"\b{re.escape(f)}\b", case.call)}
    named |= set(exercise.helpers.get(case.function, ()))
    return tuple(f for f in exercise.functions if f in named)


def shown(check, case) -> Visible:
    """The notebook's view of ``case`` of the declared ``check`` (``checks/cases.py``): its
    label, its call and values; the "keys" mistakes as key lists, the grader-only hints left out."""
    parts = case.parts if case.parts is None or isinstance(case.parts, int) else len(case.parts)
    mistakes = case.mistakes
    if case.compare == "keys":
        mistakes = {name: list(v) if isinstance(v, dict) else v for name, v in mistakes.items()}
    hints = {k: v for k, v in case.hints.items() if k != TIMEOUT_HINT}
    return Visible(check.function, check.label(case), case.call, case.expected, inputs=dict(case.inputs),
                   mistakes=dict(mistakes), compare=case.compare, part=case.part, parts=parts, atol=case.atol,
                   hints=hints)


# -- rendering ------------------------------------------------------------------------------------
def shown_mistakes(case):
    """The mistakes worth naming: a value, and one that differs from the right answer."""
    from autograder.course.visible_cell import same_as_expected
    return {name: wrong for name, wrong in case.mistakes.items()
            if wrong is not None and not same_as_expected(wrong, case.expected, case.compare, case.atol)}


def _call_source(case, number):
    """``(run, prelude)``: a lambda for an expression, or a function defined in ``prelude``."""
    code = case.call.format(**{k: to_source(v) for k, v in case.inputs.items()})
    if "return " not in code:
        return f"lambda: {code}", ""
    body = "\n".join("    " + line if line.strip() else "" for line in code.strip("\n").splitlines())
    name = f"_case_{case.function}_{number}"
    return name, f"def {name}():\n{body}\n\n\n"


def _case_source(case, number):
    run, prelude = _call_source(case, number)
    lines = [f"dict(label={case.label!r},", f"     run={run},"]
    if case.part is not None:
        lines.append(f"     part={case.part}, parts={case.parts or case.part + 1},")
    if case.compare != "close":
        lines.append(f"     compare={case.compare!r},")
    elif case.atol != 1e-4:
        lines.append(f"     atol={case.atol!r},")
    if case.hints:
        lines.append(f"     hints={case.hints!r},")
    if case.uses:
        lines.append(f"     uses={list(case.uses)!r},")
    expected = repr(case.expected) if case.compare == "raises" else _value(case.expected)
    lines.append(f"     expected={expected},")
    shown = shown_mistakes(case)
    if shown:
        lines.append("     mistakes={")
        lines += [f"         {name!r}:\n             {_value(wrong)}," for name, wrong in shown.items()]
        lines.append("     }),")
    else:
        lines[-1] = lines[-1].rstrip(",") + "),"
    return prelude, lines


def cases_source(cases) -> str:
    """The end of the checker cell: every visible case, as ``_visible_cases[function] = [...]``
    (a scenario is a small function defined just before), functions in case order."""
    functions = list(dict.fromkeys(c.function for c in cases))
    parts = ["# -- the visible cases: calls on the worked examples, the course's values, and the values",
             "# known mistakes give (the check cell under each function runs them) --"]
    for function in functions:
        preludes, lines = [], []
        for number, case in enumerate((c for c in cases if c.function == function), 1):
            prelude, case_lines = _case_source(case, number)
            preludes.append(prelude)
            lines += case_lines
        parts.append("".join(preludes) + f"_visible_cases[{function!r}] = [\n"
                     + "\n".join("    " + line for line in lines) + "\n]")
    return "\n".join(parts)


def check_cell(function: str, cases=None) -> str:
    """Source of the visible check cell of ``function``: one line that runs its cases (which
    the checker cell holds); it prints and never raises, so Run All goes on.

    A bare call (no assignment), so the grader's child keeps no name from it.
    """
    return f"check_visible({function!r})"


def summary_cell(cases, metas):
    """Source of the summary cell: the hidden checks' count and points, and the one raise
    ``nbgrader validate`` reports when a visible check fails (the checker cell knows the names)."""
    points = {}
    for meta in metas:
        points[meta.function] = points.get(meta.function, 0.0) + meta.points
    per_function = ", ".join(f"{f!r}: {p:g}" for f, p in points.items())
    return ("# Where you stand; raises once, here, if a visible check above does not pass.\n"
            f"if _failed := visible_checks_summary(hidden_checks={len(metas)}, points={{{per_function}}}):\n"
            "    raise VisibleCheckFailed(_failed)")


VALUES_SOURCE = Path(__file__).resolve().parents[1] / "checks" / "values.py"
PASTE_MARK = "  # PASTE show_values.py"


def helper_cell(cases=()) -> str:
    """Source of the locked cell that defines ``check_visible`` and ``visible_checks_summary``:
    the text of ``course/visible_cell.py``, with its import of ``show_values`` replaced by that
    module's code (the one way numbers are printed; the notebook has no grader package: the
    grader blocks a notebook's import of it), then ``cases_source(cases)``.

    Raises:
        ValueError: ``course/visible_cell.py`` lost its marked import line.
    """
    helper = HELPER_SOURCE.read_text(encoding="utf-8").rstrip("\n")
    lines = helper.splitlines()
    marked = [i for i, line in enumerate(lines) if PASTE_MARK in line]
    if len(marked) != 1:
        raise ValueError(f"{HELPER_SOURCE.name} must import show_values on one line marked {PASTE_MARK!r}")
    values = VALUES_SOURCE.read_text(encoding="utf-8")
    body = values.split('"""', 2)[2].strip("\n")        # without its module docstring
    body = body.replace("import numpy as np\n", "", 1) if "import numpy as np" in helper else body
    pasted = ["# -- how values are printed (the course's show_values module) --", body,
              "# -- the comparisons --"]
    text = "\n".join(lines[:marked[0]] + pasted + lines[marked[0] + 1:])
    return text + ("\n\n\n" + cases_source(cases) if cases else "")
