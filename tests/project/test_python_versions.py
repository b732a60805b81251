"""requirements.txt installs, and the grader grades, on Python 3.10 and on the newest Python here.

Each interpreter gets a venv of its own (cached under ``~/.cache/lm-reads-text``, keyed by
requirements.txt, so a warm run only checks it), installs the pins with pip (environment
markers pick the releases that support it), and grades the attention solution notebook with
``python -m autograder grade``: full marks, 19 of 19, as on the project's own Python.
Debian 12's stock Python (3.11.2, before soupsieve 4.1.3's 3.11.5) is covered by
``tests/gradescope/test_container.py``. Where an interpreter is missing the test fails, it does not skip.
Slow: a cold run downloads and installs every package once per interpreter.
"""
import glob
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook

pytestmark = pytest.mark.slow
CACHE = Path(os.environ.get("LM_READS_TEXT_CACHE") or Path.home() / ".cache" / "lm-reads-text")


def _runs(python):
    try:
        return subprocess.run([python, "-c", "pass"], capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def _interpreter(version):
    """pyenv's newest ``X.Y.*`` (this kind of machine has pyenv), else ``pythonX.Y`` on PATH
    (one that runs: a pyenv shim of a version not selected does not)."""
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates = sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"),
                        key=lambda p: [int(x) for x in p.split("/versions/")[1].split("/")[0].split(".") if x.isdigit()])
    candidates = [p for p in candidates if _runs(p)]
    if candidates:
        return candidates[-1]
    found = shutil.which(f"python{version}")
    if found and _runs(found):
        return found
    pytest.fail(f"no Python {version} here (pyenv's versions/{version}.* or python{version} on PATH)")


def _newest():
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    versions = {".".join(Path(p).name.split(".")[:2]) for p in glob.glob(f"{root}/versions/3.*")}
    versions |= {Path(p).name[len("python"):] for p in glob.glob("/usr/bin/python3.*") if Path(p).name.count(".") == 1
                 and Path(p).name[len("python3."):].isdigit()}
    return max(versions, key=lambda v: int(v.split(".")[1]))


@pytest.mark.parametrize("version", ["3.10", _newest()])
def test_requirements_install_and_grade_on(version, tmp_path):
    python = _interpreter(version)
    requirements = (PROJECT_ROOT / "requirements.txt").read_bytes()
    venv = CACHE / f"venv-{Path(python).resolve().name}-{hashlib.sha256(requirements).hexdigest()[:12]}"
    if not (venv / ".complete").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=600)
        pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r",
                              str(PROJECT_ROOT / "requirements.txt")], capture_output=True, text=True, timeout=3600)
        assert pip.returncode == 0, pip.stderr[-3000:]
        (venv / ".complete").touch()
    py = str(venv / "bin" / "python")
    assert subprocess.run([py, "-c", f"import sys; assert sys.version_info[:2] == {tuple(map(int, version.split('.')))}"],
                          timeout=60).returncode == 0
    exercise = EXERCISES["attention"]
    notebook = tmp_path / "attention.ipynb"
    nbformat.write(filled_notebook(exercise), notebook)
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT), COURSE_SECRET="python-versions-test")
    graded = subprocess.run([py, "-m", "autograder", "grade", str(notebook), "--out", str(tmp_path / "out"),
                             "--jobs", "1", "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=900)
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-3000:]
    data = json.loads((tmp_path / "out" / "attention" / "attention" / "results.json").read_text())
    assert data["score"] == 19, data["output"]
