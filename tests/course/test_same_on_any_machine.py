"""Are the generated files, and the reference's grades, the same whatever BLAS kernel and thread count?

The last digits of a number the build writes depended on the machine (OpenBLAS's kernel, its
threads, numpy's SIMD dispatch, libm's FMA variants): a notebook built on one x86-64 machine was
"out of date" on another. Two kernels that run on every x86-64 machine stand in for two machines:
OpenBLAS's generic ``Prescott`` and whatever it picks for this CPU (no ``OPENBLAS_CORETYPE``).
"""
import json
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.course import numerics
from autograder.demo.fill import filled_notebook

#: (label, variables set, variables removed): two kernels, one and two BLAS threads.
MACHINES = [
    ("this CPU's own kernel, 2 threads", {"OPENBLAS_NUM_THREADS": "2"}, ("OPENBLAS_CORETYPE",)),
    ("Prescott kernel, 1 thread", {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "1"}, ()),
]


def _environment(set_, removed):
    env = {k: v for k, v in os.environ.items() if k not in removed and k != numerics.PINNED_VARIABLE}
    env.update(set_, PYTHONDONTWRITEBYTECODE="1")
    return env


@pytest.mark.slow
@pytest.mark.parametrize("label, set_, removed", MACHINES, ids=[m[0] for m in MACHINES])
def test_the_build_writes_the_committed_bytes_under_either_kernel(label, set_, removed):
    """``python -m autograder build --check`` (every notebook, reference module and page, compared
    byte for byte with the committed copies) passes under each kernel and thread count."""
    done = subprocess.run([sys.executable, "-m", "autograder", "build", "--check"], cwd=PROJECT_ROOT,
                          env=_environment(set_, removed), capture_output=True, text=True)
    assert done.returncode == 0, f"under {label}:\n{done.stdout}{done.stderr[-3000:]}"


def test_the_pinned_child_runs_numpys_baseline_code_on_one_thread():
    """The child that computes generated files has no dispatched SIMD target left on, one BLAS
    thread and the generic kernel, whatever the parent's environment said."""
    probe = ("import json, os, numpy as np; c = np.show_config(mode='dicts')['SIMD Extensions'];"
             "print(json.dumps({'found': c.get('found', []), 'threads': os.environ['OPENBLAS_NUM_THREADS'],"
             "'core': os.environ['OPENBLAS_CORETYPE']}))")
    env = numerics.pinned_environment(_environment({"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "2"}, ()))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout)
    assert seen == {"found": [], "threads": "1", "core": "Prescott"}


#: A matrix product, a long pairwise sum, exp and log: each took another path on another CPU.
DIGEST = ("import hashlib, numpy as np; x = np.random.default_rng(7).uniform(-30, 30, 200_000);"
          "parts = [np.exp(x), np.log(np.abs(x) + 1e-3), x.reshape(400, 500) @ x.reshape(500, 400), np.array([x.sum()])];"
          "print(hashlib.sha256(b''.join(p.tobytes() for p in parts)).hexdigest())")


def test_a_number_computed_pinned_is_the_same_under_either_kernel():
    """The pinned environment made from parents whose environments name different kernels and thread
    counts computes the same bits."""
    digests = set()
    for _, set_, removed in MACHINES:
        env = numerics.pinned_environment(_environment(set_, removed))
        done = subprocess.run([sys.executable, "-c", DIGEST], env=env, capture_output=True, text=True, check=True)
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests


@pytest.mark.slow
@pytest.mark.parametrize("label, set_, removed", MACHINES, ids=[m[0] for m in MACHINES])
def test_the_reference_grades_full_marks_under_either_kernel(label, set_, removed, tmp_path):
    """Every exercise's reference, handed in as a student would and graded by README's command
    (``python -m autograder grade``), gets full marks under each kernel and thread count: the hidden
    checks' tolerances hold whichever kernel computes the student's and the reference's values."""
    submitted = tmp_path / "submitted" / "ref"
    for exercise in EXERCISES.values():
        folder = submitted / exercise.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(exercise), folder / exercise.notebook)
    out = tmp_path / "graded"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted"), "--out", str(out),
                           "--gradebook", "none", "--quiet"], cwd=PROJECT_ROOT, env=_environment(set_, removed),
                          capture_output=True, text=True)
    assert done.returncode == 0, f"under {label}:\n{done.stdout}{done.stderr[-3000:]}"
    results = sorted(out.rglob("results.json"))
    assert len(results) == len(EXERCISES)
    for path in results:
        result = json.loads(path.read_text(encoding="utf-8"))
        assert result["score"] == result["max_score"] > 0, (label, path.parent.name, result["score"])
