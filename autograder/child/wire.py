"""Plain-data wire format between the grader and a submission's child process.

Values cross the process boundary as JSON, never as pickles, so nothing the
student's code builds is ever unpickled (or imported) by the grader.

Encoding (both directions):

* ``None``, ``bool``, ``int``, ``float`` (nan and inf allowed), ``str``: as JSON.
* ``list``: a JSON list; ``tuple``: ``{"__tuple__": [...]}``.
* ``dict``: ``{"__dict__": [[key, value], ...]}``, keeping key order and
  non-string keys such as BPE pairs ``("e", "s")``.
* ``numpy.ndarray`` of bool, int, float or complex: ``{"__ndarray__": nested
  list, "dtype": "float64", "shape": [2, 3]}`` (complex: the real part there and the
  imaginary part under ``"imag"``); the receiver checks the values against the declared
  shape before trusting them. numpy scalars become Python scalars.
* ``set``: ``{"__set__": [...]}``.
* Anything else: ``{"__object__": type name, "repr": first 200 characters}``,
  which the grader reports as "returned an object of type X" rather than
  trusting it.

Decoding is bounded (``Budget``): a message's length, its nesting depth, the number of
values and array elements in it, the time spent, and the hashes of dict keys and set
members (so that no container's cost is the sender's choice) are all capped.

This module is part of the child package (``autograder/child``), imported by both sides,
so it imports only the standard library and numpy.
"""
import json
import time as _time

try:  # numpy is always present in the grader; keep the child robust anyway.
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None  # type: ignore[assignment]  # every use checks for None

_ARRAY_KINDS = "biufc"  # bool, int, unsigned, float, complex
# The only dtypes an array may claim on the way back (anything else is refused, not built).
PLAIN_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"}
MAX_DEPTH = 64


def to_wire(value, _depth=0):
    """Turn ``value`` into JSON-compatible plain data (see module docstring).

    Raises:
        ValueError: when nesting is deeper than ``MAX_DEPTH`` (a cycle, or a
            value no exercise asks for).
    """
    if _depth > MAX_DEPTH:
        raise ValueError("value nested too deeply to send")
    d = _depth + 1
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if _np is not None:
        if isinstance(value, _np.ndarray):
            if value.dtype.kind in _ARRAY_KINDS:
                if value.dtype.kind == "f" and value.dtype.itemsize > 8:
                    value = value.astype(_np.float64)  # long double: no JSON form, float64 is plenty
                if value.dtype.kind == "c" and value.dtype.itemsize > 16:
                    value = value.astype(_np.complex128)
                if value.dtype.kind == "c":
                    return {"__ndarray__": value.real.tolist(), "imag": value.imag.tolist(),
                            "dtype": str(value.dtype), "shape": list(value.shape)}
                return {"__ndarray__": _np.asarray(value).tolist(), "dtype": str(value.dtype),
                        "shape": list(value.shape)}
            if value.dtype.kind in "OUS":
                return {"__ndarray__": [to_wire(v, d) for v in value.tolist()] if value.ndim
                        else to_wire(value.item(), d), "dtype": "object"}
        if isinstance(value, _np.generic):
            return to_wire(value.item(), d)
    if isinstance(value, tuple):
        return {"__tuple__": [to_wire(v, d) for v in value]}
    if isinstance(value, list):
        return [to_wire(v, d) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[to_wire(k, d), to_wire(v, d)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"__set__": [to_wire(v, d) for v in value]}
    try:
        text = repr(value)[:200]
    except Exception:  # a hostile __repr__ must not break the channel
        text = "<unprintable>"
    return {"__object__": type(value).__name__, "repr": text}


class Opaque:
    """A value that could not be sent as plain data (see ``to_wire``), or was refused on arrival."""

    def __init__(self, type_name, text):
        self.type_name = type_name
        self.text = text

    def __repr__(self):
        return f"<{self.type_name} object: {self.text}>"


class WireError(ValueError):
    """A message broke a limit of ``Budget`` (too large, too deep, too slow to decode)."""


class Budget:
    """What decoding one message may cost; ``from_wire`` stops with ``WireError`` beyond it.

    Attributes:
        max_depth: deepest nesting of lists, tuples, dicts and sets.
        max_elements: values decoded in all (every list item, dict key and value, array element).
        max_array_elements: elements of one array (its declared shape's product).
        max_string_chars: characters in all strings together.
        deadline: ``time.monotonic()`` value after which decoding gives up (``None``: none).
    """

    def __init__(self, max_depth=MAX_DEPTH, max_elements=4_000_000, max_array_elements=4_000_000,
                 max_string_chars=16_000_000, deadline=None):
        self.max_depth, self.deadline = max_depth, deadline
        self.elements_left, self.array_left = max_elements, max_array_elements
        self.chars_left = max_string_chars
        self._ticks = 0

    def spend(self, n=1):
        self.elements_left -= n
        if self.elements_left < 0:
            raise WireError("too many values in one answer")
        self._ticks += n
        if self.deadline is not None and self._ticks >= 4096:
            self._ticks = 0
            if _time.monotonic() > self.deadline:
                raise WireError("the answer took too long to read")


# Keys of a dict or members of a set whose hash the sender chooses (ints, floats, tuples of
# them; strings are hashed with a per-process random key) could all land in one bucket and
# make building the container quadratic. More than this many equal hashes is refused.
MAX_EQUAL_HASHES = 8


def _hash_flood(keys):
    """True when more than ``MAX_EQUAL_HASHES`` of ``keys`` share one hash (checked by sorting,
    so the check itself hashes nothing into a table)."""
    if len(keys) <= MAX_EQUAL_HASHES:
        return False
    hashes = sorted(hash(k) for k in keys)
    run = 1
    for a, b in zip(hashes, hashes[1:], strict=False):
        run = run + 1 if a == b else 1
        if run > MAX_EQUAL_HASHES:
            return True
    return False


def _key(k):
    # Lists cannot be dict keys; a list key can only come from a tuple.
    return tuple(_key(x) for x in k) if isinstance(k, list) else k


def _shape_of(data, budget):
    shape = data.get("shape")
    if not (isinstance(shape, list) and len(shape) <= 32
            and all(type(n) is int and 0 <= n for n in shape)):
        return None
    size = 1
    for n in shape:
        size *= n
    if size > budget.array_left:
        raise WireError("an array larger than the grader accepts")
    budget.array_left -= size
    budget.spend(size)
    return tuple(shape)


def _array(data, budget, depth):
    dtype = data.get("dtype")
    if dtype == "object":
        items = _decode(data.get("__ndarray__"), budget, depth)
        try:
            return _np.array(items, dtype=object)
        except (TypeError, ValueError) as exc:
            return Opaque("ndarray", f"malformed array ({exc})"[:200])
    if dtype not in PLAIN_DTYPES:  # e.g. "(250,1000,1000)f8" would allocate gigabytes
        return Opaque("ndarray", f"array of unsupported dtype {str(dtype)[:40]!r}")
    shape = _shape_of(data, budget)
    if shape is None:
        return Opaque("ndarray", "array without a valid declared shape")
    # The nested lists must have exactly the declared shape: numpy never broadcasts or
    # guesses here, so the memory an array takes is what its shape says (checked above).
    try:
        arr = _np.array(data.get("__ndarray__"), dtype=dtype)
        if arr.size == 0 and 0 in shape and arr.ndim <= len(shape):
            arr = _np.zeros(shape, dtype=dtype)  # tolist() of an empty array keeps no inner shape
        if arr.shape != shape:
            return Opaque("ndarray", f"array whose values do not have its declared shape {shape}")
        if "imag" in data:
            imag = _np.array(data["imag"], dtype=float)
            if imag.shape != shape or arr.dtype.kind != "c":
                return Opaque("ndarray", "complex array whose parts do not match")
            arr = arr + 1j * imag
            arr = arr.astype(dtype, copy=False)
    except (TypeError, ValueError, OverflowError) as exc:
        return Opaque("ndarray", f"malformed array ({exc})"[:200])
    return arr


def _pairs(items, budget, depth, what):
    if not isinstance(items, list):
        raise WireError(f"malformed {what}")
    out = []
    for pair in items:
        if not (isinstance(pair, list) and len(pair) == 2):
            raise WireError(f"malformed {what}")
        out.append((_key(_decode(pair[0], budget, depth)), _decode(pair[1], budget, depth)))
    return out


def _decode(data, budget, depth):
    budget.spend()
    if isinstance(data, str):
        budget.chars_left -= len(data)
        if budget.chars_left < 0:
            raise WireError("too much text in one answer")
        return data
    if not isinstance(data, (list, dict)):
        return data
    depth += 1
    if depth > budget.max_depth:
        raise WireError("an answer nested too deeply")
    if isinstance(data, list):
        return [_decode(v, budget, depth) for v in data]
    if "__tuple__" in data:
        items = data["__tuple__"]
        if not isinstance(items, list):
            raise WireError("malformed tuple")
        return tuple(_decode(v, budget, depth) for v in items)
    if "__dict__" in data:
        pairs = _pairs(data["__dict__"], budget, depth, "dict")
        try:
            if _hash_flood([k for k, _ in pairs]):
                return Opaque("dict", f"a dict of {len(pairs)} keys that all hash alike (refused)")
            return dict(pairs)
        except TypeError:  # an unhashable key
            return Opaque("dict", "a dict with unhashable keys")
    if "__set__" in data:
        items = data["__set__"]
        if not isinstance(items, list):
            raise WireError("malformed set")
        members = [_key(_decode(v, budget, depth)) for v in items]
        try:
            if _hash_flood(members):
                return Opaque("set", f"a set of {len(members)} members that all hash alike (refused)")
            return set(members)
        except TypeError:
            return Opaque("set", "a set with unhashable members")
    if "__ndarray__" in data:
        return _array(data, budget, depth)
    if "__object__" in data:
        return Opaque(str(data["__object__"])[:200], str(data.get("repr", ""))[:200])
    if "__handle__" in data:
        return data  # resolved by the caller (client.RemoteObject)
    return {k: _decode(v, budget, depth) for k, v in data.items()}


def from_wire(data, budget=None):
    """Inverse of ``to_wire``, within ``budget`` (a fresh default ``Budget`` when ``None``).

    Arrays come back as numpy arrays of their dtype and exactly their declared shape
    (anything else becomes an ``Opaque``); dicts and sets whose keys would all hash alike
    become an ``Opaque`` too, so building them stays linear.

    Raises:
        WireError: the message breaks a limit of ``budget``.
    """
    return _decode(data, budget or Budget(), 0)


def dumps(value):
    """Encode ``value`` as one line of JSON text (no newlines inside)."""
    return json.dumps(to_wire(value), separators=(",", ":"))


def loads(text, budget=None, max_chars=16 * 1024 ** 2):
    """Decode one line made by ``dumps``, within ``budget`` (see ``from_wire``).

    Python's ``json`` parses in linear time (object keys are strings, whose hashes are
    salted per process; integers longer than 4300 digits are refused), so the caps that
    matter are on the text's length, checked first, and on what ``from_wire`` builds.

    Raises:
        WireError: ``text`` is longer than ``max_chars`` or breaks ``budget``.
        ValueError: ``text`` is not JSON (``json.JSONDecodeError``).
    """
    if len(text) > max_chars:
        raise WireError("answer too large")
    try:
        data = json.loads(text)
    except RecursionError:
        raise WireError("an answer nested too deeply") from None
    return from_wire(data, budget)
