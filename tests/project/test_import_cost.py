"""The grading path must not pay for parsers it never uses (requirements.txt, jsonschema pin)."""
import subprocess
import sys


def test_importing_nbformat_builds_no_iri_grammar():
    # jsonschema >= 4.24 imports rfc3987_syntax (a lark grammar built at import, 2-3 CPU seconds)
    # whenever the package is installed; every grading process imports nbformat, which imports jsonschema.
    code = "import sys, jsonschema; print(sorted(m for m in sys.modules if m.split('.')[0] in ('rfc3987_syntax', 'lark')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_grading_command_reaches_its_preflight_without_the_engine():
    # The command's own process orchestrates: argument parsing, discovery and the points guard
    # must not import pytest, numpy or nbformat (the workers import the engine; grading/early.py).
    code = ("import sys\nfrom autograder import cli\n"
            "try:\n    cli.main(['grade', '--help'])\nexcept SystemExit:\n    pass\n"
            "import autograder.grading.class_run, autograder.grading.discover, autograder.nbgrader_glue.points_guard\n"
            "print(sorted(m for m in ('pytest', 'numpy', 'nbformat', 'copydetect') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_the_checks_points_are_read_without_the_engine():
    # The points guard compares every exercise's checks' points with the gradebook's before any
    # notebook is graded: reading them (their syntax) must not wait for pytest and numpy.
    code = ("import sys\nfrom autograder.core.registry import EXERCISES\n"
            "from autograder.checks.declared import points_by_function\n"
            "points = [points_by_function(e) for e in EXERCISES.values()]\n"
            "print(sorted(m for m in ('pytest', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
