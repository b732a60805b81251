"""Read a submitted notebook into the code Restart & Run All would run, as nbgrader runs it.

Students delete, add, reorder and retype cells, change ids and metadata, save megabytes of
output, and sometimes hand in files that are not notebooks at all. ``read_notebook`` returns
the code cells in order, each as IPython would execute it, plus the places where the hidden
checks run, or raises ``InvalidNotebook`` saying precisely why it cannot.

What happens to a notebook on the way (each step mirrors ``nbgrader autograde``):

* **Saved outputs are dropped while the JSON is parsed** (they never matter to grading), so a
  notebook carrying megabytes of printed output is graded like the same notebook cleared. The
  size limits apply to the file (``MAX_FILE_BYTES``, far above any honest notebook) and to the
  code itself (``MAX_CODE_BYTES``).
* **Cells are matched to the release by nbgrader ``grade_id``** (``exercise.release_notebook``),
  as nbgrader's ``OverwriteCells`` does: a cell whose type was changed (a solution cell turned
  into markdown) is restored to its released type, and a locked cell (hidden-test cells,
  read-only cells) gets its released source back. Each restoration is noted for the feedback.
* **Hidden-test cells become checkpoints**: the grader runs that function's checks on the
  notebook's state at that point (see ``remote.ChildSubmission.advance_to``). A deleted test
  cell is put back after the cell that precedes it in the release, as nbgrader's
  ``add_missing_cells`` does (this course enables it in ``nbgrader_config.py``).
* **IPython syntax is translated by IPython itself** (``TransformerManager.transform_cell``,
  the transformer every notebook kernel applies before running a cell): ``%magic``, ``!shell``,
  ``obj?``, ``%%cell`` magics and ``x = !cmd`` become ordinary calls on ``get_ipython()``,
  which the child provides (``child/cells.py`` says what each call does there). Nothing else
  is rewritten: a docstring ending in ``?`` or a continuation line starting with ``%`` stays
  what it is. The translation runs here, in the grader, so the child needs no IPython.
* **Instructor demos are skipped**: a cell whose release counterpart (same ``grade_id``) is
  tagged ``instructor-demo`` and whose source equals the release's. A student cannot make a
  cell of their own a demo: only cells the release marks, unchanged, are skipped.
* **Visible-check cells are skipped too**: the release's read-only
  ``check_visible("<function>")`` cells and its summary cell (``course/visible.py``) only print
  and judge the student's functions on the worked examples; the hidden checks grade them. They
  are read-only, so their source is always the release's. The checker cell that defines
  ``check_visible`` still runs (a student cell may call it). They stay in the digest
  (``submission/digest.py``): the kernel path runs them and digests the same cells.

Cells are named as Jupyter shows them: their position among all cells, from 1, and the
``grade_id`` where there is one: ``cell 19 (attention_row)``.
"""
from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from autograder.submission.files import MAX_CODE_BYTES, UnreadableSubmission, read_submission

DEMO_TAG = "instructor-demo"
VISIBLE_CHECKER = "visible_checker"  # course/build.py's grade ids: visible_<function>, visible_summary


class InvalidNotebook(Exception):
    """The file is not a notebook the grader can read; ``str(exc)`` says why."""


@dataclass
class Cell:
    """One code cell to run, or one place where hidden checks run.

    Attributes:
        position: 1-based position among all cells of the notebook (as Jupyter shows it).
        source: the code as IPython would execute it (already transformed), ``str``.
        grade_id: nbgrader ``grade_id`` or ``None``.
        checkpoint: for a hidden-test cell, its ``grade_id`` (``test_<function>``); such a
            cell's own code is never run: the grader runs the checks there.
        demo: an unchanged instructor-demo cell of the release, skipped when grading.
        visible_check: a read-only visible-check or summary cell of the release, skipped when
            grading (still digested).
        raw: the cell's text as the notebook holds it after intake (before IPython's
            translation), which ``submission/digest.py`` digests.
    """
    position: int
    source: str
    grade_id: str | None = None
    checkpoint: str | None = None
    demo: bool = False
    raw: str = ""
    visible_check: bool = False

    @property
    def skipped(self):
        """Whether the child leaves this cell out (a demo or a visible check)."""
        return self.demo or self.visible_check

    @property
    def label(self):
        """How feedback names the cell: ``cell 19 (attention_row)``."""
        return f"cell {self.position}" + (f" ({self.grade_id})" if self.grade_id else "")

    def to_wire(self):
        """Plain data for the child's ``init`` request (see ``child/cells.py``)."""
        return {"label": self.label, "source": "" if (self.checkpoint or self.skipped) else self.source,
                "checkpoint": self.checkpoint}


@dataclass
class Notebook:
    """What ``read_notebook`` returns: the cells in order, and notes for the feedback."""
    cells: list
    notes: list = field(default_factory=list)

    def checkpoint_position(self, grade_id):
        """The ``position`` of the hidden-test cell ``grade_id``, or ``None``."""
        return next((c.position for c in self.cells if c.checkpoint == grade_id), None)

    def later_definitions(self, names):
        """``{name: [labels]}`` of cells after ``test_<name>`` that define ``name`` again.

        Read from the code (top-level ``def``/``class``/assignment, also inside ``if``,
        ``for``, ``with`` and ``try``), without running it.
        """
        found = {}
        bound = {}  # each cell parsed once, whatever the number of names
        names = list(names)

        def defines(cell, name):
            if id(cell) not in bound:
                # Parsed only when some name appears in it (identifiers are NFKC-normalized, so
                # the text is too): most cells after a hidden-test cell define none of them.
                text = unicodedata.normalize("NFKC", cell.source)
                bound[id(cell)] = _defined_names(cell.source) if any(n in text for n in names) else frozenset()
            return name in bound[id(cell)]
        for name in names:
            at = self.checkpoint_position(f"test_{name}")
            if at is None:
                continue
            for cell in self.cells:
                if cell.position > at and not cell.checkpoint and not cell.skipped and defines(cell, name):
                    found.setdefault(name, []).append(cell.label)
        return found


def _text(source):
    if isinstance(source, list):
        return "".join(str(s) for s in source)
    return source if isinstance(source, str) else ""


def _drop_outputs(pairs):
    return {k: v for k, v in pairs if k != "outputs"}


def load_cells(path):
    """The raw cell dicts of the notebook at ``path``, outputs dropped while parsing.

    Raises:
        InvalidNotebook: unreadable, larger than ``MAX_FILE_BYTES``, not JSON, not a notebook.
    """
    path = Path(path)
    try:  # a regular file, never through a symbolic link, at most MAX_FILE_BYTES
        raw = read_submission(path)
    except UnreadableSubmission as exc:
        raise InvalidNotebook(f"{exc}; clear the outputs and hand it in again" if "MB" in str(exc)
                              else str(exc)) from None
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"), object_pairs_hook=_drop_outputs)
    except RecursionError:
        raise InvalidNotebook(f"{path.name} is not a valid notebook (nested too deeply)") from None
    except ValueError as exc:
        raise InvalidNotebook(f"{path.name} is not a valid notebook (not JSON: {exc})") from None
    del raw
    cells = data.get("cells") if isinstance(data, dict) else None
    if cells is None and isinstance(data, dict) and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [dict(c, source=c.get("source", c.get("input", "")))
                 for ws in data["worksheets"] if isinstance(ws, dict) and isinstance(ws.get("cells"), list)
                 for c in ws["cells"] if isinstance(c, dict)]
    if not isinstance(cells, list):
        raise InvalidNotebook(f"{path.name} is not a valid notebook (no list of cells)")
    return [c if isinstance(c, dict) else {} for c in cells]


def _nbgrader(cell):
    meta = cell.get("metadata")
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def _tags(cell):
    meta = cell.get("metadata")
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return tags if isinstance(tags, list) else []


def _is_test_cell(meta):
    return meta.get("grade") is True and not meta.get("solution")


def grade_ids(cells: list) -> set[str]:
    """The nbgrader ``grade_id``s of raw cell dicts (``set`` of ``str``)."""
    return {g for g in (_nbgrader(c).get("grade_id") for c in cells) if isinstance(g, str)}


_TRANSFORMER = None
# Lines IPython's transformers can change: magics, shell and help escapes, autocall escapes
# (/ ; , at the start of a line), `x = %magic` / `x = !cmd`, a trailing `?`, pasted prompts.
_IPYTHON_SYNTAX = re.compile(r"^[ \t]*(?:[%!?/;,]|>>>|\.\.\.|In \[\d+\]:)|\?[ \t]*$|=[ \t]*[%!]", re.M)
# IPython re-tokenizes the whole cell once per transformation: about a microsecond per
# (transformation x byte). Beyond this budget a cell is not translated (a few seconds at most).
MAX_TRANSFORM_WORK = 3_000_000


class TooMuchIPythonSyntax(Exception):
    """A cell with more IPython syntax than the grader translates; ``str(exc)`` says why."""


def ipython_transform(source: str) -> str:
    """``source`` as IPython would run it (``TransformerManager.transform_cell``).

    A cell with no line IPython could change is returned as is without calling IPython
    (most cells; the result is the same). Code IPython cannot transform (it raises on some
    malformed input) is returned as is too: compiling it in the child then reports the
    SyntaxError a kernel would show.

    Raises:
        TooMuchIPythonSyntax: translating it would cost more than ``MAX_TRANSFORM_WORK``.
    """
    candidates = len(_IPYTHON_SYNTAX.findall(source))
    first = next((ln for ln in source.splitlines() if ln.strip()), "")
    candidates += first[:1] in (" ", "\t")  # IPython dedents an indented cell
    if not candidates:  # what IPython returns for such a cell: the code, newline-terminated
        return "\n" if not source.strip() else source if source.endswith("\n") else source + "\n"
    if candidates * len(source) > MAX_TRANSFORM_WORK:
        raise TooMuchIPythonSyntax(f"{candidates} lines of IPython syntax in {len(source) // 1024} KB of code: "
                                   "more than the grader translates")
    if len(source) <= CACHED_CELL_CHARS:
        return _transform_cached(source)
    return _transform(source)


# The release's read-only visible-checker cell (30 to 56 KB) has a docstring line ending in "?",
# so every notebook sends it to IPython, 20 to 40 ms a notebook on the grader's side. A worker
# grades many notebooks whose cells are alike: each distinct text is translated once a process.
CACHED_CELL_CHARS = 128 * 1024  # a cell larger than this is translated every time (memory bound)


@functools.lru_cache(maxsize=32)
def _transform_cached(source: str) -> str:
    return _transform(source)


def _transform(source: str) -> str:
    global _TRANSFORMER
    if _TRANSFORMER is None:
        from IPython.core.inputtransformer2 import TransformerManager
        _TRANSFORMER = TransformerManager()
    try:
        return _TRANSFORMER.transform_cell(source)
    except Exception:  # IPython's own parser gave up; Python's will say why
        return source


def _release_cells(release):
    """``{grade_id: raw cell}`` and the order of the release's grade ids."""
    if release is None:
        return {}, []
    cells = load_cells(release)
    by_id, order = {}, []
    for cell in cells:
        gid = _nbgrader(cell).get("grade_id")
        if isinstance(gid, str) and gid not in by_id:
            by_id[gid] = cell
            order.append(gid)
    return by_id, order


def read_notebook(path, release=None):
    """The code cells of the notebook at ``path``, ready to run (see module docstring).

    Args:
        path: the submitted .ipynb.
        release: the exercise's released notebook (``exercise.release_notebook``), for
            cell types, locked sources, instructor demos and missing test cells; ``None``
            takes the submission as it is (no restoration).
    Returns:
        ``Notebook``.
    Raises:
        InvalidNotebook: unreadable, too large, not JSON, not a notebook, or more than
            ``MAX_CODE_BYTES`` of code.
    """
    name = Path(path).name
    raw = load_cells(path)
    released, release_order = _release_cells(release)
    notes, cells, seen, code_bytes = [], [], {}, 0
    for position, cell in enumerate(raw, start=1):
        meta = _nbgrader(cell)
        gid = meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None
        cell_type, source = cell.get("cell_type"), _text(cell.get("source", ""))
        label = f"cell {position}" + (f" ({gid})" if gid else "")
        ref = released.get(gid) if gid else None
        if gid and released and ref is None:
            gid = None  # nbgrader drops grade ids the release does not know
        if gid is not None and gid in seen:
            gid = None  # a copied cell: the first one keeps the id
        if ref is not None:
            ref_type = ref.get("cell_type")
            if ref_type != cell_type and ref_type in ("code", "markdown"):
                notes.append(f"{label} was a {ref_type} cell in the release and is a {cell_type} cell "
                             f"in {name}; it was graded as a {ref_type} cell, as nbgrader does")
                cell_type = ref_type
            ref_meta = _nbgrader(ref)
            if ref_meta.get("locked") and source != _text(ref.get("source", "")):
                if not _is_test_cell(ref_meta):  # test cells never run anyway
                    notes.append(f"{label} is read-only and was changed; it was graded as released")
                source = _text(ref.get("source", ""))
            meta = ref_meta
        if cell_type != "code":
            continue
        if gid is not None:
            seen[gid] = position
        if gid and _is_test_cell(meta):
            cells.append(Cell(position, "", gid, checkpoint=gid))
            continue
        demo = bool(ref is not None and DEMO_TAG in _tags(ref) and source == _text(ref.get("source", "")))
        visible_check = _is_visible_check(ref, meta, source)
        code_bytes += len(source.encode("utf-8", errors="replace"))
        if code_bytes > MAX_CODE_BYTES:
            raise InvalidNotebook(f"{name} holds more than {MAX_CODE_BYTES // 1024 ** 2} MB of code "
                                  "(outputs not counted)")
        try:
            code = "" if demo or visible_check else ipython_transform(source)
        except TooMuchIPythonSyntax as exc:
            notes.append(f"{label}: not run: {exc}")
            code = ""
        cells.append(Cell(position, code, gid, demo=demo, raw=source, visible_check=visible_check))
    _restore_missing_tests(cells, seen, released, release_order, notes)
    return Notebook(cells, notes)


def _is_visible_check(ref, meta, source) -> bool:
    """Whether a cell is one of the release's read-only visible-check cells (grade id
    ``visible_<function>`` or ``visible_summary``, not the checker), holding the release's text."""
    gid = meta.get("grade_id") if ref is not None else None
    return bool(isinstance(gid, str) and gid.startswith("visible_") and gid != VISIBLE_CHECKER
                and meta.get("locked") and source == _text(ref.get("source", "")))


def _restore_missing_tests(cells, seen, released, order, notes):
    """Put back hidden-test cells the student deleted, after the cell that precedes them in
    the release (nbgrader's ``add_missing_cells``), else at the end."""
    for i, gid in enumerate(order):
        meta = _nbgrader(released[gid])
        if gid in seen or not _is_test_cell(meta) or released[gid].get("cell_type") != "code":
            continue
        previous = next((order[j] for j in range(i - 1, -1, -1) if order[j] in seen), None)
        at = len(cells)
        if previous is not None:
            at = next(k for k, c in enumerate(cells) if c.grade_id == previous) + 1
        position = cells[at - 1].position if at else 0
        cells.insert(at, Cell(position, "", gid, checkpoint=gid))
        seen[gid] = position
        notes.append(f"the hidden-test cell {gid} was missing and was put back after "
                     f"{'cell %d' % position if position else 'the start'}, as nbgrader does")


def _defined_names(source):
    """Names a cell binds at top level (also inside if/for/while/with/try), ``frozenset``."""
    import ast
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            for attr in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)) and hasattr(node, attr):
                    visit(getattr(node, attr))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    visit(handler.body)
    visit(tree.body)
    return frozenset(names)


def is_untouched_release(path, release) -> bool:
    """Whether every code cell of the notebook at ``path`` is as released (the stub handed
    back unchanged, e.g. beside a copy that holds the work). Unreadable files are not."""
    try:
        code = [_text(c.get("source", "")) for c in load_cells(path) if c.get("cell_type") == "code"]
        released = [_text(c.get("source", "")) for c in load_cells(release) if c.get("cell_type") == "code"]
    except InvalidNotebook:
        return False
    return code == released
