"""Fixed cases, declared once: what the notebook shows and what the hidden check runs.

An exercise's ``exercises/<name>/cases.py`` lists its fixed cases in ``CASES``, a list of
``Check``: a function, a description and one or more ``Case`` (a call on fixed inputs and the
value it must give, the values its known mistakes give, the tolerance). Each case says
whether students see it (``hidden``, as Otter's test cases do). From that one declaration:

* ``python -m autograder build`` writes every case with ``hidden=False`` into the notebook's
  visible checks, as values only (``course/visible.py``);
* a ``Check`` with ``points`` (and a ``name``, e.g. ``"check_row_weights"``) is a hidden check
  worth those points: ``checks.py`` turns ``CASES`` into pytest ``check_*`` functions with
  ``hidden_checks`` and grading runs every case of it, hidden or not, in order; the first that
  fails is the feedback (``run_case``). Its id as graded is ``"function: description"``.
* a ``Check`` without ``points`` is a worked example the notebook shows; it grades nothing.

``checks.py`` keeps the randomized and property checks, written as functions.

Example::

    Check("attention_row", 'weights for "the cat"', points=1, name="check_row_weights", cases=[
        Case("attention_row({q}, {K}, {V})", inputs={"q": Q_THE_CAT[1], "K": K_THE_CAT, "V": V_THE_CAT},
             part=1, parts=("scores", "weights", "context"), expected=CAT_WEIGHTS,
             what='attention weights of "cat"', mistakes={UNSCALED: CAT_WEIGHTS_UNSCALED}),
    ])
"""
from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field

import numpy as np

from autograder.checks.api import check, expect_close, expect_equal, fail, fmt
from autograder.checks.values import plain  # the "equal" comparison (values.py), also the notebook's
from autograder.sandbox.limits import StudentCodeError

COMPARES = ("close", "equal", "keys", "raises")
TIMEOUT_HINT = "timeout"  # a key of ``Case.hints``: the sentence added when the call runs out of time
ANY_EXCEPTION = "*"       # a key of ``Case.hints``: the sentence added for an exception no other key names


@dataclass(frozen=True)
class Case:
    """One call of a student's function on fixed inputs, and the value it must give.

    Attributes:
        call: Python code with ``{name}`` placeholders for ``inputs``: an expression, or a
            function body ending in ``return ...`` (a scenario, e.g. appending to a cache). It
            may call any student function of the exercise by name, and ``np``.
        expected: the right value (for "raises": the exception's class name, e.g. "ValueError").
        inputs: ``{name: value}``; a visible case's values must be plain data (the notebook
            gets them as literals, arrays as ``np.array([...])``).
        mistakes: ``{what the student did, as "you ...": the value it gives}`` (a sentence of
            ``wrong.py``); entries whose value is None are left out.
        compare: "close" (numbers within ``atol`` + ``rtol`` * |expected|), "equal", "keys" (a
            dict's key order) or "raises".
        part: index of the result to compare when the function returns a tuple.
        parts: the names of the tuple's results, e.g. ``("scores", "weights", "context")``
            (or how many there are): in the hidden check a result that is no tuple of that
            length fails, with or without ``part``.
        atol, rtol: tolerances of "close" (the notebook compares with ``atol`` only).
        hints: ``{exception class name: a sentence}`` added when the call raises it, e.g. why
            ``UnicodeDecodeError`` happens; key ``"*"``: any other exception; key ``"timeout"``:
            added when the call runs out of time (hidden check only).
        why: for "raises", the sentence that says why the call must raise (hidden feedback).
        label: the name shown in the notebook, ``"function: label"`` (default: the check's
            description; needed when a check shows more than one case).
        what: the label of the value in the hidden feedback, e.g. 'attention weights of
            "cat"' (default: the label).
        normalize: for "equal" (for "keys", ``expected`` lists the keys and each mistake's
            value is a dict, compared by its keys' order): a function applied to the returned value (and the mistakes'
            values) before comparing in the hidden check, e.g. to accept a list where a tuple
            is asked; it raises ``TypeError`` for a value of the wrong kind. Default: tuples and
            arrays as lists, numpy numbers as Python numbers (as the notebook compares).
        judge: the hidden check calls ``judge(value)`` instead of comparing with ``expected``,
            for what a comparison of values cannot say (a dtype; ties within a rounding
            error); it raises ``Mismatch`` (``expect_*``, ``fail``). The notebook still
            compares with ``expected``.
        hidden: True: students do not see the case (the notebook leaves it out).
    """
    call: str
    expected: object = None
    inputs: dict = field(default_factory=dict)
    mistakes: dict = field(default_factory=dict)
    compare: str = "close"
    part: int | None = None
    parts: int | tuple | None = None
    atol: float = 1e-4
    rtol: float = 0.0
    hints: dict = field(default_factory=dict)
    why: str | None = None
    label: str | None = None
    what: str | None = None
    normalize: object = None
    judge: object = None
    hidden: bool = False

    def code(self) -> str:
        """``call`` with each placeholder replaced by its input's name (how the grader runs it)."""
        return self.call.format(**{name: name for name in self.inputs})


@dataclass(frozen=True)
class Check:
    """A fixed check: the cases of one student function under one description.

    Attributes:
        function: the student-facing name, e.g. "attention_row".
        description: what is checked, e.g. 'weights for "the cat"'; the hidden check's id as
            graded is ``"function: description"``.
        cases: the ``Case`` list, run in order.
        points: what the hidden check is worth; None: a worked example the notebook shows,
            never graded (its cases must be visible).
        name: the hidden check's name, ``check_*`` (how hand-ins name the checks they must
            fail); required with ``points``.

    ``function``, ``description``, ``points`` and ``name`` must be literals: the build and the
    Gradescope bundle read them without importing (``checks/declared.py``).
    """
    function: str
    description: str
    cases: tuple = ()
    points: float | None = None
    name: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "cases", tuple(self.cases))
        problems = []
        if not self.cases:
            problems.append("no case")
        if (self.points is None) != (self.name is None):
            problems.append("points and name go together (a graded check) or not at all (an example)")
        if self.name is not None and not self.name.startswith("check_"):
            problems.append(f"name {self.name!r} must start with check_")
        if self.points is None and any(c.hidden for c in self.cases):
            problems.append("a hidden case of an ungraded check would never run")
        shown = [c for c in self.cases if not c.hidden]
        if len(shown) > 1 and len({c.label for c in shown}) < len(shown):
            problems.append("each visible case of a check needs its own label")
        for c in self.cases:
            if c.compare not in COMPARES:
                problems.append(f"compare {c.compare!r} is none of {COMPARES}")
            if c.part is not None and c.parts is None:
                problems.append("part without parts")
        if problems:
            raise ValueError(f"Check({self.function!r}, {self.description!r}): {'; '.join(problems)}")

    @property
    def graded(self) -> bool:
        return self.points is not None

    def label(self, case) -> str:
        """The name ``case`` has in the notebook (without the function)."""
        return case.label or self.description


def hidden_checks(checks, functions=None) -> dict:
    """``{name: pytest check function}`` of the graded ``checks`` (``Check`` list), for
    ``checks.py`` to put in its namespace: ``globals().update(hidden_checks(CASES))``.

    Each function takes, as fixtures, the student functions its cases call (names of
    ``functions``, default: every exercise's; ``checks/conftest.py`` makes a fixture of each)
    and the check's own function, and runs ``run_case`` on every case, hidden or not.

    Raises:
        ValueError: two checks with one name.
    """
    if functions is None:
        from autograder.core.registry import ALL_FUNCTIONS as functions
    made = {}
    for declared in checks:
        if not declared.graded:
            continue
        if declared.name in made:
            raise ValueError(f"two declared checks named {declared.name}")
        made[declared.name] = _check_function(declared, functions)
    return made


def _check_function(declared, functions):
    used = {declared.function}
    for case in declared.cases:
        used |= {n.id for n in ast.walk(ast.parse(_as_function(case.code()))) if isinstance(n, ast.Name)}
    students = [f for f in functions if f in used]

    def run(**given):
        for case in declared.cases:
            run_case(case, declared, given)
    run.__name__ = run.__qualname__ = declared.name
    run.__doc__ = f"The declared cases of {declared.function}: {declared.description} (cases.py)."
    run.__signature__ = inspect.Signature(
        [inspect.Parameter(s, inspect.Parameter.POSITIONAL_OR_KEYWORD) for s in students])
    return check(declared.function, declared.description, points=declared.points)(run)


def _as_function(code):
    """Source defining ``_case()``, which runs ``code`` and returns its value."""
    if "return " not in code:
        return f"def _case():\n    return ({code})\n"
    return "def _case():\n" + "".join(f"    {line}\n" for line in code.strip("\n").splitlines())


def _hint(case, exc):
    if exc.kind == "timeout":
        return case.hints.get(TIMEOUT_HINT)
    if exc.kind == "raised":
        return case.hints.get(exc.detail.split(":")[0], case.hints.get(ANY_EXCEPTION))
    return None


def run_case(case, declared, students) -> None:
    """Run one case on the student's functions (``{name: callable}``) and compare.

    Raises:
        Mismatch: the value is not the right one (the named mistake if it is one), the result
            is no tuple of ``parts``, a "raises" case returned or raised something else, or the
            call raised an exception ``hints`` explains.
        StudentCodeError: the student's code raised, timed out or is missing (no hint).
    """
    what = case.what or declared.label(case)
    namespace = {"np": np, **students, **case.inputs}
    exec(compile(_as_function(case.code()), f"<case {declared.name}>", "exec"), namespace)
    try:
        got = namespace["_case"]()
    except StudentCodeError as exc:
        if case.compare == "raises" and exc.kind == "raised":
            if exc.detail.split(":")[0] == case.expected:
                return
            fail(f"{what} raised {exc.detail}; it should raise {case.expected}" + (f": {case.why}" if case.why else ""))
        hint = _hint(case, exc)
        if hint:
            fail(f"{exc}. {hint}")
        raise
    if case.compare == "raises":
        fail(f"{what} returned {fmt(got)}; it should raise {case.expected}" + (f": {case.why}" if case.why else ""))
    if case.parts is not None:
        count = case.parts if isinstance(case.parts, int) else len(case.parts)
        if not isinstance(got, (tuple, list)) or len(got) != count:
            shape = f"({', '.join(case.parts)})" if not isinstance(case.parts, int) else f"of {count} results"
            fail(f"{declared.function} should return a tuple {shape}; got {type(got).__name__}")
    if case.part is not None:
        got = got[case.part]
    if case.judge is not None:
        case.judge(got)
    elif case.compare == "close":
        expect_close(got, case.expected, what=what, mistakes=case.mistakes, atol=case.atol, rtol=case.rtol)
    elif case.compare == "keys":  # expected: the keys in order; the mistakes' values: dicts
        expect_equal(got, list(case.expected), what=what, normalize=_key_order, mistakes=case.mistakes)
    else:
        norm = case.normalize or plain
        expect_equal(got, norm(case.expected), what=what, normalize=norm, mistakes=case.mistakes)


def _key_order(value):
    if not isinstance(value, dict):
        raise TypeError("not a dict")
    return list(value)
