"""Benchmark: decoding hostile answers from the child. Prints figures; asserts nothing.

    python benchmarks/wire_decoding.py [--count 60000] [--runs 5]

A submission can answer with a set or dict whose keys all hash alike (multiples of 2**61 - 1
hash to 0): building it would take quadratic time. ``child/wire.py`` refuses such containers
before building them. This prints, as medians over ``--runs``:

* ``json.loads`` of the raw message (the part every answer pays; linear, as json keeps
  numbers in lists and object keys as strings),
* ``wire.loads`` of the same message for each form (a set, a dict, a dict with tuple keys),
  which must end in a refusal ("hash alike"), not a built container.
"""
import argparse
import json
import statistics
import time

from autograder.child import wire

M61 = (1 << 61) - 1  # hash(k * M61) == 0 for every int k


def _median_seconds(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60_000, help="keys per container (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (default: %(default)s)")
    args = parser.parse_args(argv)
    ints = [k * M61 for k in range(1, args.count + 1)]
    forms = {"set": {"__set__": ints},
             "dict": {"__dict__": [[k, 1] for k in ints]},
             "tuple keys": {"__dict__": [[{"__tuple__": [k]}, 1] for k in ints]}}
    raw = json.dumps(forms["set"])
    print(f"json.loads of {args.count} equal-hash ints: {_median_seconds(lambda: json.loads(raw), args.runs) * 1000:.0f} ms")
    for name, data in forms.items():
        text = json.dumps(data)
        value = wire.loads(text)
        verdict = "refused" if isinstance(value, wire.Opaque) and "hash alike" in value.text else "NOT REFUSED"
        seconds = _median_seconds(lambda text=text: wire.loads(text), args.runs)
        print(f"wire.loads, equal-hash {name} of {args.count}: {seconds * 1000:.0f} ms ({verdict})")


if __name__ == "__main__":
    main()
