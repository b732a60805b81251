"""The text names only what exists: a page (README.md, docs/*.md) or a docstring or comment in the
code that names a module, function, class or file of this repository that was renamed, moved or
removed sends the next reader looking for nothing. And no page or docstring cites a tracker number
("Issue 29 ...", "#35"): it names the behaviour instead.

What counts as a name of this repository (everything else, a bare word above all, is prose: a bare
``grade_class`` may be a field, an option or another project's name; write ``class_run.grade_class``
to have it checked):

* a path: a markdown link's target (with its ``#anchor``, a heading of that page); in backticks,
  a path under a top folder of the tree (``autograder/``, ``tests/``, ``scripts/`` ...), a ``.py``
  file relative to the package (``sandbox/needs.py``), a ``.py`` file's bare name (``pool.py``), or
  a top folder or subpackage (``cluster/``); in a docstring, comment or code block, a path under a
  top folder also without backticks. A path may end in ``:line`` (the file has that line) or
  ``::test`` (a pytest id: the file defines that test);
* a dotted name in backticks whose first part is a module, package or class of the repository
  (``class_run.grade_class``, ``autograder.sandbox.limits.Limits``, ``Limits.hung_cpu_seconds``),
  or, when the first part is no importable module, whose later part is a class or function
  defined here (``old_module.Limits``: ``Limits`` is ours, so ``old_module`` must be too).

Names are resolved by reading the tree's Python files with ``ast`` (no import, so no side effect
and no optional dependency): a module's names are what it defines or imports at top level, a
package's also its submodules, a class's its methods, class attributes and the ``self.x`` its
methods assign, with those of its bases in the repository; a class with a base from elsewhere
accepts any attribute (it may be inherited).

One test per area: the pages (README.md and docs/), and the docstrings and comments of each code
folder; a failure lists every finding of its area as ``file:line: problem``.
"""
import ast
import importlib.util
import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest

from autograder.core.registry import PROJECT_ROOT

ROOT = PROJECT_ROOT
SKIP_DIRS = {".git", ".venv", "__pycache__", ".cache", "node_modules", ".ruff_cache", ".mypy_cache", ".pytest_cache"}
CODE_AREAS = ("autograder", "exercises", "benchmarks", "scripts", "tests")

# Paths that look like ours and are not, each with why (keep this short: fix the text instead).
NOT_OURS = {
    "font_manager.py",  # matplotlib's, whose date the font list cache compares with
    "course/nbgrader_config.py",  # the demo's nbgrader course folder, not the package's course/
    "exercises/layer_norm/",  # what authoring.md's example command writes
}

# Files a page names that a run makes, not the tree: they are not checked as paths.
FILE_SUFFIXES = (".json", ".csv", ".html", ".db", ".zip", ".ipynb", ".log", ".prof", ".txt", ".toml", ".cfg",
                 ".yaml", ".yml", ".ini", ".sqlite", ".pem", ".key", ".tar", ".gz", ".png", ".svg", ".sbatch",
                 ".out", ".err")
# Folders whose paths are checked also where a comment or code block names them without backticks.
CODE_FOLDERS = ("autograder", "tests", "benchmarks", "scripts", "exercises", "docs", ".ci")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]+$")  # exercises/NAME/: a segment the reader fills in


# -- the tree -------------------------------------------------------------------------------------

def _walk(folder):
    for path in sorted(folder.iterdir()):
        if path.name in SKIP_DIRS or path.name.endswith(".egg-info"):
            continue
        if path.is_dir():
            yield from _walk(path)
        else:
            yield path


@cache
def tree_files():
    """Every file of the tree, as paths relative to the root (``str``, with ``/``): what git tracks or
    would (not what it ignores, such as a run's ``graded/``, so a page resolves as it will in a fresh
    clone); every file but caches when the tree is no git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, check=True, timeout=60).stdout.decode("utf-8")
    except (OSError, subprocess.SubprocessError):
        return frozenset(p.relative_to(ROOT).as_posix() for p in _walk(ROOT))
    return frozenset(f for f in listed.split("\0") if f and (ROOT / f).is_file())


@cache
def tree_dirs():
    return frozenset(d for f in tree_files() for d in _parents(f))


def _parents(rel):
    parts = rel.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


@cache
def top_folders():
    return frozenset(f.split("/")[0] for f in tree_files() if "/" in f)


@cache
def subpackages():
    """The package's subpackages (``grading``, ``sandbox`` ...), which the text names relative to it."""
    return frozenset(d.split("/")[1] for d in tree_dirs() if d.startswith("autograder/") and d.count("/") == 1)


@cache
def basenames():
    return frozenset(f.rsplit("/", 1)[-1] for f in tree_files())


# -- Python names, read with ast ----------------------------------------------------------------------

class Scope:
    """A module's or class's names: ``names`` maps a name to what it is (a ``Scope`` when it is a
    module or class of ours, a class's name when imported from one of our modules, else None)."""

    def __init__(self, kind, qualname):
        self.kind, self.qualname, self.names, self.open = kind, qualname, {}, False
        self.bases = []


def _module_name(rel):
    parts = rel[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _read_class(node, qualname):
    scope = Scope("class", qualname)
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        scope.bases.append(name)
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.names[item.name] = None
            for sub in _statements(item):
                for target in _targets(sub):
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == "self"):
                        scope.names[target.attr] = None
        elif isinstance(item, ast.ClassDef):
            scope.names[item.name] = _read_class(item, f"{qualname}.{item.name}")
        else:
            for target in _targets(item):
                for name in _bound(target):
                    scope.names[name] = None
    return scope


def _targets(node):
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _bound(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound(elt)]
    return []


@cache
def _parsed(path):
    """The module's ``ast``, or None when it is not Python (a template)."""
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return None


def _statements(node):
    """Every statement under ``node`` (not its expressions: a tenth of the nodes, so quick)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()) or ():
            if isinstance(child, ast.AST):
                yield child
                yield from _statements(child)


def _read_top(node, scope, package, classes, name):
    """Record what one top-level statement of module ``name`` binds in ``scope``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope.names[node.name] = None
        if node.name == "__getattr__":  # names made on first use
            scope.open = True
    elif isinstance(node, ast.ClassDef):
        cls = scope.names[node.name] = _read_class(node, f"{name}.{node.name}")
        classes.setdefault(node.name, []).append(cls)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        source = ""
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - (node.level - 1)] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            if alias.name == "*":
                scope.open = True
                continue
            bound = alias.asname or alias.name.split(".")[0]
            scope.names[bound] = ("import", f"{source}.{alias.name}" if source else alias.name)
    elif isinstance(node, (ast.If, ast.Try)):  # names bound either way
        for sub in ast.walk(node):
            for target in _targets(sub):
                for n in _bound(target):
                    scope.names.setdefault(n, None)
            if isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                scope.names.setdefault(sub.name, None)
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                for alias in sub.names:
                    scope.names.setdefault(alias.asname or alias.name.split(".")[0], None)
    else:
        for target in _targets(node):
            for n in _bound(target):
                scope.names[n] = None


@cache
def python_index():
    """``(modules, classes, assigned)``: ``{dotted module name: Scope}`` for every ``.py`` file of the
    tree (``autograder.grading.notebook``, ``benchmarks.vs_nbgrader`` ...), ``{class name: [Scope]}``
    for every class defined at a module's top level, and the ``(name, attribute)`` pairs the code
    assigns anywhere (``run.secret = ...``)."""
    modules, classes, assigned = {}, {}, set()
    for rel in sorted(f for f in tree_files() if f.endswith(".py")):
        name = _module_name(rel)
        scope = modules[name] = Scope("module", name)
        tree = _parsed(ROOT / rel)
        if tree is None:  # a template or a deliberately broken file: its names are unknown
            scope.open = True
            continue
        package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
        for node in tree.body:
            _read_top(node, scope, package, classes, name)
        for node in _statements(tree):  # run.secret = ...: an attribute the code gives a name
            for target in _targets(node):
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    assigned.add((target.value.id, target.attr))
    for name in list(modules):  # a package's submodules are its attributes
        parent, _, last = name.rpartition(".")
        if parent in modules:
            modules[parent].names.setdefault(last, modules[name])
    return modules, classes, frozenset(assigned)


def _resolve_import(target):
    """What ``from x import y`` bound: our module or class, or None (not ours, or unknown)."""
    modules, *_ = python_index()
    if target in modules:
        return modules[target]
    source, _, name = target.rpartition(".")
    if source in modules:
        value = modules[source].names.get(name)
        if isinstance(value, tuple):
            return _resolve_import(value[1]) if value[1] != target else None
        return value if isinstance(value, Scope) else None
    return None


def _class_has(cls, attr, seen=()):
    if attr in cls.names:
        return True
    _, classes, _ = python_index()
    for base in cls.bases:
        if base in ("object", "Protocol", "Generic"):
            continue
        ours = [c for c in classes.get(base, []) if c not in seen]
        if not ours:
            return True  # a base from elsewhere may give it
        if any(_class_has(c, attr, (*seen, cls)) for c in ours):
            return True
    return False


def _lookup(scope, attr):
    """``(found, what)``: whether ``scope`` has ``attr``, and the module or class it is when ours."""
    if scope.kind == "class":
        value = scope.names.get(attr)
        return _class_has(scope, attr), value if isinstance(value, Scope) else None
    if attr not in scope.names:
        return scope.open, None
    value = scope.names[attr]
    if isinstance(value, tuple):
        return True, _resolve_import(value[1])
    return True, value


def resolves(parts):
    """Whether a dotted name (a list of its parts) names something of ours: some module, package or
    class named by its first part (or its first parts, for a dotted module name) has the rest."""
    modules, classes, _ = python_index()
    starts = []
    for i in range(len(parts), 0, -1):
        full = ".".join(parts[:i])
        if full in modules:
            starts.append((modules[full], i))
    starts += [(m, 1) for name, m in modules.items() if name.rsplit(".", 1)[-1] == parts[0]]
    starts += [(c, 1) for c in classes.get(parts[0], [])]
    if parts[0].islower():  # a variable named after its class: limits (Limits), result (NotebookResult)
        camel = "".join(w.title() for w in parts[0].split("_"))
        starts += [(c, 1) for name, cs in classes.items() if name.endswith(camel) for c in cs]
    if len(parts) == 2 and tuple(parts) in python_index()[2]:
        return True
    for scope, used in starts:
        ok = True
        for attr in parts[used:]:
            if scope is None:  # a function or value of ours: what follows is not checked
                break
            found, scope = _lookup(scope, attr)
            if not found:
                ok = False
                break
        if ok:
            return True
    return False


@cache
def our_top_names():
    """Module, class and function names defined here (the last part of a dotted module name too)."""
    modules, classes, _ = python_index()
    names = {n.rsplit(".", 1)[-1] for n in modules} | set(classes)
    for scope in modules.values():
        names |= {k for k, v in scope.names.items() if v is None or (isinstance(v, Scope) and v.kind == "class")}
    return frozenset(n for n in names if not n.startswith("__"))


@cache
def _importable(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


# Names that are another project's under a short alias, or an instance (``self.x``), never a module of ours.
ALIASES = {"np", "plt", "pd", "nb", "mpl", "self", "cls"}


def is_ours(parts):
    """Whether a dotted name claims to be of this repository (so must resolve)."""
    modules, classes, _ = python_index()
    first = parts[0]
    if first in ALIASES:
        return False
    if first in classes or any(name == first or name.endswith("." + first) for name in modules):
        return True
    if _importable(first):
        return False
    # a stale module or a class's old home: a later part is a class or function defined here
    return any(p in our_top_names() and (p[0].isupper() or "_" in p) for p in parts[1:])


# -- finding the names in a text ------------------------------------------------------------------------

FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
BARE_PATH = None  # built from the tree's top folders on first use
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
LINE = re.compile(r"^(?P<path>.+?\.\w+)(?::(?P<line>\d+)(?:-\d+)?|::(?P<test>[\w:\[\]-]+))?$")


def _bare_path_pattern():
    tops = "|".join(re.escape(t) for t in sorted(top_folders() & set(CODE_FOLDERS)))
    return re.compile(rf"(?<![\w/.~$-])(?:{tops})/[\w./:\[\]-]*[\w/]")


def _tokens(span):
    for token in span.split():
        token = token.strip("()[],;'\"!?")
        token = re.sub(r"[.:]+$", "", token) if not token.endswith("/") else token
        if token:
            yield token


def check_path(token, backticked):
    """A finding (str) for a path that does not exist, None when it does or is not a path of ours."""
    if any(c in token for c in "<>*{}$~=") or "..." in token or token.startswith(("/", "http", "-")):
        return None
    match = LINE.match(token)
    path, line, test = (match["path"], match["line"], match["test"]) if match else (token, None, None)
    head = path.split("/")[0]
    if path in NOT_OURS or any(PLACEHOLDER.match(segment) for segment in path.split("/")):
        return None
    if not backticked and head not in CODE_FOLDERS:
        return None
    if "/" not in path:
        if not backticked or not re.fullmatch(r"[\w.-]+\.(?:py|md|sh)", path) or path.startswith("."):
            return None
        if path not in basenames():
            return f"no file named {path}"
        candidates = [f for f in tree_files() if f.rsplit("/", 1)[-1] == path]
    elif head in top_folders() or head == "autograder":
        candidates = [path]
    elif backticked and head in subpackages() and (path.endswith(".py") or path.endswith("/")):
        candidates = [f"autograder/{path}"]
    else:
        return None
    if path.endswith(FILE_SUFFIXES) and not any(c.rstrip("/") in tree_files() for c in candidates):
        if head not in ("autograder", "exercises", "scripts", "benchmarks", "tests", "docs"):
            return None  # a file a run writes under source/, assignments/ ... : not the tree's
    existing = [c for c in candidates if c.rstrip("/") in tree_files() or c.rstrip("/") in tree_dirs()]
    if not existing:
        return f"no such path: {path}"
    if line is not None:
        if not any(len((ROOT / c).read_text(encoding="utf-8").splitlines()) >= int(line) for c in existing):
            return f"{path} has no line {line}"
    if test is not None:
        name = test.split("[")[0].split("::")[-1]
        text = "".join((ROOT / c).read_text(encoding="utf-8") for c in existing)
        if not re.search(rf"^\s*(?:async\s+)?def {re.escape(name)}\(|^\s*class {re.escape(name)}\b", text, re.M):
            return f"{path} defines no {name}"
    return None


def check_dotted(token):
    if token.endswith(FILE_SUFFIXES + (".py", ".md", ".sh")) or not DOTTED.fullmatch(token):
        return None
    parts = token.split(".")
    if not is_ours(parts) or resolves(parts):
        return None
    return f"no such name: {token}"


def _slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def check_link(target, page):
    if re.match(r"^[a-z][\w+.-]*:", target) or target.startswith("//"):
        return None  # http:, mailto: ...
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    try:
        rel = file.relative_to(ROOT).as_posix()
    except ValueError:
        return f"link outside the repository: {target}"
    if path and rel not in tree_files() and rel not in tree_dirs():
        return f"link to a missing file: {target}"
    if anchor and file.suffix == ".md":
        headings = re.findall(r"^#+\s+(.*)$", file.read_text(encoding="utf-8"), re.M)
        if anchor not in {_slug(h) for h in headings}:
            return f"link to a missing heading: {target}"
    return None


def names_in_text(text, page=None):
    """Every finding in a text (a page, or a docstring or comment of the code): ``[message]``."""
    global BARE_PATH
    BARE_PATH = BARE_PATH or _bare_path_pattern()
    found = []
    fences = FENCE.findall(text)  # a code block is read as prose: its paths may be another machine's
    text = FENCE.sub("\n", text)
    for match in SPAN.finditer(text):
        for token in _tokens(match[2]):
            problem = check_path(token, backticked=True) if "/" in token or token.endswith(
                (".py", ".md", ".sh")) else check_dotted(token)
            if problem:
                found.append(problem)
    prose = SPAN.sub(" ", text) + "\n".join(fences)
    for match in BARE_PATH.finditer(prose):
        if prose[match.end():match.end() + 1] in ("*", "<", "{", "$"):
            continue  # a pattern (tests/nbgrader_glue/test_hub_*.py), not a path
        problem = check_path(match[0].rstrip(".:"), backticked=False)
        if problem:
            found.append(problem)
    if page is not None:
        for target in LINK.findall(text):
            problem = check_link(target, page)
            if problem:
                found.append(problem)
    return found


# -- where the text is ---------------------------------------------------------------------------------

def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@cache
def code_texts(path):
    """``[(line, text)]``: the docstrings and comments of a ``.py`` file, the comments of a shell script."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".sh" or (path.suffix == "" and source.startswith("#!")):
        return [(i, line.split("#", 1)[1]) for i, line in enumerate(source.splitlines(), 1)
                if line.lstrip().startswith("#") and not line.startswith("#!")]
    texts = []
    tree = _parsed(path)
    if tree is None:
        return texts
    for node in [tree, *_statements(tree)]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                texts.append((node.body[0].lineno, doc))
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            texts.append((tok.start[0], tok.string[1:]))
    return texts


def code_files(area):
    return [ROOT / f for f in sorted(tree_files()) if f.startswith(area + "/")
            and (f.endswith((".py", ".sh")) or f.startswith("scripts/") and "." not in f.rsplit("/", 1)[-1])]


def findings(area):
    """``["file:line: message"]`` for one area: ``docs`` (README.md and docs/*.md) or a code folder."""
    out = []
    if area == "docs":
        for page in pages():
            text = page.read_text(encoding="utf-8")
            for problem in names_in_text(text, page):
                name = re.split(r" has no | defines no ", problem)[0].split()[-1]
                line = text[:max(text.find(name), 0)].count("\n") + 1
                out.append(f"{page.relative_to(ROOT)}:{line}: {problem}")
        return out
    for path in code_files(area):
        if path == Path(__file__):
            continue  # its docstring describes names that do not exist, on purpose
        for line, text in code_texts(path):
            for problem in names_in_text(text):
                out.append(f"{path.relative_to(ROOT)}:{line}: {problem}")
    return out


# Another project's tracker, cited as the source of a workaround ("bubblewrap issue 284"), is a source.
UPSTREAM = ("bubblewrap", "runc", "podman", "nbgrader", "jupyterhub", "pytest", "numpy", "matplotlib", "tiktoken",
            "nbclient", "nbformat", "copydetect", "jsonschema", "slurm", "cpython", "python")
TRACKER = re.compile(r"\b[Ii]ssues? ?#?\d+[a-z]?\b|(?<![\w&/])#\d+\b|\bissue-\d+[a-z]?\b")


def tracker_numbers(area):
    out = []
    if area == "docs":
        sources = [(page, list(enumerate(page.read_text(encoding="utf-8").splitlines(), 1))) for page in pages()]
    else:
        sources = [(path, code_texts(path)) for path in code_files(area) if path != Path(__file__)]
    for path, texts in sources:
        for line, text in texts:
            prose = SPAN.sub(" ", text)
            for match in TRACKER.finditer(prose):
                if re.findall(r"\w+", prose[:match.start()])[-1:] not in ([w] for w in UPSTREAM):
                    out.append(f"{path.relative_to(ROOT)}:{line}: {match[0]!r}")
    return out


@pytest.mark.parametrize("area", ("docs", *CODE_AREAS))
def test_the_text_names_only_what_exists(area):
    found = findings(area)
    assert not found, f"{len(found)} names that do not exist:\n" + "\n".join(found)


@pytest.mark.parametrize("area", ("docs", *CODE_AREAS))
def test_the_text_names_behaviours_not_tracker_numbers(area):
    found = tracker_numbers(area)
    assert not found, f"{len(found)} tracker numbers:\n" + "\n".join(found)


def test_the_checker_finds_what_it_is_meant_to(tmp_path):
    """Each kind of name, one that exists and one that does not (the names are built, so this file
    itself names nothing missing)."""
    gone = "no_such_" + "module"
    page = ROOT / "docs" / "development.md"
    assert names_in_text("`autograder/grading/notebook.py`, `sandbox/needs.py`, `pool.py`, `cluster/`") == []
    assert names_in_text(f"`autograder/grading/{gone}.py`") == [f"no such path: autograder/grading/{gone}.py"]
    assert names_in_text(f"see tests/grading/{gone}.py.") == [f"no such path: tests/grading/{gone}.py"]
    assert names_in_text(f"`{gone}.py`") == [f"no file named {gone}.py"]
    assert names_in_text("`grading/notebook.py:1`") == []
    assert names_in_text("`grading/notebook.py:999999`") == ["grading/notebook.py has no line 999999"]
    assert names_in_text("`tests/project/test_doc_names.py::test_the_checker_finds_what_it_is_meant_to`") == []
    assert names_in_text(f"`tests/project/test_doc_names.py::test_{gone}`") == [
        f"tests/project/test_doc_names.py defines no test_{gone}"]
    assert names_in_text("``class_run.grade_class``, `Limits.hung_cpu_seconds`, "
                         "`autograder.sandbox.limits.Limits`, `notebook.STAGES`") == []
    assert names_in_text(f"`class_run.{gone}`") == [f"no such name: class_run.{gone}"]
    assert names_in_text(f"`{gone}.Limits`") == [f"no such name: {gone}.Limits"]  # an old home of a class
    assert names_in_text(f"`Limits.{gone}`") == [f"no such name: Limits.{gone}"]
    assert names_in_text("`json.loads`, `np.random`, `results.json`, `graded/ada/report.html`") == []
    assert names_in_text("[tiers](development.md#the-slow-tier)", page) == []
    assert names_in_text(f"[x]({gone}.md)", page) == [f"link to a missing file: {gone}.md"]
    assert names_in_text(f"[x](development.md#{gone})", page) == [f"link to a missing heading: development.md#{gone}"]
    assert TRACKER.findall("Issue 29 asked; see #35 and issue-35e; a grid of 3 x 4") == ["Issue 29", "#35",
                                                                                         "issue-35e"]
