"""The packages of ``autograder/`` form layers that only point down, and private names stay home.

``LAYERS`` lists the packages from the bottom up; a module may import its own package and any
package of a lower layer, never one of its own layer or above. The bottom, ``core``, is the
shared vocabulary (the registry of exercises and the project's paths, ``Problem``,
``CheckResult``, ``NotebookResult``, ``Job``, the escaping of student text) and imports nothing
else of the grader. A name starting with one underscore is used only in the module that defines
it: no other module imports it or reads it as ``module._name``.

The import graph is read statically (``ast``, imports inside functions included), by
``test_module_shape.import_graph``.
"""
import ast

from tests.project.test_module_shape import PACKAGE, import_graph

# Bottom up. The top modules (``authoring``, ``cli``, ``__main__``) are the last two layers.
LAYERS = (
    ("core",),           # the shared vocabulary: imports nothing of the grader
    ("child",),          # runs inside the sandbox: standard library and numpy only
    ("sandbox",),        # confinement and limits of a child
    ("submission",),     # one student's code, in a child or in this process
    ("checks",),         # the hidden checks and the pytest session that runs them
    ("course",),         # the build of notebooks, solutions and pages from the exercise folders
    ("reports",),        # what is written for students and instructors
    ("nbgrader_glue",),  # nbgrader's gradebook, feedback and in-kernel grading
    ("lms",),            # LMS grade files
    ("grading",),        # one notebook, then the class run that writes all of the above
    ("cluster", "gradescope"),
    ("demo",),
    ("authoring", "cli"),  # the one module exercises import; the command line
    ("__main__",),
)


def layer_of(module):
    """Index in ``LAYERS`` of ``autograder.<x>...``'s ``x``; ``None`` for ``autograder`` itself."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    for i, names in enumerate(LAYERS):
        if parts[1] in names:
            return i
    raise AssertionError(f"{module}: its package is in no layer of LAYERS")


def upward_imports(graph):
    """``[(importer, imported)]`` where the imported module's package is not in a lower layer
    than the importer's (its own package is fine)."""
    found = []
    for module, targets in sorted(graph.items()):
        here = layer_of(module)
        for target in sorted(targets):
            there = layer_of(target)
            if here is None or there is None or module.split(".")[1] == target.split(".")[1]:
                continue
            if there >= here:
                found.append((module, target))
    return found


def _module_aliases(tree, modules):
    """``{local name: autograder module}`` bound by the imports of ``tree``."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in modules:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in modules:
                    aliases[a.asname or a.name] = full
    return aliases


def borrowed_private_names(package=PACKAGE):
    """``[(module, "other.module._name")]``: one underscore names a module takes from another
    autograder module, by ``from other import _name`` or as ``other._name``."""
    files = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    private = lambda name: name.startswith("_") and not name.startswith("__")  # noqa: E731
    found = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("autograder") \
                    and node.level == 0:
                found += [(module, f"{node.module}.{a.name}") for a in node.names if private(a.name)]
        aliases = _module_aliases(tree, files)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and private(node.attr) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases:
                found.append((module, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(set(found))


def test_every_package_has_a_layer_and_the_top_modules_are_the_last():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    top = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    listed = {name for names in LAYERS for name in names}
    assert listed == packages | top
    assert set(LAYERS[-2]) | set(LAYERS[-1]) == top


def test_no_import_points_up_or_sideways():
    graph = import_graph()
    assert "autograder.grading.class_run" in graph and "autograder.core.vocabulary" in graph  # the walk saw them
    assert upward_imports(graph) == []


def test_the_bottom_imports_nothing_of_the_grader_outside_itself():
    graph = import_graph()
    outside = {(m, t) for m, ts in graph.items() if m.startswith("autograder.core") for t in ts
               if not t.startswith("autograder.core")}
    assert outside == set()


def test_an_upward_or_sideways_import_is_found(tmp_path):
    """The check itself can fail: a fake package tree where checks imports grading (up),
    cluster imports gradescope (same layer) and reports imports core (down)."""
    pkg = tmp_path / "autograder"
    for name in ("core", "checks", "grading", "reports", "cluster", "gradescope"):
        (pkg / name).mkdir(parents=True)
        (pkg / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "vocabulary.py").write_text("")
    (pkg / "grading" / "class_run.py").write_text("")
    (pkg / "gradescope" / "bundle.py").write_text("")
    (pkg / "checks" / "plugin.py").write_text("def f():\n    from autograder.grading import class_run\n")
    (pkg / "cluster" / "merge.py").write_text("from autograder.gradescope.bundle import x\n")
    (pkg / "reports" / "console.py").write_text("from autograder.core.vocabulary import Problem\n")
    found = upward_imports(import_graph(pkg))
    assert found == [("autograder.checks.plugin", "autograder.grading.class_run"),
                     ("autograder.cluster.merge", "autograder.gradescope.bundle")]


def test_private_names_stay_in_the_module_that_defines_them():
    assert borrowed_private_names() == []


def test_a_borrowed_private_name_is_found(tmp_path):
    pkg = tmp_path / "autograder"
    (pkg / "grading").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "grading" / "__init__.py").write_text("")
    (pkg / "grading" / "identical.py").write_text("def _path():\n    pass\n\n\ndef _own():\n    _path()\n")
    (pkg / "grading" / "outputs.py").write_text(
        "from autograder.grading import identical\nfrom autograder.grading.identical import _own\n\n\n"
        "def f():\n    return identical._path(), identical.__name__, _own\n")
    assert borrowed_private_names(pkg) == [("autograder.grading.outputs", "autograder.grading.identical._own"),
                                           ("autograder.grading.outputs", "autograder.grading.identical._path")]

