"""Which files make up the grader: the package's Python modules and its declared data.

One answer for the two places that need it: the resume fingerprint (``grading/resume.py``: a change to any
of these files regrades every notebook) and the Gradescope bundle (``gradescope/bundle.py``: the
zip carries these files and nothing else, so no editor backup, ``.orig`` or cache file ships).
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # autograder/

# The package's data files besides its modules, as pyproject.toml's [tool.setuptools.package-data]
# declares them for ``autograder`` (tests/grading/test_grader_files.py keeps the two lists the same).
DECLARED_DATA = ("checks/pytest.ini", "gradescope/files/*", "demo/*.csv")

# Parts of the package no grade depends on: the simulated class of the demo, and the shell files
# Gradescope's image runs (the bundle places those at the zip's top, not inside the package).
NOT_GRADING = ("demo", "gradescope/files")


def grader_files(package_dir: Path = PACKAGE_DIR, leave_out: tuple = NOT_GRADING) -> dict[str, Path]:
    """``{path relative to the package, as posix str: Path}`` of every grader file, sorted by path.

    Args:
        package_dir: the ``autograder`` folder to walk (a copy in tests).
        leave_out: package-relative folders left out (default ``NOT_GRADING``); ``()`` keeps all.

    Returns every ``*.py`` under ``package_dir`` outside ``__pycache__`` and every file matching a
    ``DECLARED_DATA`` pattern; nothing else (no ``.orig``, ``.pyc``, editor or stray file).
    """
    package_dir = Path(package_dir)
    found = {p for p in package_dir.rglob("*.py") if "__pycache__" not in p.relative_to(package_dir).parts}
    for pattern in DECLARED_DATA:
        found.update(p for p in package_dir.glob(pattern) if p.is_file())
    out = {}
    for path in sorted(found):
        rel = path.relative_to(package_dir).as_posix()
        if any(rel == part or rel.startswith(part + "/") for part in leave_out):
            continue
        out[rel] = path
    return out
