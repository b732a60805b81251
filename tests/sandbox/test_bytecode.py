"""The sandboxed child's code is compiled once, by the grader, where the sandbox reads it: a sandbox
(read-only everywhere) would otherwise compile it from source each time it starts, under
``PYTHONDONTWRITEBYTECODE=1`` in a fresh clone."""
import importlib.util
import os
import shutil
import subprocess
import sys

from autograder.sandbox.bubblewrap import Sandbox
from autograder.sandbox.bytecode import compile_child
from autograder.sandbox.limits import Limits
from autograder.sandbox.policy import CHILD_PACKAGE, child_env
from autograder.sandbox.process import interpreter

IMPORT_ALL = "import sys; sys.path.insert(0, {parent!r}); " + "; ".join(
    f"import child.{p.stem}" for p in sorted(CHILD_PACKAGE.glob("*.py")) if p.stem != "__init__")


def _compiled_from_source(stderr: str, folder) -> list:
    """The modules of ``folder`` that ``python -v`` says it compiled from their source."""
    return [line for line in stderr.splitlines()
            if line.startswith("# code object from") and str(folder) in line and not line.rstrip("'").endswith(".pyc")]


def test_compile_child_writes_bytecode_the_import_then_uses(tmp_path):
    copy = tmp_path / "child"
    shutil.copytree(CHILD_PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert compile_child(copy) is True
    for source in copy.glob("*.py"):
        assert os.path.isfile(importlib.util.cache_from_source(str(source))), source.name
    env = {**child_env(), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-I", "-v", "-c", IMPORT_ALL.format(parent=str(tmp_path))],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "# code object from" in proc.stderr  # -v reports how each module was loaded
    assert _compiled_from_source(proc.stderr, copy) == []


def test_a_sandbox_compiles_none_of_the_childs_code():
    assert compile_child() is True
    sandbox = Sandbox(Limits())
    try:
        proc = subprocess.Popen(sandbox.command([interpreter(), "-I", "-v", "-c",
                                                 IMPORT_ALL.format(parent=str(CHILD_PACKAGE.parent))]),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                text=True, **sandbox.popen_kwargs(()))
        sandbox.started()
        _, err = proc.communicate(timeout=120)
    finally:
        sandbox.close()
    assert proc.returncode == 0, err[-2000:]
    loaded = [line for line in err.splitlines() if line.startswith("# code object from") and str(CHILD_PACKAGE) in line]
    assert len(loaded) >= len(list(CHILD_PACKAGE.glob("*.py")))  # each of its modules, read in the sandbox
    assert _compiled_from_source(err, CHILD_PACKAGE) == []


def test_caches_compile_the_graders_own_packages_too():
    from autograder.core.registry import PROJECT_ROOT
    from autograder.sandbox.bytecode import compile_project
    assert compile_project() is True
    for module in ("autograder/cli.py", "autograder/grading/class_run.py", "exercises/attention/checks.py"):
        source = PROJECT_ROOT / module
        assert source.is_file() and os.path.isfile(importlib.util.cache_from_source(str(source))), module
