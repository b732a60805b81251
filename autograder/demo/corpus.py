"""A corpus of honest notebooks in the styles students really write, for grading parity.

Each ``Entry`` is one student's hand-in of one exercise: the reference solutions (or a
catalogued mistake), reshaped by a few *styles* that Restart & Run All takes in its stride
and a grader that does not run notebooks the way a kernel does gets wrong: definitions
inside top-level loops and ``if`` blocks, IPython magics and shell lines, a docstring line
ending in ``?``, %-formatting continuation lines, a scratch redefinition after the hidden-
test cell, a solution cell retyped as markdown, a deleted hidden-test cell, megabytes of
saved output, and copies of the notebook in the submission folder.

``tests/grading/test_parity.py`` grades the corpus with ``nbgrader autograde`` and with
``python -m autograder grade`` and requires the same points per notebook;
``benchmarks/vs_nbgrader.py`` times both.

nbgrader grades the notebook whose name is the released one, so the nbgrader side gets
the notebook holding the work under that name (``Entry.work``); the autograder side gets
the submission folder as the student left it (``Entry.files``, copies included).
"""
import copy
import textwrap
from dataclasses import dataclass, field

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.environ import patched_environ
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes


def _solutions(nb):
    """``{grade_id: cell}`` of the solution cells."""
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def _index_of(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _code(source):
    return nbformat.v4.new_code_cell(source)


# -- styles: each reshapes a filled notebook in place ---------------------------------------
def loop_definitions(nb, exercise):
    """Every solution defined inside a top-level ``for`` loop."""
    for cell in _solutions(nb).values():
        cell.source = "for _attempt in range(1):\n" + textwrap.indent(cell.source, "    ")


def conditional_definitions(nb, exercise):
    """A switch cell, and every solution under ``if USE_MINE:`` (with an ``else`` fallback)."""
    nb.cells.insert(1, _code("USE_MINE = True  # flip to compare with a draft"))
    for cell in _solutions(nb).values():
        cell.source = ("if USE_MINE:\n" + textwrap.indent(cell.source, "    ")
                       + "\nelse:\n    print('draft version not written yet')\n")


def guarded_main(nb, exercise):
    """The first solution under ``if __name__ == "__main__":`` and the last in ``try``."""
    cells = list(_solutions(nb).values())
    cells[0].source = 'if __name__ == "__main__":\n' + textwrap.indent(cells[0].source, "    ")
    cells[-1].source = ("try:\n" + textwrap.indent(cells[-1].source, "    ")
                        + "\nexcept Exception as exc:\n    print('could not define it:', exc)\n")


def magics(nb, exercise):
    """Line magics, shell lines, ``obj?`` and a ``%%time`` cell around a solution."""
    nb.cells.insert(1, _code("%matplotlib inline\n%load_ext autoreload\n%autoreload 2\n"
                             "!pip list 2>/dev/null | head -3\nfiles = !ls\nprint(len(files), 'files here')\n"
                             "%env GRADING_STYLE=magics\n%time warmup = sum(range(1000))\nassert warmup == 499500\n"))
    cells = list(_solutions(nb).items())
    name, first = cells[0]
    first.source = "%%time\n" + first.source
    for name, cell in cells[1:]:
        cell.source += f"\n{name}?\n%who\n"


def docstring_questions(nb, exercise):
    """A line ending in ``?`` inside every solution's docstring."""
    for cell in _solutions(nb).values():
        lines = cell.source.split("\n")
        i = next((k for k, ln in enumerate(lines) if '"""' in ln), None)
        if i is None:
            continue
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        if lines[i].count('"""') == 2:  # one-line docstring: make it two lines
            text = lines[i].strip()[3:-3]
            lines[i:i + 1] = [f'{indent}"""{text}', "", f"{indent}Why does this work?", f'{indent}"""']
        else:
            lines.insert(i + 1, f"{indent}Why does this work? Why this order?")
        cell.source = "\n".join(lines)


def percent_formatting(nb, exercise):
    """%-formatting whose continuation line starts with ``%``, after every solution."""
    for name, cell in _solutions(nb).items():
        cell.source += (f'\n\nsummary = "%s is defined in %s" \\\n% ("{name}", "this cell")\n'
                        f'detail = ("%d-th try of %s"\n          % (1, "{name}"))\n')


def scratch_redefinition(nb, exercise):
    """At the very end, a scratch redefinition of the first function (it returns nothing)."""
    name = next(iter(_solutions(nb)))
    nb.cells.append(_code(f"# scratch: trying something else\ndef {name}(*args, **kwargs):\n    return None\n"))


def retyped_cell(nb, exercise):
    """The last solution cell turned into markdown (its code kept as text)."""
    cell = list(_solutions(nb).values())[-1]
    cell.cell_type = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)


def deleted_test_cell(nb, exercise):
    """The first hidden-test cell deleted (nbgrader puts it back)."""
    del nb.cells[_index_of(nb, f"test_{exercise.functions[0]}")]


def failing_scratch_cell(nb, exercise):
    """A scratch cell that raises, in the middle; the cells after it still run."""
    nb.cells.insert(len(nb.cells) // 2, _code("undefined_helper(42)  # left over from a draft"))


def big_outputs(nb, exercise):
    """About 55 MB of saved output on the first code cell (more than the old 50 MB limit)."""
    cell = next(c for c in nb.cells if c.cell_type == "code")
    line = "x" * 1023 + "\n"
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line * (55 * 1024))]


STYLES = {f.__name__: f for f in (loop_definitions, conditional_definitions, guarded_main, magics,
                                  docstring_questions, percent_formatting, scratch_redefinition,
                                  retyped_cell, deleted_test_cell, failing_scratch_cell, big_outputs)}

# tiktoken encodings kept in a dict filled by a top-level loop (state a graded function reads).
TIKTOKEN_BY_LOOP = '''import tiktoken

ENCODINGS = {}
for name in ["cl100k_base"]:
    ENCODINGS[name] = tiktoken.get_encoding(name)


def tiktoken_pieces(text, encoding_name="cl100k_base"):
    """Each token of ``text`` as a string (bytes of a split character show as U+FFFD)."""
    encoding = ENCODINGS[encoding_name]
    return [encoding.decode_single_token_bytes(t).decode("utf-8", errors="replace")
            for t in encoding.encode(text)]
'''


@dataclass
class Entry:
    """One hand-in: ``student`` hands in ``exercise`` in ``styles`` (with ``mistake``, if any).

    ``layout``: "plain" (the work as the released name), "copy" (the untouched release
    beside ``<name> (1).ipynb`` holding the work), "jupyter_copy" (``<name>-Copy1.ipynb``
    beside the release) or "renamed" (only ``<name> (1).ipynb``).
    """
    student: str
    exercise: str
    styles: tuple = ()
    mistake: str | None = None
    layout: str = "plain"
    replacements: dict = field(default_factory=dict)

    def work(self):
        """The notebook holding the student's work (``nbformat.NotebookNode``)."""
        exercise = EXERCISES[self.exercise]
        replacements = dict(self.replacements)
        if self.mistake:
            m = next(m for m in all_mistakes() if m.id == self.mistake)
            replacements[m.function] = m.code
        nb = filled_notebook(exercise, replacements)
        for style in self.styles:
            STYLES[style](nb, exercise)
        return nb

    def files(self):
        """``{file name: notebook}`` of the submission folder as the student left it."""
        exercise = EXERCISES[self.exercise]
        work, stem = self.work(), exercise.name
        release = nbformat.read(exercise.release_notebook, as_version=4)
        return {"plain": {exercise.notebook: work},
                "copy": {exercise.notebook: release, f"{stem} (1).ipynb": work},
                "jupyter_copy": {exercise.notebook: release, f"{stem}-Copy1.ipynb": work},
                "renamed": {f"{stem} (1).ipynb": work}}[self.layout]


def corpus():
    """The parity corpus: every exercise's ``parity`` entries (its ``exercise.toml``), plus
    one tokens hand-in that fills ``ENCODINGS`` in a loop.

    Student ids are ``<first 3 letters of the exercise><i>`` (i = 0, 1, ... in the file).
    """
    entries = []
    for name, exercise in EXERCISES.items():
        for i, entry in enumerate(exercise.parity):
            mistake = f"{name}-{entry['mistake']}" if entry["mistake"] else None
            entries.append(Entry(f"{name[:3]}{i}", name, entry["styles"], mistake, entry["layout"]))
    if "tokens" in EXERCISES:
        entries.append(Entry("tok_loop", "tokens", ("magics",), replacements={"tiktoken_pieces": TIKTOKEN_BY_LOOP}))
    return entries


def write_submissions(root, entries, nbgrader=False):
    """Write ``entries`` as nbgrader's ``submitted/<student>/<assignment>/`` tree under ``root``.

    With ``nbgrader=True`` each folder holds only the work, under the released name (what
    ``nbgrader autograde`` grades); otherwise the folder as the student left it.
    """
    from pathlib import Path
    for entry in entries:
        exercise = EXERCISES[entry.exercise]
        folder = Path(root) / entry.student / exercise.assignment
        folder.mkdir(parents=True, exist_ok=True)
        files = {exercise.notebook: entry.work()} if nbgrader else entry.files()
        for name, nb in files.items():
            nbformat.write(copy.deepcopy(nb), folder / name)


def _autograde_pairs(config, pairs):
    """Autograde ``pairs`` of (student, assignment) in this process; raises on a failure."""
    import contextlib
    import io

    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        for student, assignment in pairs:
            result = api.autograde(assignment, student, force=True, create=True)
            if not result["success"]:
                raise RuntimeError(f"autograde {student}/{assignment}: {result.get('error')}")


def nbgrader_autograde(workdir, submitted, secret, timeout=60, workers=1):
    """Grade a ``submitted/<student>/<assignment>/`` tree with ``nbgrader autograde``, serially.

    Builds a course in ``workdir`` (``source/`` copied from this project, every assignment
    generated), copies ``submitted`` into it, and autogrades each (student, assignment) in
    this process through ``NbGraderAPI`` (one kernel per notebook, as ``nbgrader autograde``
    does), with ``COURSE_SECRET`` set so the hidden test cells draw the same random cases
    as ``python -m autograder grade --secret-file`` with the same secret.

    Args:
        workdir: an empty folder (``Path``).
        submitted: the tree to grade.
        secret: the course secret (``bytes``).
        timeout: nbgrader's per-cell limit (``Execute.timeout``), seconds.
        workers: processes autograding at once (1: serial, as ``nbgrader autograde`` runs;
            more: a pool of ``NbGraderAPI`` processes sharing the gradebook).
    Returns:
        ``({(student, assignment): {function: points}}, seconds spent autograding)``.
    Raises:
        RuntimeError: nbgrader reported a failure.
    """
    import contextlib
    import io
    import shutil
    import time
    from pathlib import Path

    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    from autograder.core.registry import PROJECT_ROOT
    from autograder.course.build import venv_on_path
    from autograder.sandbox.tiktoken_cache import cache_dir

    venv_on_path()
    course = Path(workdir) / "course"
    shutil.copytree(PROJECT_ROOT / "source", course / "source")
    shutil.copytree(submitted, course / "submitted")
    config = Config()
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.course_id = "parity"
    config.CourseDirectory.db_url = f"sqlite:///{course}/gradebook.db"
    config.Execute.timeout = timeout
    config.OverwriteCells.add_missing_cells = True
    # The course's own autograde preprocessors (nbgrader_config.py): nbgrader's, with
    # OverwriteCells replaced by the course's subclass (autograder/nbgrader_glue/cells.py).
    config.Autograde.sanitize_preprocessors = [
        "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
        "nbgrader.preprocessors.OverwriteKernelspec", "autograder.nbgrader_glue.cells.OverwriteReleasedCells",
        "nbgrader.preprocessors.CheckCellMetadata"]
    pairs = sorted((s.name, a.name) for s in (course / "submitted").iterdir() for a in s.iterdir())
    with patched_environ({"COURSE_SECRET": secret.decode(), "TIKTOKEN_CACHE_DIR": str(cache_dir())}):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
            for assignment in sorted({a for _, a in pairs}):
                result = api.generate_assignment(assignment)
                if not result["success"]:
                    raise RuntimeError(f"generate_assignment {assignment}: {result.get('error')}")
        t0 = time.perf_counter()
        if workers <= 1:
            _autograde_pairs(config, pairs)
        else:
            import concurrent.futures as cf
            import multiprocessing
            with cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                for future in [pool.submit(_autograde_pairs, config, pairs[i::workers]) for i in range(workers)]:
                    future.result()
        seconds = time.perf_counter() - t0
    points = {}
    with Gradebook(f"sqlite:///{course}/gradebook.db", "parity") as gb:
        for student, assignment in pairs:
            nb = gb.find_submission_notebook(assignment, assignment, student)
            points[(student, assignment)] = {g.name.removeprefix("test_"): float(g.score or 0.0)
                                             for g in nb.grades if g.name.startswith("test_")}
    return points, seconds
