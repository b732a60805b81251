"""One mistake, charged as one: a failure that a named mistake explains is charged to it.

A mistake named in one check of a function often breaks its other checks in ways no value can
name: ``decode_step`` attending before it appends its own key and value gives a wrong context
when the cache holds rows (named), and raises numpy's "matmul: Input operand 1 has a mismatch"
on an empty cache (not a value at all). The student would read one named point and six bare
exceptions, all of one mistake.

So after a notebook's checks have run (``plugin.run_checks``), for each function with a failed
check that names a mistake and other failed checks that name none, the grader runs those other
checks again on the mistake itself: the reference solution with that one function replaced by
the mistake's whole wrong function (``WRONG_FUNCTIONS`` of the exercise's ``wrong.py``:
``{sentence: {function name: function}}``), with the same seeds. A check that the mistake fails
the same way (the same exception raised, the same values returned, or the same feedback) is
charged to it: its feedback says which mistake and where it was named, its details name the
mistake (so "what to fix first" counts its points there, and the class report counts the
student once per mistake, ``class_stats.mistake_table``). A check the mistake would pass, or
fail otherwise, keeps its own feedback: a second bug is never hidden behind the first.
"""
from __future__ import annotations

import dataclasses
import importlib
import re

from autograder.checks.values import like_mistake
from autograder.core.vocabulary import Problem

_RAISED = re.compile(r"\braised (\w+(?:\.\w+)*)")


def wrong_functions(exercise) -> dict:
    """``{sentence: {function: callable}}`` of the exercise's ``wrong.py`` (``{}`` without one)."""
    try:
        module = importlib.import_module(exercise.wrong_module)
    except ImportError:
        return {}
    return getattr(module, "WRONG_FUNCTIONS", {})


def _named(result):
    return list((result.details or {}).get("mistakes") or []) if result.score < result.max_score else []


def _same_failure(mine, theirs) -> bool:
    """Does the mistake's run of a check (``theirs``) fail it as the student's did (``mine``)?"""
    if theirs.score >= theirs.max_score or Problem.GRADER_ERROR in theirs.problems:
        return False
    raised = _RAISED.search(mine.output or ""), _RAISED.search(theirs.output or "")
    if raised[0] or raised[1]:
        return bool(raised[0] and raised[1] and raised[0].group(1) == raised[1].group(1))
    a, b = mine.details or {}, theirs.details or {}
    if a.get("what") is not None and a.get("what") == b.get("what"):
        return like_mistake(a.get("got"), b.get("got"), atol=1e-9, rtol=1e-9)
    return (mine.output or "") == (theirs.output or "")


def charge_named(exercise, results: dict, run_checks, student_id, secret, code_digests=None) -> None:
    """Charge failures a named mistake explains to it, in place (see the module docstring).

    Args:
        exercise: the ``Exercise`` graded.
        results: ``{nodeid: CheckResult}`` of one notebook (changed in place).
        run_checks: ``plugin.run_checks``, which runs the checks on the mistake.
        student_id, secret, code_digests: as given to ``run_checks``: the mistake's run of a
            check draws the student's random cases.
    """
    implementations = wrong_functions(exercise)
    if not implementations:
        return
    from autograder.submission.local import LocalSubmission

    def rerun(namespace, names):
        return run_checks(exercise, LocalSubmission(namespace), student_id, secret, only=names,
                          code_digests=code_digests)
    reference = None
    for function in dict.fromkeys(r.function for r in results.values()):
        mine = {nodeid: r for nodeid, r in results.items() if r.function == function}
        unexplained = {nodeid: r for nodeid, r in mine.items() if r.score < r.max_score and not _named(r)
                       and Problem.GRADER_ERROR not in r.problems}
        named: dict[str, str] = {}  # mistake -> the first check naming it
        for r in mine.values():
            for mistake in _named(r):
                named.setdefault(mistake, r.name)
        for mistake, where in named.items():
            wrong = implementations.get(mistake, {}).get(function)
            if wrong is None or not unexplained:
                continue
            if reference is None:
                reference = importlib.import_module(f"solutions.{exercise.name}")
            names = {nodeid.rsplit("::", 1)[-1]: nodeid for nodeid in unexplained}
            theirs = {r.name: r for r in rerun(dict(vars(reference), **{function: wrong}), set(names))}
            for nodeid, r in list(unexplained.items()):
                if r.name in theirs and _same_failure(r, theirs[r.name]):
                    results[nodeid] = _charged(r, mistake, where)
                    del unexplained[nodeid]


def _charged(result, mistake, where):
    """``result`` charged to ``mistake``, named in the check ``where``."""
    details = dict(result.details or {})
    details["mistakes"] = [mistake]
    if details.get("what") is not None:  # the same values as the mistake's: the usual sentence
        output = f"{result.output} That is the value you get when you {mistake}."
    else:
        details["explained_by"] = where
        output = (f"This too comes from the mistake named in \"{where}\": you {mistake}. With that "
                  f"mistake alone this check fails the same way ({result.output})")
    return dataclasses.replace(result, output=output, details=details)
