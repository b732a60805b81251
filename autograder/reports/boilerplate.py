"""The code the near-copy comparison (``reports/near_copies.py``) reads: a notebook's solution regions
(``regions``), copydetect's fingerprint of a text (``fingerprint``), and the course's code it leaves
out of the students' code (``course_code``; per exercise, ``released_code``) with its fingerprint:
computed once per process, and ahead of the pass
after grading when a class run asks (``prepare``, from ``grading/outputs.WarmUp``, while the class
is being graded). Fingerprints hold Python ``hash`` values, salted per process: they are never kept
on disk (the course code's normalised text is, in ``.cache/near_copies``), and the pairs found are
the same whichever thread or moment computed them."""
from __future__ import annotations

import ast
import io
import os
import re
import unicodedata
from pathlib import Path

from autograder.reports.kgrams import use_stable_hashes

K, WINDOW = 25, 6          # copydetect's defaults: noise threshold 25, guarantee threshold 30


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
        if not _may_define(cell.source, functions, found):
            continue  # no such name in its text: no ``def`` of one (its parse would find none)
        try:
            tree = ast.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in functions \
                    and node.name not in found:
                found[node.name] = ast.get_source_segment(cell.source, node) or ""
    return found


def _may_define(source, functions, found) -> bool:
    """Whether ``source`` may define a function of ``functions`` not in ``found`` yet: whether it
    holds ``def`` or ``class``, blanks or line continuations, then that name (after NFKC
    normalisation, as Python reads identifiers). A cell without that defines none of them."""
    if not isinstance(source, str):
        return True
    names = [re.escape(f) for f in functions if f not in found]
    text = source if source.isascii() else unicodedata.normalize("NFKC", source)
    return bool(names) and re.search(r"(?:def|class)[\s\\]+(?:" + "|".join(names) + ")", text) is not None


def fingerprint(code: str, boilerplate=()):
    """copydetect's ``CodeFingerprint`` of Python ``code`` (str), the ``boilerplate`` hashes left out.
    (The lexer is named: the one pygments picks for "solution.py", without its search of every
    lexer and plugin on each call.)"""
    from copydetect import CodeFingerprint
    use_stable_hashes()
    return CodeFingerprint("solution.py", K, WINDOW, boilerplate=list(boilerplate), fp=io.StringIO(code),
                           language="python")


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


_boilerplate_hashes: dict = {}  # boilerplate text -> its fingerprint's hashes, for this process


def boilerplate_hashes(boilerplate: str):
    """The hashes of ``fingerprint(boilerplate)`` (``[]`` for blank text), computed once per text in
    this process: ``prepare`` may compute them while the class is being graded. (The hashes are
    ``kgrams.stable_kgrams``'s, the same in every process; the normalised text is kept on disk,
    ``_filtered``.)"""
    if not boilerplate.strip():
        return []
    found = _boilerplate_hashes.get(boilerplate)
    if found is None:
        from copydetect import CodeFingerprint
        use_stable_hashes()
        filtered = _filtered(boilerplate)  # the lexer's output, the same as ``fingerprint``'s
        found = CodeFingerprint("solution.py", K, WINDOW, filter=False, fp=io.StringIO(filtered)).hashes
        _boilerplate_hashes[boilerplate] = found
    return found


def cache_dir() -> Path:
    """Where the course code's normalised text is kept between runs (``.cache/near_copies``)."""
    return Path(__file__).resolve().parents[2] / ".cache" / "near_copies"


def _filtered(text: str) -> str:
    """copydetect's normalised code of ``text`` (``filter_code``: names, strings and comments
    replaced), kept in ``cache_dir()`` under the sha256 of the text and of pygments' and
    copydetect's versions: the course's code is lexed once, not on every run (lexing it is most of
    the comparison's cost). Without a writable cache it is lexed each time."""
    import hashlib

    import copydetect
    import pygments
    from copydetect.utils import filter_code
    key = hashlib.sha256(f"{pygments.__version__} {copydetect.__version__} {K} {WINDOW}\n{text}".encode(
        "utf-8", "surrogatepass")).hexdigest()
    path = cache_dir() / f"{key}.txt"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        pass
    filtered = filter_code(text, "solution.py", "python")[0]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_text(filtered, encoding="utf-8")
        os.replace(partial, path)  # whole or not at all: another run may read it at once
    except (OSError, UnicodeError):
        pass
    return filtered


_released: dict = {}  # exercise name -> (the files' stamps, released_code's answer), for this process


def file_stamp(path):
    """``(mtime_ns, size, inode)`` of the file at ``path``, or ``None`` when it cannot be read: what
    work read ahead is keyed by, so a file changed since is read again."""
    try:
        st = os.stat(path)
        return st.st_mtime_ns, st.st_size, st.st_ino
    except (OSError, TypeError, ValueError):
        return None


def released_code(exercise) -> tuple:
    """``(released, boilerplate)`` of ``exercise``: the ``regions`` of its released notebook
    (``{}`` without one) and the boilerplate text ``near_copies.find`` leaves out (those regions in the
    exercise's function order, then ``course_code``). Read again only when the release or
    ``worked.py`` changed on disk since the last call in this process."""
    stamps = (str(exercise.release_notebook), file_stamp(exercise.release_notebook),
              file_stamp(Path(getattr(exercise, "folder", "") or "") / "worked.py"), tuple(exercise.functions))
    kept = _released.get(exercise.name)
    if kept is not None and kept[0] == stamps:
        return kept[1]
    _released[exercise.name] = (stamps, _released_code(exercise))
    return _released[exercise.name][1]


def _released_code(exercise) -> tuple:
    import nbformat
    try:
        release_nb = nbformat.read(exercise.release_notebook, as_version=4)
        released = regions(release_nb, exercise.functions)
    except Exception:  # noqa: BLE001 -- without the release, nothing is subtracted
        release_nb, released = None, {}
    return released, _boilerplate(exercise.functions, released, course_code(exercise, release_nb))


def _boilerplate(functions, released, course) -> str:
    """The text ``near_copies._found`` makes of ``released`` and ``course`` (the same join)."""
    return "\n\n".join([*(released.get(f, "") for f in functions), course])


_canonical_boilerplate: dict = {}  # (released regions, functions, boilerplate) -> its text, this process


def canonical_boilerplate(released: dict, functions, boilerplate: str) -> str:
    """The course's code as the comparison leaves it out of the students' canonical code: the
    ``boilerplate`` text as given, then the released regions in canonical form (``normalise``)
    and the whole printed again (``normalise.formatted``), so that what a student copied from the
    course is left out in either form. Computed once per process for each boilerplate."""
    key = (tuple(sorted(released.items())), tuple(functions), boilerplate)
    found = _canonical_boilerplate.get(key)
    if found is None:
        from autograder.reports.normalise import formatted, normalise
        found = "\n\n".join(x for x in (boilerplate, normalise(released, functions), formatted(boilerplate))
                            if x.strip())
        _canonical_boilerplate[key] = found
    return found


_read_ahead: dict = {}  # (notebook path, its stamp, functions) -> regions or None, until taken


def _notebook(path):
    """The notebook at ``path`` as nbformat's reader reads it (version 4), without the JSON-schema
    validation ``nbformat.read`` adds (two thirds of its time; ``regions`` reads only the cells'
    type, metadata and source, and a notebook it cannot read is left out)."""
    import nbformat
    from nbformat import reader
    with open(path, encoding="utf-8") as f:
        nb = reader.read(f)
    return nb if nb.get("nbformat") == 4 else nbformat.convert(nb, 4)


def notebook_regions(path, functions, keep: bool = False):
    """``regions`` of the notebook at ``path`` (``None`` when it cannot be read): taken from what
    ``keep=True`` read ahead when the file has not changed since, else read now. ``keep``: read it
    ahead (e.g. in ``grading/outputs.WarmUp``) for a later call, which takes it (memory held only
    between the two)."""
    key = (str(path), file_stamp(path), tuple(functions))
    if not keep and key in _read_ahead:
        return _read_ahead.pop(key)
    try:
        found = regions(_notebook(path), functions)
    except Exception:  # noqa: BLE001 -- unreadable: graded elsewhere, left out of the comparison
        found = None
    if keep:
        _read_ahead[key] = found
    return found


def prepare(exercises) -> None:
    """Import copydetect and fingerprint each exercise's boilerplate (``released_code``) ahead of
    ``near_copies.find``, e.g. in a thread while the class is graded (``grading/outputs.WarmUp``). Does
    nothing without copydetect; any failure is left for ``find`` to meet."""
    try:
        import copydetect  # noqa: F401
    except ImportError:
        return
    for exercise in exercises:
        released, text = released_code(exercise)
        boilerplate_hashes(canonical_boilerplate(released, exercise.functions, text))
