"""Near-copies, for staff: two students' solutions that share much more code than independent work
does, and two students who share a rare combination of named mistakes. Never graded down.

Code: each function's solution region (the notebook's solution cell of that function, nbgrader's
``grade_id``, else the function's ``def`` found with ``ast``) is fingerprinted by ``copydetect``
(winnowing over normalised tokens: names, comments and blank lines do not count) with the released
notebook's code of that cell as boilerplate, so the scaffold every student starts from is not
evidence; the course's worked examples are boilerplate too (``course_code``: the notebook's own
demonstration cells, the code its text shows, and the exercise's ``worked.py``), so two students
who paste the same worked inputs into their cells are not near-copies for that. Lines the course
gave are first dropped from each student's code (the same line, indentation and comment aside),
then copydetect leaves out the course code's fingerprints: a pasted block leaves no seam. A student's regions are joined in the exercise's function order; a pair of students is
listed when the shared code covers at least ``SHARE`` of both students' code and at least
``MIN_TOKENS`` characters of normalised code. Very short functions (a two-line softmax) are honest
twins across a class, which is why the whole assignment is compared, not one function.

Mistakes: two students who made the same named mistakes (``class_load.Entry``'s), at least
``MIN_SHARED`` of them, each made by at most ``RARE`` of the class's students.

``find(jobs, results)`` runs in a class run (``grading/outputs.py``) and writes ``near_copies.json``
beside grades.csv; ``class_report`` shows it with the two regions side by side. Measured by
``benchmarks/near_copies.py`` (false flags on honest independent styles, planted near-copies found).
"""
from __future__ import annotations

import ast
import io
import json
import re
from itertools import combinations
from pathlib import Path

NOTE_FILE = "near_copies.json"
K, WINDOW = 25, 6          # copydetect's defaults: noise threshold 25, guarantee threshold 30
SHARE = 0.7                # share of each student's normalised code found in the other's
MIN_TOKENS = 60            # least shared normalised code (characters) for a pair to count
MIN_SHARED, RARE = 2, 2    # shared named mistakes, each made by at most RARE students


def regions(nb, functions) -> dict:
    """``{function: source}`` of a notebook (``nbformat`` node): the solution cell whose nbgrader
    ``grade_id`` is the function, else the last top-level ``def``/``class`` of that name."""
    found = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in functions:
            found[grade_id] = cell.source
            continue
        try:
            tree = ast.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in functions \
                    and node.name not in found:
                found[node.name] = ast.get_source_segment(cell.source, node) or ""
    return found


def fingerprint(code: str, boilerplate=()):
    """copydetect's ``CodeFingerprint`` of Python ``code`` (str), the ``boilerplate`` hashes left out."""
    from copydetect import CodeFingerprint
    return CodeFingerprint("solution.py", K, WINDOW, boilerplate=list(boilerplate), fp=io.StringIO(code))


def compare(code_a: str, code_b: str, boilerplate: str = "") -> tuple:
    """``(shared, share_a, share_b)``: normalised code (characters) both hold beyond the
    ``boilerplate`` code, and its share of each (floats in [0, 1])."""
    base = fingerprint(boilerplate).hashes if boilerplate.strip() else []
    return _shared(fingerprint(code_a, base), fingerprint(code_b, base))


def _shared(a, b) -> tuple:
    from copydetect import compare_files
    if not len(a.hashes) or not len(b.hashes):
        return 0, 0.0, 0.0
    shared, (share_a, share_b), _ = compare_files(a, b)
    return int(shared), float(share_a), float(share_b)


def flagged(share_a: float, share_b: float, shared: int) -> bool:
    """Whether a compared pair is listed (see ``SHARE`` and ``MIN_TOKENS``)."""
    return shared >= MIN_TOKENS and min(share_a, share_b) >= SHARE


_FENCE = re.compile(r"```(?:python|py)?\n(.*?)```", re.S)


def course_code(exercise, release_nb=None) -> str:
    """The course's own code a student may copy into a solution cell, as one text: the release's
    code cells other than the solution cells (imports, the worked examples' inputs and the calls
    that print them, the visible cases), the fenced code of its text cells, and the exercise's
    ``worked.py`` (the course text's figures). "" for what cannot be read."""
    parts = []
    if release_nb is not None:
        for cell in release_nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.get("cell_type") == "code" and not meta.get("solution"):
                parts.append(cell.source)
            elif cell.get("cell_type") == "markdown":
                parts += _FENCE.findall(cell.source)
    worked = Path(getattr(exercise, "folder", "") or "") / "worked.py"
    try:
        parts.append(worked.read_text(encoding="utf-8"))
    except (OSError, UnicodeError):
        pass
    return "\n\n".join(parts)


def _line(text: str) -> str:
    """A line without its indentation and its trailing comment (a '#' after code and a space)."""
    return re.sub(r"\s+#.*$", "", text).strip() if not text.lstrip().startswith("#") else ""


def _without(given: set, code: str) -> str:
    """``code`` without the lines the course gave (the same code line, comments and indentation
    aside): pasted blocks leave no seams for the winnowing to find across their edges."""
    return "\n".join(x for x in code.splitlines() if _line(x) not in given)


def code_pairs(solutions: dict, functions, released: dict | None = None, course: str = "") -> list:
    """Near-copy pairs of one assignment.

    Args:
        solutions: ``{student: {function: source}}`` (``regions``).
        functions: the exercise's functions, in order.
        released: ``{function: source}`` of the released notebook (the boilerplate), or None.
        course: more boilerplate: the course's worked-example code (``course_code``), or "".
    Returns:
        list of dicts ``{"students": [a, b], "shared": int, "share": [float, float],
        "evidence": {function: [source a, source b]}}``, the largest share first.
    """
    released = released or {}
    boilerplate = "\n\n".join([*(released.get(f, "") for f in functions), course])
    given = {_line(x) for x in boilerplate.splitlines()} - {""}
    joined = {s: _without(given, "\n\n".join(regions_.get(f, "") for f in functions))
              for s, regions_ in solutions.items()}
    base = fingerprint(boilerplate).hashes if boilerplate.strip() else []
    prints = {s: fingerprint(code, base) for s, code in joined.items()}  # each student's once
    pairs = []
    for a, b in combinations(sorted(solutions), 2):
        shared, share_a, share_b = _shared(prints[a], prints[b])
        if flagged(share_a, share_b, shared):
            evidence = {f: [solutions[a].get(f, ""), solutions[b].get(f, "")] for f in functions
                        if solutions[a].get(f, "").strip() or solutions[b].get(f, "").strip()}
            pairs.append({"students": [a, b], "shared": shared, "share": [round(share_a, 3), round(share_b, 3)],
                          "evidence": evidence})
    return sorted(pairs, key=lambda p: -min(p["share"]))


def mistake_pairs(entries) -> list:
    """Students sharing a rare combination of named mistakes across the class's notebooks.

    Args: entries: ``class_load.Entry`` list.
    Returns: list of ``(student a, student b, [(assignment, function, mistake, made by), ...])``
        for pairs sharing at least ``MIN_SHARED`` mistakes each made by at most ``RARE`` students."""
    made: dict = {}
    for e in entries:
        for t in e.tests:
            if not t.passed:
                for m in t.mistakes:
                    made.setdefault((e.assignment, t.function, m), set()).add(e.student)
    rare = {key: who for key, who in made.items() if len(who) <= RARE}
    pairs: dict = {}
    for key, who in rare.items():
        for a, b in combinations(sorted(who), 2):
            pairs.setdefault((a, b), []).append((*key, len(who)))
    return [(a, b, sorted(shared)) for (a, b), shared in sorted(pairs.items()) if len(shared) >= MIN_SHARED]


def find(jobs, results, out) -> Path | None:
    """Compare the class's solutions per assignment and write ``out/near_copies.json``
    (``{"assignments": {assignment: [pair, ...]}}``, pairs as ``code_pairs``); returns its Path,
    or None when copydetect is not installed. A notebook that cannot be read is left out."""
    import nbformat
    try:
        import copydetect  # noqa: F401
    except ImportError:
        return None
    from autograder.grading.identical import _graded_path
    from autograder.reports.class_load import shown_name
    by_assignment: dict = {}
    exercises = {}
    for job, result in zip(jobs, results, strict=False):
        if job.exercise is None or result is None:
            continue
        try:
            nb = nbformat.read(_graded_path(job, result), as_version=4)
        except Exception:  # noqa: BLE001 -- an unreadable notebook is graded elsewhere; here it is left out
            continue
        exercises[result.assignment_id] = job.exercise
        by_assignment.setdefault(result.assignment_id, {})[shown_name(result.student_id)] = \
            regions(nb, job.exercise.functions)
    found = {}
    for assignment, solutions in sorted(by_assignment.items()):
        exercise = exercises[assignment]
        try:
            release_nb = nbformat.read(exercise.release_notebook, as_version=4)
            released = regions(release_nb, exercise.functions)
        except Exception:  # noqa: BLE001 -- without the release, nothing is subtracted
            release_nb, released = None, {}
        found[assignment] = code_pairs(solutions, exercise.functions, released, course_code(exercise, release_nb))
    path = Path(out) / NOTE_FILE
    path.write_text(json.dumps({"assignments": found}, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def read(graded_dir) -> dict:
    """``{assignment: [pair, ...]}`` of ``graded_dir/near_copies.json``; {} when absent or unreadable."""
    try:
        data = json.loads((Path(graded_dir) / NOTE_FILE).read_text(encoding="utf-8"))
        return {str(a): list(p) for a, p in data.get("assignments", {}).items()}
    except (OSError, ValueError, AttributeError):
        return {}
