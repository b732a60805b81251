"""Plain-data wire format between the grader and a submission's child process.

Values cross the process boundary as JSON, never as pickles, so nothing the
student's code builds is ever unpickled (or imported) by the grader.

Encoding (both directions):

* ``None``, ``bool``, ``int``, ``float`` (nan and inf allowed), ``str``: as JSON.
* ``list``: a JSON list; ``tuple``: ``{"__tuple__": [...]}``.
* ``dict``: ``{"__dict__": [[key, value], ...]}``, keeping key order and
  non-string keys such as BPE pairs ``("e", "s")``.
* ``numpy.ndarray`` of bool, int, float or complex: ``{"__ndarray__": nested
  list, "dtype": "float64"}``; numpy scalars become Python scalars.
* Anything else: ``{"__object__": type name, "repr": first 200 characters}``,
  which the grader reports as "returned an object of type X" rather than
  trusting it.

This module is part of the child package (``autograder/child``), imported by both sides,
so it imports only the standard library and numpy.
"""
import json

try:  # numpy is always present in the grader; keep the child robust anyway.
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

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
                            "dtype": str(value.dtype)}
                return {"__ndarray__": _np.asarray(value).tolist(), "dtype": str(value.dtype)}
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
    """A value that could not be sent as plain data (see ``to_wire``)."""

    def __init__(self, type_name, text):
        self.type_name = type_name
        self.text = text

    def __repr__(self):
        return f"<{self.type_name} object: {self.text}>"


def _key(k):
    # Lists cannot be dict keys; a list key can only come from a tuple.
    return tuple(_key(x) for x in k) if isinstance(k, list) else k


def from_wire(data):
    """Inverse of ``to_wire``. Arrays come back as numpy arrays of their dtype."""
    if isinstance(data, list):
        return [from_wire(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__tuple__" in data:
        return tuple(from_wire(v) for v in data["__tuple__"])
    if "__dict__" in data:
        return {_key(from_wire(k)): from_wire(v) for k, v in data["__dict__"]}
    if "__set__" in data:
        return set(_key(from_wire(v)) for v in data["__set__"])
    if "__ndarray__" in data:
        dtype = data.get("dtype")
        if dtype == "object":
            return _np.array(from_wire(data["__ndarray__"]), dtype=object)
        if dtype not in PLAIN_DTYPES:  # e.g. "(250,1000,1000)f8" would allocate gigabytes
            return Opaque("ndarray", f"array of unsupported dtype {str(dtype)[:40]!r}")
        try:
            arr = _np.array(data["__ndarray__"], dtype=dtype)
        except (TypeError, ValueError) as exc:
            return Opaque("ndarray", f"malformed array ({exc})"[:200])
        if "imag" in data:
            arr = arr + 1j * _np.array(data["imag"], dtype=float)
        return arr
    if "__object__" in data:
        return Opaque(data["__object__"], data.get("repr", ""))
    if "__handle__" in data:
        return data  # resolved by the caller (sandbox.RemoteObject)
    return {k: from_wire(v) for k, v in data.items()}


def dumps(value):
    """Encode ``value`` as one line of JSON text (no newlines inside)."""
    return json.dumps(to_wire(value), separators=(",", ":"))


def loads(text):
    """Decode one line made by ``dumps``."""
    return from_wire(json.loads(text))
