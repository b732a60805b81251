"""Which files are the grader: the resume fingerprint and the Gradescope bundle take the package's modules
and declared data, and nothing else (``autograder/grading/grader_files.py``)."""
import shutil
import sys

import pytest

from autograder.core.registry import PROJECT_ROOT, find
from autograder.gradescope.bundle import bundle_files
from autograder.grading import grader_files, resume

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the grader package (modules and data, no caches) to change."""
    copy = tmp_path / "autograder"
    shutil.copytree(grader_files.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_declared_data_is_pyprojects_package_data():
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert tuple(pyproject["tool"]["setuptools"]["package-data"]["autograder"]) == grader_files.DECLARED_DATA


def test_every_module_is_a_grader_file_and_strays_are_not(package_copy):
    (package_copy / "grading" / "notebook.py.orig").write_text("left over from a merge\n")
    (package_copy / "sandbox" / "__pycache__").mkdir()
    (package_copy / "sandbox" / "__pycache__" / "policy.cpython-311.pyc").write_bytes(b"\0")
    (package_copy / "checks" / "notes.txt").write_text("an editor's scratch file\n")
    files = grader_files.grader_files(package_copy)
    modules = {p.relative_to(package_copy).as_posix() for p in package_copy.rglob("*.py")
               if "__pycache__" not in p.parts and p.relative_to(package_copy).parts[0] != "demo"}
    assert modules - set(files) == set()   # every module outside the demo, without a hand-kept list
    assert "checks/pytest.ini" in files and "checks/seeds.py" in files and "sandbox/policy.py" in files
    assert not any(name.endswith((".orig", ".pyc", ".txt")) for name in files)
    assert not any(name.startswith(("demo/", "gradescope/files/")) for name in files)


@pytest.mark.parametrize("module", ["checks/seeds.py", "sandbox/policy.py", "sandbox/process.py",
                                    "submission/digest.py", "checks/pytest.ini"])
def test_a_change_to_any_grader_file_changes_the_resume_fingerprint(package_copy, module):
    before = resume.grader_version(package_copy)
    assert resume.grader_version(package_copy) == before   # the same files give the same fingerprint
    path = package_copy / module
    path.write_bytes(path.read_bytes() + b"\n# changed\n")
    assert resume.grader_version(package_copy) != before


def test_a_new_module_changes_the_resume_fingerprint(package_copy):
    before = resume.grader_version(package_copy)
    (package_copy / "grading" / "new_stage.py").write_text('"""A stage added later."""\n')
    assert resume.grader_version(package_copy) != before


def test_the_gradescope_bundle_carries_grader_files_only():
    inside = {name.removeprefix("project/autograder/") for name in bundle_files(find("tokens"))
              if name.startswith("project/autograder/")}
    assert inside == set(grader_files.grader_files())
    assert all(name.endswith(".py") or name == "checks/pytest.ini" for name in inside)
