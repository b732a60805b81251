"""Mistake families: one misconception named by checks of several notebooks, and a student's
path through them across the unit.

The checks name a wrong value by the mistake that produces it ("forget to divide the scores by
sqrt(d_k)", in ``exercises/*/checks.py``). The same idea goes wrong in more than one notebook:
the 1/sqrt(d_k) scaling in attention's ``attention_row`` and in learned_attention's
``attention_backward``; the sign of a gradient step in next_token and learned_attention. A
family is a row of ``FAMILIES``: an id, a label for people, a regular expression that matches
the family's mistake texts, and the functions whose checks test it (so that a later notebook
with those checks all passed can be said to get it right).

``student_paths(entries, order)`` follows each student notebook by notebook in the course's
order (``core/registry.py``: ``Exercise.order``) and marks each family where it shows:

* ``made``: named for the first time;
* ``again``: named in a later notebook after an earlier one;
* ``fixed``: made before, and a later notebook's checks of the family's functions all passed.

A student's path says what the checks recognised, nothing more: a family not named is not proof
that the idea is understood (the checks may not cover it, or another mistake hid it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Family:
    """One misconception: ``id`` (str), ``label`` (what the staff and the student read),
    ``pattern`` (a compiled regex searched in a named mistake's text), ``functions`` (the
    functions whose checks test it, across the exercises)."""
    id: str
    label: str
    pattern: re.Pattern
    functions: frozenset


def _family(id_, label, pattern, functions):
    return Family(id_, label, re.compile(pattern, re.I), frozenset(functions))


# The families the course's checks name more than once (texts from exercises/*/checks.py).
FAMILIES = (
    _family("sqrt_dk", "the 1/sqrt(d_k) scaling of the attention scores",
            r"sqrt\(d_k\)|scores by d_k instead",
            ["attention_row", "attention_matrix", "decode_step", "causal_self_attention", "model_forward",
             "attention_backward", "multi_head_attention"]),
    _family("softmax_axis", "the axis of the softmax (each row of weights sums to 1)",
            r"softmax over the wrong axis",
            ["softmax", "attention_row", "attention_matrix", "multi_head_attention"]),
    _family("softmax_shift", "subtracting each row's largest score before exp (overflow)",
            r"without first subtracting the largest|largest score of the whole",
            ["softmax", "attention_row", "attention_matrix", "cross_entropy"]),
    _family("gradient_sign", "the sign of a gradient and of the step (p - y; W - lr * grad)",
            r"add the gradient instead of subtracting|sign flipped|y - p instead of p - y",
            ["grad_logits", "grad_unembedding", "sgd_update", "train_step"]),
    _family("causal_mask", "the causal mask (a token reads itself and the tokens before it)",
            r"causal mask|mask the diagonal|mask is transposed|masked weights|masked scores",
            ["causal_mask", "attention_matrix", "causal_self_attention", "multi_head_attention"]),
    _family("column_convention", "row vectors times weights (X @ W, not W @ x)",
            r"column convention",
            ["forward", "project_qkv", "model_forward"]),
)


def family_of(mistake: str) -> Family | None:
    """The family whose pattern a named mistake's text matches (the first in ``FAMILIES``), or None."""
    for family in FAMILIES:
        if family.pattern.search(mistake or ""):
            return family
    return None


@dataclass(slots=True)
class Step:
    """One family in one notebook of one student: ``assignment``, ``family`` (``Family``),
    ``status`` ("made", "again" or "fixed"), ``mistakes`` (the named texts, list of str) and
    ``before`` (the earlier assignments where the family was made, list of str)."""
    assignment: str
    family: Family
    status: str
    mistakes: list = field(default_factory=list)
    before: list = field(default_factory=list)


def marks(entry) -> tuple | None:
    """What a student's path needs of one ``Entry``: ``None`` when it was not attempted
    (``Entry.not_attempted``), else a tuple with one item per family of ``FAMILIES``: the sorted
    tuple of its mistake texts that the failed checks name, when there are some, else whether the
    checks of the family's functions ran and all passed (bool). Equal marks are one object
    (``_MARKS``): a class's entries share a handful."""
    if entry.not_attempted:
        return None
    found: list = []
    for family in FAMILIES:
        named = tuple(sorted({m for t in entry.tests if not t.passed for m in t.mistakes if family.pattern.search(m)}))
        if named:
            found.append(named)
        else:
            tested = [t for t in entry.tests if t.function in family.functions]
            found.append(bool(tested) and all(t.passed for t in tested))
    made = tuple(found)
    return _MARKS.setdefault(made, made)


_MARKS: dict = {}  # each distinct marks tuple once (a class has few)


def path_of(marked, order: dict | None = None) -> list[Step]:
    """One student's path from ``[(assignment, marks), ...]`` (``marks`` of each of their entries),
    in course order (``order``: ``{assignment: int}``; an assignment not in it comes after, by
    name). Notebooks not attempted (marks ``None``) say nothing."""
    order = order or {}
    ranked = sorted(marked, key=lambda m: (order.get(m[0], len(order) + 1), m[0]))
    steps: list[Step] = []
    made_in: dict[str, list[str]] = {}  # family id -> the assignments that made its mistakes
    for assignment, mark in ranked:
        if mark is None:
            continue
        for family, seen in zip(FAMILIES, mark, strict=True):
            before = made_in.get(family.id, [])
            if isinstance(seen, tuple):
                steps.append(Step(assignment, family, "again" if before else "made", list(seen), list(before)))
                made_in.setdefault(family.id, []).append(assignment)
                continue
            last = next((s for s in reversed(steps) if s.family.id == family.id), None)
            if before and seen and last is not None and last.status != "fixed":
                steps.append(Step(assignment, family, "fixed", [], list(before)))
    return steps


def student_path(entries, order: dict | None = None) -> list[Step]:
    """One student's path: the ``Step`` list of their ``Entry`` records (``class_load.Entry``,
    one per assignment), in course order (``order``: ``{assignment: int}``; an assignment not in
    it comes after, by name). Notebooks not attempted (``Entry.not_attempted``) say nothing."""
    return path_of([(e.assignment, marks(e)) for e in entries], order)


def student_paths(entries, order: dict | None = None) -> dict:
    """``{student: [Step, ...]}`` for every student of ``entries`` (``Entry`` list of a class, or
    any iterable of them: each is read once and only its ``marks`` kept)."""
    by_student: dict = {}
    for e in entries:
        by_student.setdefault(e.student, []).append((e.assignment, marks(e)))
    return {s: path_of(group, order) for s, group in sorted(by_student.items())}


def persistent(paths: dict) -> list[tuple]:
    """Misconceptions that persist across notebooks: ``[(Family, [(student, made_in, again_in,
    fixed_in), ...]), ...]`` for every family some student made in two notebooks or more
    (``made_in``: every assignment where it was named; ``again_in``: the later ones; ``fixed_in``:
    assignments where it was later right), families with the most students first."""
    found: dict = {}
    for student, steps in paths.items():
        for family_id in dict.fromkeys(s.family.id for s in steps):
            mine = [s for s in steps if s.family.id == family_id]
            again = [s.assignment for s in mine if s.status == "again"]
            if again:
                found.setdefault(family_id, (mine[0].family, []))[1].append(
                    (student, [s.assignment for s in mine if s.status in ("made", "again")], again,
                     [s.assignment for s in mine if s.status == "fixed"]))
    return sorted(found.values(), key=lambda item: (-len(item[1]), item[0].id))


def course_order() -> dict:
    """``{assignment: order}`` of the course's exercises (``core/registry.EXERCISES``); {} when
    the registry cannot be read (a report of results graded elsewhere still gets written)."""
    try:
        from autograder.core.registry import EXERCISES
    except Exception:  # noqa: BLE001 -- the report must not depend on the course folder being intact
        return {}
    return {name: exercise.order for name, exercise in EXERCISES.items()}
