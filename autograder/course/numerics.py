"""The one numeric environment in which every generated file's numbers are computed.

Why: the build writes numbers into notebooks (a visible check's expected value, the value a
named mistake gives) at full precision, so that a notebook and the feedback print the same
text. The last digits of such a number depend on which machine code numpy picks for the CPU it
runs on, not only on the source:

* OpenBLAS's kernel (Haswell, Zen, SkylakeX, ...) and its thread count change the order of the
  sums in a matrix product;
* numpy's SIMD dispatch (``X86_V3``, ``X86_V4``, ...) changes the vector width of a pairwise
  ``np.sum`` and, with AVX-512, which ``np.exp``/``np.log`` run;
* glibc's libm picks FMA variants of ``exp``, ``log``, ``pow`` on CPUs with FMA, which round
  differently in a few inputs in a million.

Built in the build's own process, the same source gave different bytes on two x86-64 machines
(``0.10925193375466771`` on one, ``...766`` on another), so a committed notebook was "stale" on
every machine unlike the one it was built on. Every generated file is therefore computed in a
child process whose numpy runs the code every x86-64 machine runs alike: OpenBLAS's generic
``Prescott`` kernels on one thread, numpy's baseline code with every dispatched SIMD target
switched off (``NPY_DISABLE_CPU_FEATURES``), and glibc's libm without its FMA and AVX2 variants
(``GLIBC_TUNABLES``). ``python -m autograder build`` and the drift tests both go through
:func:`call_pinned`, so what they compare is the same on any x86-64 machine, whatever its CPU,
kernel or thread count. (On another architecture, say aarch64, the pinned code is that
architecture's baseline: its build is reproducible on that architecture, and may differ in the
last digits from the committed x86-64 build; docs/authoring.md says so.)

Grading is not pinned: hidden checks compute their reference values in the grading process and
compare with the tolerances the exercise states, which are far wider than these differences.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

#: Set (to "1") in the child that computes generated files; its absence means "not pinned".
PINNED_VARIABLE = "AUTOGRADER_PINNED_NUMERICS"

#: What the pinned child sets besides numpy's SIMD switch (see the module's docstring for why).
FIXED = {
    "OPENBLAS_CORETYPE": "Prescott",  # generic SSE3 kernels: in every x86-64 OpenBLAS with DYNAMIC_ARCH
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MKL_CBWR": "COMPATIBLE",  # MKL's own "same results on every CPU" mode, for a numpy built on MKL
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX512F",
    PINNED_VARIABLE: "1",
}


def dispatched_simd() -> list[str]:
    """The SIMD targets numpy dispatches to on this machine (``np.show_config``'s "found" list):
    the ones ``NPY_DISABLE_CPU_FEATURES`` must name so that only numpy's baseline code runs.
    Empty on a numpy that reports none."""
    import numpy as np
    config = np.show_config(mode="dicts") or {}
    return list(config.get("SIMD Extensions", {}).get("found", []))


def pinned_environment(base: dict | None = None) -> dict:
    """``base`` (default: this process's environment) with the pinned numeric settings:
    ``FIXED`` and ``NPY_DISABLE_CPU_FEATURES`` naming every dispatched SIMD target."""
    env = dict(os.environ if base is None else base)
    env.update(FIXED)
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(dispatched_simd())
    return env


def is_pinned() -> bool:
    """True inside the pinned child (the variable is only ever set by :func:`pinned_environment`)."""
    return os.environ.get(PINNED_VARIABLE) == "1"


def call_pinned(function: Callable[..., Any], *args: Any, cwd: Path | None = None) -> Any:
    """``function(*args)`` computed in the pinned environment: called here when this process is
    the pinned child, else in a new ``python -m autograder.course.numerics`` child.

    ``function`` must be a module-level function; ``args`` and its result must be JSON (str keys).
    Raises ``RuntimeError`` with the child's error output when the child fails.
    """
    if is_pinned():
        return function(*args)
    with tempfile.TemporaryDirectory(prefix="autograder-pinned-") as tmp:
        out = Path(tmp) / "result.json"
        command = [sys.executable, "-m", __name__, function.__module__, function.__qualname__,
                   json.dumps(list(args)), str(out)]
        done = subprocess.run(command, env=pinned_environment(), cwd=cwd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{function.__module__}.{function.__qualname__} failed in the pinned numeric "
                               f"environment (exit {done.returncode}):\n{done.stderr[-4000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def _main(argv: list[str]) -> int:
    module, qualname, args, out = argv
    function = getattr(importlib.import_module(module), qualname)
    result = function(*json.loads(args))
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if not is_pinned():
        sys.exit("autograder.course.numerics runs only as the pinned child of call_pinned()")
    sys.exit(_main(sys.argv[1:]))
