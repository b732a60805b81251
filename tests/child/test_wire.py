"""Bounded decoding of answers from a submission.

The two bombs found on main: a set of 60,000 integers that all hash to 0 (quadratic to
build: minutes), and a complex array whose ``imag`` part broadcast against its real part
((N, 1) with (N,): gigabytes from a 72 kB message). Both are now refused before anything is
built, on their own and when a submission writes them into its answer channel. No test here
times anything (a loaded machine is no failure): they check that the set or dict is never
built and that memory does not grow; ``benchmarks/wire_bombs.py`` prints the times.
"""
import json
import resource
import time

import numpy as np
import pytest

from autograder.child import wire
from autograder.core.registry import EXERCISES

M61 = (1 << 61) - 1  # hash(k * M61) == 0 for every int k: Python hashes ints modulo 2**61 - 1


def _equal_hash_ints(n):
    return [k * M61 for k in range(1, n + 1)]


def test_python_json_itself_puts_no_number_in_a_table():
    """json keeps numbers in lists and object keys as (salted) strings: no quadratic table."""
    parsed = json.loads(json.dumps({"__set__": _equal_hash_ints(60_000)}))
    assert list(parsed) == ["__set__"] and type(parsed["__set__"]) is list
    assert parsed["__set__"][:2] == [M61, 2 * M61] and {hash(k) for k in parsed["__set__"][:100]} == {0}


def _spy_on_containers(monkeypatch):
    """Record the size of every set and dict ``wire`` builds (its module globals shadow the builtins)."""
    built = []

    def spy(kind, real):
        class Counting(type):  # calls build the real container; isinstance checks see the real type
            def __call__(cls, *args, **kwargs):
                value = real(*args, **kwargs)
                built.append((kind, len(value)))
                return value

            def __instancecheck__(cls, obj):
                return isinstance(obj, real)
        return Counting(kind, (), {})
    monkeypatch.setattr(wire, "set", spy("set", set), raising=False)
    monkeypatch.setattr(wire, "dict", spy("dict", dict), raising=False)
    return built


@pytest.mark.parametrize("form", ["set", "dict", "tuple keys"])
def test_equal_hash_containers_are_refused_before_being_built(form, monkeypatch):
    ints = _equal_hash_ints(60_000)
    if form == "set":
        data = {"__set__": ints}
    elif form == "dict":
        data = {"__dict__": [[k, 1] for k in ints]}
    else:
        data = {"__dict__": [[{"__tuple__": [k]}, 1] for k in ints]}
    built = _spy_on_containers(monkeypatch)
    value = wire.loads(json.dumps(data))
    assert isinstance(value, wire.Opaque) and "hash alike" in value.text
    # Building it is what took 167-226 s on main: no set or dict of the 60,000 keys is ever made.
    assert not [size for kind, size in built if size >= 60_000], built


def test_ordinary_sets_and_dicts_still_decode(monkeypatch):
    built = _spy_on_containers(monkeypatch)
    assert wire.loads(wire.dumps({1, 2})) == {1, 2} and ("set", 2) in built  # the spy sees what is built
    assert wire.loads(wire.dumps({1, 2, 3})) == {1, 2, 3}
    assert wire.loads(wire.dumps({("e", "s"): 3, ("s", "t"): 1})) == {("e", "s"): 3, ("s", "t"): 1}
    assert wire.loads(wire.dumps(set(range(10_000)))) == set(range(10_000))


def test_imag_part_that_would_broadcast_is_refused_without_allocating():
    n = 20_000   # (n, 1) + (n,) would broadcast to n * n complex numbers: 6.4 GB
    data = {"__ndarray__": [[0.0]] * n, "imag": [0.0] * n, "dtype": "complex128", "shape": [n, 1]}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    value = wire.loads(json.dumps(data))
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert isinstance(value, wire.Opaque) and "parts do not match" in value.text
    assert grown_kb < 200_000   # nothing near the gigabytes main allocated


@pytest.mark.parametrize("data, says", [
    ({"__ndarray__": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float64"}, "declared shape"),
    ({"__ndarray__": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float64", "shape": [4]}, "declared shape"),
    ({"__ndarray__": [1.0, 2.0], "dtype": "float64", "shape": [2, 1]}, "declared shape"),
    ({"__ndarray__": [1.0, 2.0], "dtype": "float64", "shape": [-2]}, "declared shape"),
    ({"__ndarray__": [1e400], "dtype": "int64", "shape": [1]}, "malformed"),
    ({"__ndarray__": [1.0], "dtype": "(250,1000,1000)f8", "shape": [1]}, "unsupported dtype"),
])
def test_arrays_must_match_their_declared_shape_exactly(data, says):
    value = wire.loads(json.dumps(data))
    assert isinstance(value, wire.Opaque) and says in value.text, value


def test_declared_shape_beyond_the_cap_is_refused_before_allocating():
    data = {"__ndarray__": [], "dtype": "float64", "shape": [100_000, 100_000]}
    with pytest.raises(wire.WireError, match="larger"):
        wire.loads(json.dumps(data))


def test_arrays_round_trip_with_their_shape_and_dtype():
    for value in (np.zeros((0, 3)), np.arange(6.0).reshape(2, 3), np.array([1 + 2j, 3j], dtype=np.complex64),
                  np.array(True), np.arange(4, dtype=np.uint8)):
        back = wire.loads(wire.dumps(value))
        assert back.shape == value.shape and back.dtype == value.dtype and np.array_equal(back, value)


def test_depth_count_size_and_time_are_capped():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(wire.WireError, match="deep"):
        wire.loads(deep)
    with pytest.raises(wire.WireError, match="deep"):
        wire.loads(json.dumps(json.loads("[" * 500 + "]" * 500)))
    with pytest.raises(wire.WireError, match="too many"):
        wire.from_wire([0] * 1000, wire.Budget(max_elements=100))
    with pytest.raises(wire.WireError, match="too large"):
        wire.loads("[" + "0," * 1000 + "0]", max_chars=100)
    with pytest.raises(wire.WireError, match="too long"):
        wire.from_wire([[0] * 100] * 1000, wire.Budget(deadline=time.monotonic() - 1))


# -- the same bombs written by a submission into its own answer channel -----------------------------
FORGE = '''
import gc, json

def _send_raw(payload):
    child = next(o for o in gc.get_objects() if type(o).__name__ == "Child" and hasattr(o, "resp"))
    child.resp.write(json.dumps(dict(payload, id=child.request_id)) + "\\n")
    child.resp.flush()
'''

SET_BOMB = FORGE + '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    _send_raw({"ok": {"__set__": [k * ((1 << 61) - 1) for k in range(1, 60001)]}})
    return (0, 0)
'''

IMAG_BOMB = FORGE + '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    n = 30000
    _send_raw({"ok": {"__ndarray__": [[0.0]] * n, "imag": [0.0] * n, "dtype": "complex128", "shape": [n, 1]}})
    return (0, 0)
'''


@pytest.mark.parametrize("code", [SET_BOMB, IMAG_BOMB], ids=["equal-hash-set", "broadcast-imag"])
def test_bombs_written_into_the_channel_cost_only_their_checks(hand_in, code):
    result = hand_in(EXERCISES["kv_cache"], {"kv_cache_size": code})
    size_checks = [c for c in result.checks if c.function == "kv_cache_size"]
    assert size_checks and all(c.score == 0 for c in size_checks)
    assert all("object" in c.output or "tuple" in c.output for c in size_checks), [c.output for c in size_checks]
    others = [c for c in result.checks if c.function != "kv_cache_size"]
    assert all(c.score == c.max_score for c in others), [(c.name, c.output) for c in others if c.score < c.max_score]


@pytest.mark.slow  # slow tier (docs/development.md): waits out a call limit
def test_a_flood_of_junk_lines_in_the_channel_cannot_outlast_the_call_limit():
    """Millions of short lines (each would cost a copy of the rest of the buffer if taken one
    at a time) and well-formed answers to no request are skipped within the deadline."""
    from autograder.sandbox.limits import Limits, StudentCodeError
    from autograder.submission.remote import ChildSubmission
    code = '''
import gc, json

def flood():
    child = next(o for o in gc.get_objects() if type(o).__name__ == "Child" and hasattr(o, "resp"))
    junk = "x\\n" * 4_000_000 + json.dumps({"ok": list(range(1000)), "id": "not-yours"}) + "\\n"
    while True:
        child.resp.write(junk)
        child.resp.flush()
'''
    limits = Limits(call_seconds=3.0, response_bytes=64 * 1024 ** 2)
    with ChildSubmission([(1, code)], limits) as sub:
        with pytest.raises(StudentCodeError) as info:
            sub.function("flood")()
        assert info.value.kind == "timeout"
