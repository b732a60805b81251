"""Near-copies, for staff: two students' solutions that share much more code than independent work
does, and two students who share a rare combination of named mistakes. Never graded down.

Code: each function's solution region (the notebook's solution cell of that function, nbgrader's
``grade_id``, else the function's ``def`` found with ``ast``) is put in canonical form
(``normalise``: what does nothing removed, independent statements in one order, names and layout
made uniform, so padding, dead code, renaming and reordering do not hide a copy; the report still
shows the students' own code), then fingerprinted by ``copydetect`` (winnowing over normalised
tokens: names, comments and blank lines do not count) with the released
notebook's code of that cell as boilerplate, so the scaffold every student starts from is not
evidence; the course's worked examples are boilerplate too (``course_code``: the notebook's own
demonstration cells, the code its text shows, and the exercise's ``worked.py``), so two students
who paste the same worked inputs into their cells are not near-copies for that. Lines the course
gave are first dropped from each student's code (the same line, indentation and comment aside),
then copydetect leaves out the course code's fingerprints: a pasted block leaves no seam. A
student's regions are joined in the exercise's function order and compared by code
(``near_groups``): students whose code is the same once copydetect has normalised it are one
*group*, fingerprinted and listed once; each pair of distinct codes is compared once. Two codes are
listed when the shared code covers at least ``SHARE`` of both and at least ``MIN_TOKENS``
characters of normalised code; a group when its code has that much beyond the course's. Very short
functions (a two-line softmax) are honest twins across a class, which is why the whole assignment
is compared, not one function.

Mistakes: two students who made the same named mistakes (``class_load.Entry``'s), at least
``MIN_SHARED`` of them, each made by at most ``RARE`` of the class's students.

``find(jobs, results)`` runs in a class run (``grading/outputs.py``) and writes ``near_copies.json``
beside grades.csv; ``class_report`` shows it with the two regions side by side. Measured by
``benchmarks/near_copies.py`` (false flags on honest independent styles, planted near-copies found).
"""
from __future__ import annotations

import json
import re
import sys
from itertools import combinations
from pathlib import Path

from autograder.reports.boilerplate import (
    boilerplate_hashes,
    canonical_boilerplate,
    fingerprint,
)
from autograder.reports.normalise import normalise

NOTE_FILE = "near_copies.json"
SHARE = 0.7                # share of each student's normalised code found in the other's
MIN_TOKENS = 60            # least shared normalised code (characters) for a pair to count
MIN_SHARED, RARE = 2, 2    # shared named mistakes, each made by at most RARE students
KEPT = 2000                # items (groups and pairs of codes) kept per assignment, the most alike
MEMBERS = 10               # students named per code in an item of two codes (a group's own item names all)


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


def _line(text: str) -> str:
    """A line without its indentation and its trailing comment (a '#' after code and a space)."""
    return re.sub(r"\s+#.*$", "", text).strip() if not text.lstrip().startswith("#") else ""


def _without(given: set, code: str) -> str:
    """``code`` without the lines the course gave (the same code line, comments and indentation
    aside): pasted blocks leave no seams for the winnowing to find across their edges."""
    return "\n".join(x for x in code.splitlines() if _line(x) not in given)


def code_pairs(solutions: dict, functions, released: dict | None = None, course: str = "") -> list:
    """Near-copies of one assignment, by code (``near_groups``): each distinct normalised code is
    fingerprinted once and each pair of distinct codes compared once.

    Args:
        solutions: ``{student: {function: source}}`` (``regions``).
        functions: the exercise's functions, in order.
        released: ``{function: source}`` of the released notebook (the boilerplate), or None.
        course: more boilerplate: the course's worked-example code (``course_code``), or "".
    Returns:
        list of items (``_item``): a group of students handing in the same code, or two codes
        alike; the largest smaller share first; at most ``KEPT``.
    """
    codes, found, _ = _found(solutions, functions, released, course)
    return [_item(solutions, functions, codes, *x) for x in found]


def _found(solutions, functions, released=None, course="", boilerplate=None) -> tuple:
    """``(codes, found, stats)`` of ``near_groups`` for one assignment's ``solutions``. ``boilerplate``:
    the text ``_boilerplate`` makes of ``released`` and ``course``, when the caller has it already
    (``boilerplate.released_code``)."""
    from autograder.reports import near_groups
    released = released or {}
    if boilerplate is None:
        boilerplate = "\n\n".join([*(released.get(f, "") for f in functions), course])
    boilerplate = canonical_boilerplate(released, functions, boilerplate)
    given = {_line(x) for x in boilerplate.splitlines()} - {""}
    base = boilerplate_hashes(boilerplate)
    canonical: dict = {}  # the regions' texts -> their canonical code, computed once per distinct hand-in
    joined, handed = {}, {}
    for s in solutions:
        texts = handed[s] = tuple(solutions[s].get(f, "") for f in functions)
        if texts not in canonical:
            canonical[texts] = _without(given, normalise(dict(zip(functions, texts, strict=True)), functions))
        joined[s] = canonical[texts]
    del canonical
    codes = near_groups.codes_of(joined, lambda text: fingerprint(text, base), handed)
    del joined, handed
    found, stats = near_groups.compare_codes(codes, _shared, flagged, KEPT)
    stats.students = len(solutions)
    return codes, found, stats


def _item(solutions, functions, codes, indices, shared, shares) -> dict:
    """One near-copy as ``near_copies.json`` holds it: ``{"students": [[names], ...], "count":
    [int, ...], "texts": [int, ...], "shared": int, "share": [float, ...], "evidence": {function:
    [source, ...]}}``, one entry per code (one: a group of identical hand-ins; two: two codes
    alike): its students (a group's item names them all, an item of two codes the first
    ``MEMBERS`` of each), how many students and different texts it has, its share of the shared
    code, and its code as its first student handed it in."""
    group = len(indices) == 1
    picked = [codes[i] for i in indices]
    firsts = [solutions[c.students[0]] for c in picked]
    evidence = {f: [x.get(f, "") for x in firsts] for f in functions
                if any(x.get(f, "").strip() for x in firsts)}
    return {"students": [c.students if group else c.students[:MEMBERS] for c in picked],
            "count": [len(c.students) for c in picked], "texts": [c.texts for c in picked],
            "shared": shared, "share": list(shares), "evidence": evidence}


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
    return mistake_pairs_of(made)


def mistake_pairs_of(made: dict) -> list:
    """``mistake_pairs`` from ``{(assignment, function, mistake): the students who made it}`` (a set,
    or a dict keyed by student: ``class_summary.Summary.made``)."""
    rare = {key: set(who) for key, who in made.items() if len(who) <= RARE}
    pairs: dict = {}
    for key, who in rare.items():
        for a, b in combinations(sorted(who), 2):
            pairs.setdefault((a, b), []).append((*key, len(who)))
    return [(a, b, sorted(shared)) for (a, b), shared in sorted(pairs.items()) if len(shared) >= MIN_SHARED]


def find(jobs, results, out) -> Path | None:
    """Compare the class's solutions per assignment and write ``out/near_copies.json``
    (``{"assignments": {assignment: [item, ...]}, "compared": {assignment: stats}}``, items as
    ``code_pairs`` gives them, stats as ``near_groups.Stats.as_dict``; written as
    ``json.dumps(..., indent=1)`` writes it, one assignment at a time); returns its Path, or None
    when copydetect is not installed. A notebook that cannot be read is left out.

    ``results``: the ``NotebookResult`` of each job, or anything with their ``student_id``,
    ``assignment_id`` and ``notebook`` (``stream.Row``). Kept in memory: each student's solution
    regions (equal texts once, equal sets of regions once: a name and a pointer a notebook), and
    one assignment's codes and items at a time."""
    try:
        import copydetect  # noqa: F401
    except ImportError:
        return None
    from autograder.core.vocabulary import graded_path
    from autograder.reports.boilerplate import notebook_regions, released_code
    from autograder.reports.class_load import shown_name
    by_assignment: dict = {}
    exercises = {}
    texts: dict = {}  # one copy of each distinct region text, and of each distinct set of regions
    for job, result in zip(jobs, results, strict=False):
        if job.exercise is None or result is None:
            continue
        found = notebook_regions(graded_path(job, result), job.exercise.functions)  # (read once)
        if found is None:  # an unreadable notebook is graded elsewhere; here it is left out
            continue
        exercises[result.assignment_id] = job.exercise
        regions = {f: texts.setdefault(code, code) for f, code in found.items()}
        by_assignment.setdefault(result.assignment_id, {})[sys.intern(shown_name(result.student_id))] = \
            texts.setdefault(tuple(regions.items()), regions)  # never changed: students alike share one
    del texts
    path = Path(out) / NOTE_FILE
    stats, some = {}, bool(by_assignment)
    with path.open("w", encoding="utf-8") as f:
        f.write('{\n "assignments": {' if some else '{\n "assignments": {}')
        for n, assignment in enumerate(sorted(by_assignment)):
            solutions = by_assignment.pop(assignment)  # its regions go once it is compared
            exercise = exercises[assignment]
            released, boilerplate = released_code(exercise)  # (reports/boilerplate.py)
            codes, found, stats[assignment] = _found(solutions, exercise.functions, released,
                                                     boilerplate=boilerplate)
            f.write(("," if n else "") + "\n  " + json.dumps(assignment, ensure_ascii=False) + ": ["
                    + ("" if found else "]"))
            for k, x in enumerate(found):  # each item as json.dumps(indent=1) puts it three levels down
                text = json.dumps(_item(solutions, exercise.functions, codes, *x), indent=1, ensure_ascii=False)
                f.write(("," if k else "") + "\n" + "\n".join("   " + line for line in text.split("\n")))
            if found:
                f.write("\n  ]")
            del codes, found
        f.write("\n }" if some else "")
        compared = json.dumps({"compared": {a: st.as_dict() for a, st in stats.items()}}, indent=1,
                              ensure_ascii=False)
        f.write(",\n" + compared[2:])  # the rest of the object: after its opening "{\n"
    return path


class Top(list):
    """The first items of an assignment (a list); ``total``: how many items it has in all;
    ``compared``: what its comparison did (``near_groups.Stats.as_dict``), or {} when not written."""
    total: int = 0
    compared: dict = {}


def read(graded_dir, keep: int | None = None) -> dict:
    """``{assignment: [item, ...]}`` of ``graded_dir/near_copies.json``; {} when absent or unreadable.

    ``keep``: keep only the first ``keep`` items of each assignment (the most alike), as a ``Top``
    whose ``total`` counts them all and ``compared`` says what was compared; the file is then read a
    line at a time when laid out as ``find`` writes it (its items are never all in memory), else
    read whole. Files of earlier versions (pairs of two students' names) read the same way."""
    path = Path(graded_dir) / NOTE_FILE
    if keep is not None:
        try:
            return _read_top(path, keep)
        except (OSError, ValueError):
            pass  # another layout (or none): read whole below
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        found = {str(a): list(p) for a, p in data.get("assignments", {}).items()}
        compared = data.get("compared", {}) if isinstance(data.get("compared"), dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}
    if keep is None:
        return found
    tops = {}
    for a, items in found.items():
        tops[a] = Top(items[:keep])
        tops[a].total = len(items)
        of_a = compared.get(a)
        tops[a].compared = of_a if isinstance(of_a, dict) else {}
    return tops


def _read_top(path, keep) -> dict:
    """``read(..., keep)`` of a file laid out as ``find`` writes it; ValueError for any other layout."""
    tops: dict[str, Top] = {}
    top: Top | None = None  # the assignment being read
    lines: list[str] | None = None  # the lines of a kept item, while it is read
    with open(path, encoding="utf-8") as f:
        head = f.readline() + f.readline()
        if head not in ('{\n "assignments": {\n', '{\n "assignments": {},\n', '{\n "assignments": {}\n'):
            raise ValueError("not near_copies.json as find writes it")
        line = f.readline() if head.endswith("{\n") else ""
        while line and line not in (" },\n", " }\n"):
            if lines is not None and top is not None:  # inside an item that is kept
                lines.append(line)
                if line.rstrip("\n").rstrip(",") == "   }":
                    top.append(json.loads("".join(lines).rstrip().rstrip(",")))
                    lines = None
            elif line.startswith('  "'):
                head = line.rstrip("\n").rstrip(",")
                if head.endswith(": []"):
                    tops[json.loads(head[:-4])] = Top()
                elif head.endswith(": ["):
                    top = tops[json.loads(head[:-3])] = Top()
                else:
                    raise ValueError(f"unexpected line {line!r}")
            elif line == "   {\n" and top is not None:
                top.total += 1
                if len(top) < keep:
                    lines = [line]
            elif not line.startswith(("    ", "   }", "  ]")):
                raise ValueError(f"unexpected line {line!r}")
            line = f.readline()
        rest = json.loads("{" + f.read())  # what follows the items: {"compared": ...}, small
    for a, stats in (rest.get("compared") or {}).items():
        if a in tops and isinstance(stats, dict):
            tops[a].compared = stats
    return tops
