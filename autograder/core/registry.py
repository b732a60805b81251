"""The course's exercises, discovered from their folders: the one list everything else reads.

``autograder/`` is the engine; ``exercises/<name>/`` is the course. Each exercise is one
nbgrader assignment holding one notebook, and its folder holds everything about it:

* ``exercise.toml``: what the registry reads (``FIELDS`` lists the keys): its title, its
  place in the course, the functions students write, which of them call others (the helper
  map), the points the course promises, the plots the notebook draws, and its entries in
  the parity corpus (``autograder.demo.corpus``).
* ``notebook.py``: the one source of the notebook (jupytext percent format);
  ``python -m autograder build`` generates ``source/<name>/<name>.ipynb``,
  ``solutions/<name>.py`` and ``assignments/<name>/<name>.ipynb`` from it.
* ``cases.py``: the fixed cases (``CASES``), each declared once with whether students see it:
  the build writes the visible ones into the notebook, grading runs the graded ones as hidden
  checks (``autograder.checks.cases``).
* ``checks.py``: the randomized and property checks (pytest ``check_*`` functions, with points),
  and the line that makes ``CASES``' graded checks hidden checks too.
* ``wrong.py``: the small wrong implementations whose values name a mistake in feedback, and
  the sentences that name them (imported by ``cases.py`` and ``checks.py``).
* ``hand_ins.py``: realistic wrong hand-ins (``MISTAKES``, each naming the checks it must
  fail by their function names, e.g. ``check_row_weights``), the ones the course text names
  (``NAMED``) and who hands which in in the demo class (``DEMO``).
* ``worked.py``: every figure of the course text, typed once (``WORKED``: each with its
  section and the reference computation that reproduces it; ``docs/worked-examples.md`` is
  generated from them); the other files import the figures from here.

``python -m autograder new <name>`` writes a new folder from a template (``autograder.course.scaffold``).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as the tomli package (requirements.txt)
    import tomli as tomllib

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COURSE_DIR = PROJECT_ROOT / "exercises"
# The course secret behind the randomized cases (``checks/seeds.py``); git-ignored, never released.
SECRET_FILE = PROJECT_ROOT / ".course_secret"
# The engine's side of the checks: pytest.ini and the fixtures (conftest.py) every check file uses.
CHECKS_DIR = Path(__file__).resolve().parents[1] / "checks"
# Where the grader reads the student release from, instead of assignments/ (see release_notebook).
RELEASE_DIR_VARIABLE = "AUTOGRADER_RELEASE_DIR"

# Files every exercise folder holds, and what each is for (``missing_files`` names the absent ones).
FILES = {
    "exercise.toml": "what the registry reads",
    "__init__.py": "makes the folder the package exercises.<name>",
    "notebook.py": "the notebook's source (jupytext percent format)",
    "cases.py": "the fixed cases, visible and hidden (CASES)",
    "checks.py": "the randomized and property checks",
    "wrong.py": "the small wrong implementations that name mistakes in feedback, and their sentences",
    "hand_ins.py": "realistic wrong hand-ins, the named ones, the demo class's hand-ins",
    "worked.py": "the course text's figures, typed once",
}
# Keys of exercise.toml: {key: (type, required)}.
FIELDS = {
    "order": (int, True),         # place in the course (1, 2, ...): the order of lists and tables
    "title": (str, True),         # what the student sees as the notebook's title
    "summary": (str, True),       # one line for README's exercise table: what the student implements
    "points": ((int, float), True),  # the total the course promises; the checks' points must add up to it
    "functions": (list, True),    # the student-facing names the checks call (the contract)
    "helpers": (dict, False),     # {function: [helper, ...]}: see Exercise.helpers
    "plots": (int, False),        # images the solution notebook draws (at least)
    "prints": (list, False),      # lines the solution notebook must print (the course text's figures)
    "parity": (list, False),      # [{styles = [...], layout = "...", mistake = "<label>"}, ...]
}


@dataclass(frozen=True)
class Exercise:
    """One notebook of the course, as its folder ``exercises/<name>/`` declares it.

    Attributes:
        name: assignment id, notebook name and folder name, e.g. "attention".
        title: what the student sees as the notebook's title.
        functions: the student-facing names the checks call (the contract), a tuple.
        helpers: ``{function: (helper, ...)}``: student functions whose reference calls
            other student functions. When a wrong answer of ``function`` is what the
            reference gives with the student's helpers, the helper alone loses points
            ("one bug, charged once": ``helpers.judge_excuse``).
        order: place in the course (1 = first).
        summary: what the student implements, one line (README's exercise table).
        points: the total the course promises (a declared figure; the tests compare the
            checks' sum with it, so neither can drift alone).
        plots: how many images the solution notebook draws, at least.
        prints: lines the solution notebook must print (the course text's figures, as the
            notebook prints them), a tuple of str.
        parity: the exercise's parity corpus entries, a tuple of dicts with ``styles``
            (tuple of style names of ``autograder.demo.corpus.STYLES``), ``layout`` and
            optional ``mistake`` (a label of ``hand_ins.py``).
        folder: the exercise's folder (``Path``).
    """
    name: str
    title: str
    functions: tuple
    helpers: dict = field(default_factory=dict, hash=False, compare=False)
    order: int = 0
    summary: str = ""
    points: float = 0.0
    plots: int = 0
    prints: tuple = ()
    parity: tuple = field(default=(), hash=False, compare=False)
    folder: Path | None = None

    def __post_init__(self):
        if self.folder is None:
            object.__setattr__(self, "folder", COURSE_DIR / self.name)

    @property
    def assignment(self):
        """The nbgrader assignment id (same as ``name``)."""
        return self.name

    @property
    def notebook(self):
        """The notebook file name, e.g. "attention.ipynb"."""
        return f"{self.name}.ipynb"

    @property
    def text_form(self):
        """The notebook's one source, ``exercises/<name>/notebook.py``."""
        return self.folder / "notebook.py"

    @property
    def checks_file(self):
        """The hidden checks, ``exercises/<name>/checks.py``."""
        return self.folder / "checks.py"

    @property
    def checks_module(self):
        """The check file's module name, e.g. "exercises.attention.checks"."""
        return f"exercises.{self.name}.checks"

    @property
    def mistakes_module(self):
        """The hand-ins' module name, e.g. "exercises.attention.hand_ins"."""
        return f"exercises.{self.name}.hand_ins"

    @property
    def cases_module(self):
        """The fixed cases' module name, e.g. "exercises.attention.cases"."""
        return f"exercises.{self.name}.cases"

    @property
    def wrong_module(self):
        """The wrong implementations' module name, e.g. "exercises.attention.wrong"."""
        return f"exercises.{self.name}.wrong"

    @property
    def worked_module(self):
        """The worked values' module name, e.g. "exercises.attention.worked"."""
        return f"exercises.{self.name}.worked"

    @property
    def source_notebook(self):
        return PROJECT_ROOT / "source" / self.name / self.notebook

    @property
    def release_notebook(self):
        """The student release, ``assignments/<name>/<name>.ipynb``, or under
        ``$AUTOGRADER_RELEASE_DIR`` when set (the test suite points it at a snapshot, so
        ``nbgrader generate_assignment`` rewriting assignments/ cannot race it)."""
        root = os.environ.get(RELEASE_DIR_VARIABLE)
        return (Path(root) if root else PROJECT_ROOT / "assignments") / self.name / self.notebook

    @property
    def committed_release(self):
        """The release as the repository holds it, ``assignments/<name>/<name>.ipynb`` (what the
        build writes), whatever ``$AUTOGRADER_RELEASE_DIR`` says."""
        return PROJECT_ROOT / "assignments" / self.name / self.notebook

    @property
    def solution_module(self):
        return PROJECT_ROOT / "solutions" / f"{self.name}.py"

    def missing_files(self):
        """Names of the files of ``FILES`` that the folder lacks (``[]`` when complete)."""
        return [f for f in FILES if not (self.folder / f).is_file()]


def load(folder):
    """The ``Exercise`` declared by ``folder/exercise.toml``.

    Raises:
        ValueError: the file is missing or unreadable, a required key is missing, a key is
            unknown or of the wrong type, or a helper is not one of the functions; the message
            names the file and what is wrong.
    """
    folder = Path(folder)
    path = folder / "exercise.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: missing (every folder in exercises/ is an exercise; "
                         "`python -m autograder new <name>` writes one)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}") from None
    problems = [f"missing key {k!r}" for k, (_, required) in FIELDS.items() if required and k not in data]
    problems += [f"unknown key {k!r}" for k in data if k not in FIELDS]
    problems += [f"{k!r} must be {FIELDS[k][0]}" for k, v in data.items()
                 if k in FIELDS and not isinstance(v, FIELDS[k][0])]
    if not folder.name.isidentifier():
        problems.append(f"folder name {folder.name!r} is not a Python identifier")
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    functions = tuple(data["functions"])
    helpers = {f: tuple(hs) for f, hs in data.get("helpers", {}).items()}
    strangers = sorted({f for f, hs in helpers.items() for f in (f, *hs)} - set(functions))
    if strangers:
        raise ValueError(f"{path}: helpers names {', '.join(strangers)}, not in functions")
    parity = tuple({"styles": tuple(e.get("styles", ())), "layout": e.get("layout", "plain"),
                    "mistake": e.get("mistake")} for e in data.get("parity", []))
    return Exercise(folder.name, data["title"], functions, helpers, order=data["order"],
                    summary=data["summary"], points=float(data["points"]), plots=data.get("plots", 0),
                    prints=tuple(data.get("prints", ())), parity=parity, folder=folder)


def discover(root=COURSE_DIR):
    """Every exercise under ``root``, ``{name: Exercise}`` in course order.

    Every sub-folder is an exercise, except those whose name starts with "_" or "."
    (``__pycache__``).

    Raises:
        ValueError: a folder without a valid ``exercise.toml`` (see ``load``), or two
            exercises with the same ``order``.
    """
    found = [load(p) for p in sorted(Path(root).iterdir()) if p.is_dir() and p.name[0] not in "_."]
    orders = [e.order for e in found]
    clashes = sorted({o for o in orders if orders.count(o) > 1})
    if clashes:
        raise ValueError(f"{root}: two exercises share order {clashes}")
    return {e.name: e for e in sorted(found, key=lambda e: e.order)}


EXERCISES = discover()

ALL_FUNCTIONS = sorted({f for e in EXERCISES.values() for f in e.functions})


def find(name: str):
    """The ``Exercise`` called ``name``.

    Raises:
        KeyError: with the list of known exercises.
    """
    try:
        return EXERCISES[name]
    except KeyError:
        raise KeyError(f"unknown exercise {name!r}; known: {', '.join(EXERCISES)}") from None
