"""Plain data between the child that runs student code and the trusted parent.

Messages are JSON objects sent as bytes; arrays travel as base64 float64 bytes
with a shape. Nothing is unpickled and no object made by student code ever
reaches the parent: the parent rebuilds fresh ``numpy.ndarray``s of dtype
float64 from bytes, after checking every field's type exactly.
"""
from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

# Largest value accepted: 1,000,000 float64 (8 MB, 10.7 MB in base64), ten times the course's largest answer
# (n = 100,000). A probe's few outputs then fit one message (sandbox.MAX_MESSAGE_BYTES, 64 MiB), so a huge
# return value is refused in the child with a clear message instead of breaking the channel.
MAX_ELEMENTS = 1_000_000
MAX_TEXT = 4_000  # characters kept of an exception message or a type name


class WireError(ValueError):
    """A message that is not what the protocol allows."""


@dataclass(frozen=True)
class Value:
    """A value a student function returned, as plain data.

    ``array`` is None when the function returned None. ``type_name`` and
    ``dtype`` describe what it was (``EagerTensor``, ``float32``), so the
    parent can say "returned a float32 numpy array" without touching it.
    """

    array: np.ndarray | None
    type_name: str
    dtype: str | None = None

    @property
    def is_none(self) -> bool:
        return self.array is None


# --------------------------------------------------------------------------- child side

def encode_value(obj: Any) -> dict:
    """Child side: any returned object to a JSON-able dict. Raises TypeError for non-numeric data."""
    if obj is None:
        return {"none": True, "type": "NoneType"}
    type_name = type(obj).__name__[:200]
    dtype = None
    if hasattr(obj, "dtype") and hasattr(obj, "shape"):
        dtype = _dtype_name(obj.dtype)
        if hasattr(obj, "numpy") and callable(obj.numpy):
            obj = obj.numpy()
    if isinstance(obj, (bool, np.bool_)):
        dtype = dtype or "bool"
    try:
        array = np.array(obj, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as error:
        raise TypeError(f"a {type_name} that is not numeric ({error})") from None
    array = np.asarray(array.view(np.ndarray), dtype=np.float64)
    if array.size > MAX_ELEMENTS:
        raise TypeError(f"a {type_name} with {array.size} elements, more than the grader accepts")
    return {
        "type": type_name,
        "dtype": dtype or _python_dtype(obj),
        "shape": [int(n) for n in array.shape],
        "data": base64.b64encode(np.ascontiguousarray(array, dtype="<f8").tobytes()).decode("ascii"),
    }


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    return str(name if isinstance(name, str) else dtype)[:40]


def _python_dtype(obj: Any) -> str:
    if isinstance(obj, float):
        return "python float"
    if isinstance(obj, int):
        return "python int"
    return "unknown"


def dumps(message: dict) -> bytes:
    return json.dumps(message, allow_nan=True).encode("utf-8")


# --------------------------------------------------------------------------- parent side

def loads(data: bytes) -> dict:
    """Parent side: bytes to a dict, or WireError. Never evaluates anything."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WireError(f"malformed message: {error}") from None
    if type(message) is not dict or type(message.get("event")) is not str:
        raise WireError("a message must be an object with an 'event'")
    return message


def decode_value(data: Any) -> Value:
    """Rebuild a Value from a child's dict; every field is checked by exact type."""
    if type(data) is not dict:
        raise WireError("a value must be an object")
    if data.get("none") is True:
        return Value(None, "NoneType")
    type_name = text(data.get("type"), "type")
    dtype = data.get("dtype")
    if dtype is not None:
        dtype = text(dtype, "dtype")
    shape = data.get("shape")
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape) or len(shape) > 32:
        raise WireError("a value's shape must be a list of non-negative ints")
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise WireError("a value is larger than the grader accepts")
    encoded = data.get("data")
    if type(encoded) is not str:
        raise WireError("a value's data must be a base64 string")
    try:
        raw = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("a value's data is not base64") from None
    if len(raw) != 8 * size:
        raise WireError(f"a value's data holds {len(raw)} bytes, its shape needs {8 * size}")
    array = np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)
    return Value(array, type_name, dtype)


def value_to_json(value: Value) -> dict:
    """A decoded Value back to the dict ``decode_value`` reads: for values kept on disk."""
    if value.is_none:
        return {"none": True, "type": value.type_name}
    array = np.asarray(value.array, dtype="<f8")  # not ascontiguousarray: it makes a scalar of shape (1,)
    return {"type": value.type_name, "dtype": value.dtype, "shape": [int(n) for n in array.shape],
            "data": base64.b64encode(array.tobytes(order="C")).decode("ascii")}


def text(value: Any, what: str) -> str:
    if type(value) is not str:
        raise WireError(f"{what} must be a string")
    return value[:MAX_TEXT]


def number(value: Any, what: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise WireError(f"{what} must be a finite number")
    return float(value)
