"""What a function returned, as wire data and back: numbers and arrays as base64 float64 bytes with a shape.

The child encodes whatever a student's function returned (``encode_value``: a ``TypeError`` for anything
that is not numeric); the parent rebuilds a fresh float64 ``Value`` from checked bytes (``decode_value``),
and the stores write decoded values back (``value_to_data``). No object made by student code crosses.
"""
from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

from autograder.model.outcomes import Value
from autograder.run.wire.checked import WireError, text, total

# Largest value accepted: 1,000,000 float64 (8 MB, 10.7 MB in base64), ten times the course's largest answer
# (n = 100,000). A probe's few outputs then fit one message (``messages.MAX_MESSAGE_BYTES``), so a huge
# return value is refused in the child with a clear message instead of breaking the channel.
MAX_ELEMENTS = 1_000_000


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


def value_to_data(value: Value) -> dict:
    """A decoded Value back to the dict ``decode_value`` reads: for values kept on disk."""
    if value.is_none:
        return {"none": True, "type": value.type_name}
    array = np.asarray(value.array, dtype="<f8")  # not ascontiguousarray: it makes a scalar of shape (1,)
    return {"type": value.type_name, "dtype": value.dtype, "shape": [int(n) for n in array.shape],
            "data": base64.b64encode(array.tobytes(order="C")).decode("ascii")}


@total
def decode_value(data: Any) -> Value:
    """Rebuild a Value from a dict; every field is checked by exact type."""
    if type(data) is not dict:
        raise WireError("a value must be an object")
    if data.get("none") is True:
        return Value(None, text(data.get("type", "NoneType"), "type"))
    type_name = text(data.get("type"), "type")
    dtype = data.get("dtype")
    if dtype is not None:
        dtype = text(dtype, "dtype")
    shape = data.get("shape")
    if type(shape) is not list or len(shape) > 32 or not all(type(n) is int and 0 <= n <= MAX_ELEMENTS
                                                             for n in shape):
        raise WireError("a value's shape must be a list of at most 32 non-negative ints, each at most "
                        f"{MAX_ELEMENTS}")
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise WireError("a value is larger than the grader accepts")
    encoded = data.get("data")
    if type(encoded) is not str or len(encoded) > 4 * (8 * size + 2) // 3 + 4:
        raise WireError("a value's data must be a base64 string of the shape's size")
    try:
        raw = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("a value's data is not base64") from None
    if len(raw) != 8 * size:
        raise WireError(f"a value's data holds {len(raw)} bytes, its shape needs {8 * size}")
    array = np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)
    return Value(array, type_name, dtype)


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    return str(name if isinstance(name, str) else dtype)[:40]


def _python_dtype(obj: Any) -> str:
    if isinstance(obj, float):
        return "python float"
    if isinstance(obj, int):
        return "python int"
    return "unknown"
