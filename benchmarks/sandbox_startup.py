"""Benchmark: what does the sandbox add to each notebook? Prints figures; asserts nothing.

    python benchmarks/sandbox_startup.py [--rounds 20]

Starts and closes a child for a small notebook (``import numpy``, one function, one call)
``--rounds`` times in the bubblewrap sandbox and ``--rounds`` times unconfined
(``Limits(confine=False)``), interleaved so both see the same machine load, and prints
the median and quartiles of each and the difference: the start-up cost the sandbox adds
per notebook (target: under 50 ms). On a busy machine that difference is noisy, so it
also times the sandbox alone: preparing it and running ``/bin/true`` in it, against
running ``/bin/true`` directly. And it prints the one-off costs of a grading process:
compiling the seccomp filter and ``check_available()``.
"""
import argparse
import statistics
import subprocess
import time

from autograder.sandbox import policy as confinement
from autograder.sandbox.bubblewrap import Sandbox, check_available
from autograder.sandbox.limits import Limits
from autograder.submission.remote import ChildSubmission

CODE = "import numpy as np\ndef f(x):\n    return float(np.sum(x))\n"


def one(limits):
    t0 = time.perf_counter()
    with ChildSubmission([(1, CODE)], limits) as sub:
        assert sub.function("f")([1.0, 2.0]) == 3.0
    return time.perf_counter() - t0


def bare_true():
    t0 = time.perf_counter()
    subprocess.run(["/bin/true"], check=True)
    return time.perf_counter() - t0


def boxed_true():
    t0 = time.perf_counter()
    sandbox = Sandbox(Limits())
    try:
        proc = subprocess.Popen(sandbox.command(["/bin/true"]), **sandbox.popen_kwargs(()))
        sandbox.started()
        assert proc.wait() == 0
    finally:
        sandbox.close()
    return time.perf_counter() - t0


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return f"median {statistics.median(xs) * 1000:6.1f} ms  (quartiles {q[0] * 1000:.1f}-{q[2] * 1000:.1f} ms)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    t0 = time.perf_counter()
    confinement.seccomp_bpf()
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    reason = check_available()
    check_s = time.perf_counter() - t0
    if reason:
        raise SystemExit(f"the sandbox is not available here: {reason}")
    confined, unconfined = Limits(), Limits(confine=False)
    one(confined), one(unconfined)  # warm the file cache
    boxed, bare = [], []
    for _ in range(args.rounds):
        boxed.append(one(confined))
        bare.append(one(unconfined))
    print(f"one notebook's child, start to close, {args.rounds} rounds each:")
    print(f"  sandboxed   {quartiles(boxed)}")
    print(f"  unconfined  {quartiles(bare)}")
    added = statistics.median(boxed) - statistics.median(bare)
    print(f"  added by the sandbox per notebook: {added * 1000:.1f} ms (target < 50 ms)")
    plain, sandboxed = [], []
    for _ in range(args.rounds * 5):
        plain.append(bare_true())
        sandboxed.append(boxed_true())
    print(f"/bin/true, {args.rounds * 5} rounds each:")
    print(f"  in the sandbox  {quartiles(sandboxed)}")
    print(f"  directly        {quartiles(plain)}")
    print(f"  the sandbox alone costs {(statistics.median(sandboxed) - statistics.median(plain)) * 1000:.1f} ms")
    print(f"once per grading process: seccomp filter compiled in {compile_s * 1000:.1f} ms, "
          f"check_available() in {check_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
