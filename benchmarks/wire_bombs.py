"""Benchmark: how long does decoding take for the answers a hostile submission can send? Prints figures; asserts nothing.

    python benchmarks/wire_bombs.py [--rounds 5] [--n 60000]

``tests/child/test_wire.py`` checks that these are refused before any set or dict is built; this
prints the time each decode takes (median of ``--rounds``), beside the time Python's own
``json.loads`` takes on the same text, and the time an honest set of the same size takes:

* a set, a dict, and a dict with tuple keys of ``--n`` integers that all hash to 0
  (``k * (2**61 - 1)``: building them is quadratic, minutes on the grader before it
  refused them);
* a complex array whose imaginary part would broadcast to n x n numbers.
"""
import argparse
import json
import statistics
import time

from autograder.child import wire

M61 = (1 << 61) - 1


def median_seconds(fn, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=60_000)
    args = parser.parse_args()
    ints = [k * M61 for k in range(1, args.n + 1)]
    cases = {
        "equal-hash set": {"__set__": ints},
        "equal-hash dict": {"__dict__": [[k, 1] for k in ints]},
        "equal-hash tuple-key dict": {"__dict__": [[{"__tuple__": [k]}, 1] for k in ints]},
        "honest set": {"__set__": list(range(args.n))},
        "broadcasting imag part": {"__ndarray__": [[0.0]] * 20_000, "imag": [0.0] * 20_000,
                                   "dtype": "complex128", "shape": [20_000, 1]},
    }
    print(f"{'case':<28} {'json.loads':>11} {'wire.loads':>11}  result")
    for name, data in cases.items():
        text = json.dumps(data)
        plain = median_seconds(lambda text=text: json.loads(text), args.rounds)
        ours = median_seconds(lambda text=text: wire.loads(text), args.rounds)
        value = wire.loads(text)
        shown = value.text if isinstance(value, wire.Opaque) else f"{type(value).__name__} of {len(value)}"
        print(f"{name:<28} {plain * 1000:>8.1f} ms {ours * 1000:>8.1f} ms  {shown}")


if __name__ == "__main__":
    main()
