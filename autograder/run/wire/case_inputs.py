"""A case's inputs, parent to child, exactly: arrays and NumPy scalars with their dtype, containers, plain scalars.

The trusted direction only: the parent encodes a case once per run (``handing.CaseBook``) and hands it to a
child with its task; the child rebuilds fresh, writable arrays (``decode_args``). A case holds plain data,
so anything else is the grader's own error (``TypeError``), never sent.
"""
from __future__ import annotations

import base64
from typing import Any, Mapping

import numpy as np


def encode_args(value: Any) -> Any:
    """Parent side: a case's plain-data inputs as JSON data, exactly: arrays and NumPy scalars with their dtype,
    tuples, lists, dicts, numbers, strings, None. TypeError for anything else (a case holds plain data)."""
    if isinstance(value, (np.ndarray, np.generic)) and not np.asarray(value).dtype.hasobject:
        array = np.asarray(value)  # not ascontiguousarray: it makes a 0-d array of shape (1,)
        return {"array": array.dtype.str, "shape": list(array.shape), "scalar": isinstance(value, np.generic),
                "data": base64.b64encode(array.tobytes(order="C")).decode("ascii")}
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [encode_args(item) for item in value]}
    if isinstance(value, Mapping):
        return {"dict": [[str(key), encode_args(item)] for key, item in value.items()]}
    if value is None or type(value) in (bool, int, float, str):
        return value
    raise TypeError(f"a case input of type {type(value).__name__} cannot be handed to a child")


def decode_args(data: Any) -> Any:
    """Child side: what ``encode_args`` made, rebuilt (fresh, writable arrays)."""
    if type(data) is not dict:
        return data
    if "array" in data:
        array = np.frombuffer(base64.b64decode(data["data"]), dtype=np.dtype(data["array"])).reshape(data["shape"])
        return array[()] if data["scalar"] else array.copy()
    if "dict" in data:
        return {key: decode_args(item) for key, item in data["dict"]}
    items = [decode_args(item) for item in data.get("tuple", data.get("list", []))]
    return tuple(items) if "tuple" in data else items
