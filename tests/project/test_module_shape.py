"""The package's shape: no import circles between its modules, and the small pieces that
replaced shared internals (the worker pool, one subreaper).

The import graph is read statically (``ast``) from every module under ``autograder/``, with
imports inside functions counted too: a lazy import still ties two modules together.
"""
import ast
import concurrent.futures as cf
import os

import pytest

from autograder.core.registry import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "autograder"


def _module_name(path, root):
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package=PACKAGE):
    """``{module: set of autograder modules it imports}`` for every ``.py`` file under ``package``.

    ``from .x import y`` counts as importing ``x.y`` when that is a module, else ``x``; relative
    imports are resolved against the importing module's package.
    """
    files = {_module_name(p, package.parent): p for p in sorted(package.rglob("*.py"))}
    graph = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[:len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                else:
                    base = (node.module or "").split(".")
                target = ".".join(base)
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in files else target)
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def import_cycles(graph):
    """Strongly connected components of more than one module (Tarjan), each a sorted list."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_cycle_finder_finds_direct_and_longer_loops():
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}, "g": set()}
    assert sorted(import_cycles(graph)) == [["a", "b"], ["c", "d", "e"]]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_import_graph_resolves_relative_and_lazy_imports(tmp_path):
    pkg = tmp_path / "autograder"
    (pkg / "child").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "child" / "__init__.py").write_text("")
    (pkg / "child" / "wire.py").write_text("from . import probes\n")
    (pkg / "child" / "probes.py").write_text("")
    (pkg / "grade.py").write_text("from .child import wire\ndef f():\n    from . import resume\n")
    (pkg / "resume.py").write_text("import autograder.grade\n")
    graph = import_graph(pkg)
    assert graph["autograder.grade"] == {"autograder.child.wire", "autograder.resume"}
    assert graph["autograder.child.wire"] == {"autograder.child.probes"}
    assert import_cycles(graph) == [["autograder.grade", "autograder.resume"]]


def test_no_two_autograder_modules_import_each_other_directly_or_in_a_loop():
    graph = import_graph()
    assert "autograder.grading.notebook" in graph and "autograder.child.server" in graph  # the walk saw the package
    assert import_cycles(graph) == []


# The top of the package: the command line and the one module exercises import. Everything else is in a
# stage package.
TOP_MODULES = {"__init__.py", "__main__.py", "cli.py", "authoring.py"}
STAGES = {"core", "course", "checks", "sandbox", "child", "submission", "grading", "reports", "nbgrader_glue",
          "gradescope", "demo", "cluster", "lms"}


def test_the_package_top_holds_the_entry_points_only():
    top = {p.name for p in PACKAGE.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert top == TOP_MODULES
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == STAGES


MAX_LINES = 400


def test_no_grader_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts
            for n in [len(p.read_text(encoding="utf-8").splitlines())] if n > MAX_LINES}
    assert long == {}


def test_one_job_per_module():
    graph = import_graph()
    # the build reads check files without the grading engine
    assert "autograder.grading.notebook" not in graph["autograder.course.build"]
    # the container's runtime and the zip builder are apart; the runtime never needs the builder
    assert "autograder.gradescope.bundle" not in graph["autograder.gradescope.container"]
    # one subreaper, in one module
    defining = [p for p in PACKAGE.rglob("*.py")
                if any(isinstance(n, ast.FunctionDef) and "subreaper" in n.name
                       for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))]
    assert [p.name for p in defining] == ["subreaper.py"]
    # nothing reads another object's private attributes through getattr (numpy's
    # ``__array_finalize__``, where an array subclass copies its own class's attributes from
    # the array it was made from, is the one protocol that must)
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        finalize = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "__array_finalize__"
                    for n in ast.walk(f)}
        for node in ast.walk(tree):
            if id(node) in finalize:
                continue
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) > 1 \
                    and getattr(node.args[0], "id", None) != "self":  # its own attributes are fine
                arg = node.args[1]
                assert not (isinstance(arg, ast.Constant) and str(arg.value).startswith("_")
                            and not str(arg.value).startswith("__")), f"{path.name}: getattr(..., {arg.value!r})"


# -- the worker pool -----------------------------------------------------------------------------------
def test_the_pool_names_the_job_whose_worker_died_and_how():
    from autograder.grading.pool import WorkerPool
    pool = WorkerPool(1)
    try:
        assert pool.submit("fine", pow, 2, 10).result(timeout=120) == 1024
        dying = pool.submit("dies", os._exit, 7)
        with pytest.raises(cf.process.BrokenProcessPool):
            dying.result(timeout=120)
    finally:
        pool.shutdown()
    [(pid, last)] = pool.last_started().items()
    assert last == "dies"
    codes = pool.exit_codes()
    assert codes[pid] == 7 and None not in codes.values()


def test_more_announcements_than_a_pipe_holds_stop_no_worker():
    # Each job a worker starts is announced through a pipe (about 2,700 fit): the pool reads them
    # as they come, so a class of 10,000 notebooks is not stopped at its 2,730th.
    from autograder.grading.pool import WorkerPool
    pool = WorkerPool(2)
    try:
        futures = [pool.submit(f"notebook {k}", pow, k, 2) for k in range(5000)]
        assert [f.result(timeout=120) for f in futures] == [k * k for k in range(5000)]
    finally:
        pool.shutdown()
    assert set(pool.last_started().values()) <= {f"notebook {k}" for k in range(5000)}
    assert 1 <= len(pool.last_started()) <= 2  # one entry a worker that ran a job


def test_pool_workers_run_with_their_own_memory_limit():
    import resource

    from autograder.grading.pool import WorkerPool
    pool = WorkerPool(1, memory_bytes=3 << 30)
    try:
        soft, _ = pool.submit("limit", resource.getrlimit, resource.RLIMIT_AS).result(timeout=120)
    finally:
        pool.shutdown()
    assert soft == 3 << 30
