"""The demo students' own code: each writes every exercise in a style of their own.

A module here per exercise, named after it, holds ``STYLES``: student -> the code they hand in,
a whole notebook's solution code written as one text, top-level ``def``s and ``class``es in any
order (the imports above a definition go into its cell: the notebook runs its cells in its own
order, so an import sits above the first function, in the notebook's order, that uses it). The
styles are honest and independent: loops or comprehensions, numpy or the standard library,
helper variables or one-liners, so no two students' notebooks share more code than independent
work does; the near-copy check of the class report (``reports/near_copies``) must find only the
one copy planted on purpose (``students.COPY``). A student's planted mistake (``students.STUDENTS``)
replaces their own cell of that function, keeping the imports above it. An exercise with no
module here yet (a new one) is handed in as the reference with the students' mistakes.
"""
import ast
from importlib import import_module


def cells(code: str) -> dict:
    """``{function or class name: its cell's source}`` of ``code``: each top-level ``def`` or
    ``class`` with the statements above it that belong to no earlier definition (imports).

    Raises:
        SyntaxError: ``code`` is not Python.
    """
    lines = code.splitlines()
    out, start = {}, 0
    for node in ast.parse(code).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            end = node.end_lineno or start
            out[node.name] = "\n".join(lines[start:end]).strip("\n") + "\n"
            start = end
    return out


def imports(cell: str) -> str:
    """The lines of ``cell`` above its first definition (the student's imports), "" when none:
    a student who rewrites the function keeps them (``run.submission_for``)."""
    if not cell.strip():
        return ""
    first = next((n for n in ast.parse(cell).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))), None)
    head = "\n".join(cell.splitlines()[:first.lineno - 1]) if first else ""
    return head.strip("\n")


def styles_of(exercise) -> dict:
    """The ``STYLES`` of ``exercise``'s module here, ``{}`` when it has none (a new exercise: its
    demo students hand in the reference, ``run.submission_for``)."""
    name = f"{__name__}.{exercise.name}"
    try:
        return import_module(name).STYLES
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return {}


def style(student: str, exercise) -> dict:
    """``{function: cell source}`` that ``student`` writes for ``exercise`` (an
    ``core.registry.Exercise``), in the exercise's function order: ``{}`` when they have no style of
    their own there (then they hand in the reference). A function their planted mistake replaces
    may be left out.

    Raises:
        KeyError: the style defines a function the exercise does not have (a misspelt name).
    """
    code = styles_of(exercise).get(student)
    if code is None:
        return {}
    found = cells(code)
    unknown = [f for f in found if f not in exercise.functions]
    if unknown:
        raise KeyError(f"{student}'s {exercise.name} defines {', '.join(unknown)}, not a function of the exercise")
    return {f: found[f] for f in exercise.functions if f in found}
