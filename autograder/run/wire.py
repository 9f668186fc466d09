"""The one codec: values, errors, task outcomes and run records as plain JSON data, both ways.

Used by the child (encoding what a student's function returned), the parent (decoding a child's messages;
encoding the one case a child is handed when its task starts), the reference cache (records kept on disk)
and the students' stored public answers (outcomes shipped in the wheel). Arrays travel as base64 float64
bytes with a shape. Nothing is unpickled and no object made by student code ever reaches the parent:
decoding rebuilds fresh ``numpy.ndarray``s of dtype float64 from bytes after checking every field's type
exactly, and raises ``WireError`` for anything else.

Decoding is total: whatever bytes a child (or a damaged cache file) holds, every ``decode_*`` and ``loads``
either returns checked data or raises ``WireError``, never another exception (a message nested 100,000
deep, a 5,000-digit integer, a shape that numpy cannot reshape to, a lone surrogate in a string). Sizes
are bounded before anything is built: a message's bytes, its count of JSON containers and separators
(what parsing turns into Python objects), each value's elements and each dimension.
"""
from __future__ import annotations

import base64
import functools
import json
import math
import re
from typing import Any, Callable, Mapping, TypeVar

import numpy as np

from autograder.model.outcomes import CellOutput, ErrorInfo, RunRecord, RunStatus, TaskOutcome, Value

# Largest value accepted: 1,000,000 float64 (8 MB, 10.7 MB in base64), ten times the course's largest answer
# (n = 100,000). A probe's few outputs then fit one message (MAX_MESSAGE_BYTES), so a huge return value is
# refused in the child with a clear message instead of breaking the channel.
MAX_ELEMENTS = 1_000_000
MAX_MESSAGE_BYTES = 64 * 2**20
MAX_TEXT = 4_000  # characters kept of an exception message or a type name
MAX_FRAMES = 5
# JSON containers and separators in one message: what parsing turns into Python objects. A real message holds
# a few hundred (plus the commas of its exception messages); a million keeps a hostile one near 100 MB.
MAX_STRUCTURE = 1_000_000
MAX_ITEMS = 64  # outputs of one outcome, names in `defined`, parameters of one function, measures
MAX_INT = 2**53  # integers (task and cell numbers, line numbers): anything beyond is not the grader's
_SURROGATE = re.compile("[\ud800-\udfff]")

T = TypeVar("T")


class WireError(ValueError):
    """Data that is not what the protocol allows."""


def total(decode: Callable[..., T]) -> Callable[..., T]:
    """Make a decoder total: any exception while decoding untrusted data is a WireError, never another one."""
    @functools.wraps(decode)
    def checked(*args, **kwargs):
        try:
            return decode(*args, **kwargs)
        except WireError:
            raise
        except Exception as error:  # noqa: BLE001  (RecursionError, MemoryError, OverflowError, ValueError...)
            raise WireError(f"malformed data ({type(error).__name__})") from None
    return checked


# --------------------------------------------------------------------------- messages

def dumps(message: dict) -> bytes:
    return json.dumps(message, allow_nan=True).encode("utf-8")


@total
def loads(data: bytes) -> dict:
    """Bytes to a message dict, or WireError. Never evaluates anything."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise WireError("a message larger than the grader accepts")
    if sum(data.count(c) for c in (b"[", b"{", b",", b":")) > MAX_STRUCTURE:
        raise WireError("a message with more items than the grader accepts")
    try:
        message = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WireError(f"malformed message: {error}") from None
    if type(message) is not dict or type(message.get("event")) is not str:
        raise WireError("a message must be an object with an 'event'")
    return message


# --------------------------------------------------------------------------- values

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


# --------------------------------------------------------------------------- errors

def error_to_data(error: ErrorInfo) -> dict:
    return {"type": error.type[:200], "module": error.module[:200], "message": error.message[:MAX_TEXT],
            "contract": error.contract,
            "frames": [{"file": f, "line": n, "function": fn, "code": code[:200]}
                       for f, n, fn, code in error.frames[-MAX_FRAMES:]]}


@total
def decode_error(data: Any) -> ErrorInfo:
    if type(data) is not dict:
        raise WireError("an error must be an object")
    frames = []
    listed = as_list(data.get("frames", []))
    if len(listed) > MAX_FRAMES:
        raise WireError("an error with more frames than the grader keeps")
    for frame in listed:
        if type(frame) is not dict:
            raise WireError("a frame must be an object")
        frames.append((one_line(frame.get("file"), "file"), as_int(frame.get("line")),
                       one_line(frame.get("function"), "function"), one_line(frame.get("code", ""), "code")))
    return ErrorInfo(type=one_line(data.get("type"), "type"), message=text(data.get("message", ""), "message"),
                     module=one_line(data.get("module", ""), "module"), contract=data.get("contract") is True,
                     frames=tuple(frames))


# --------------------------------------------------------------------------- outcomes and records

def outcome_to_data(outcome: TaskOutcome) -> dict:
    return {"status": outcome.status.value,
            "outputs": None if outcome.outputs is None else {name: value_to_data(value)
                                                             for name, value in sorted(outcome.outputs.items())},
            "error": None if outcome.error is None else error_to_data(outcome.error),
            "message": outcome.message, "seconds": outcome.seconds}


@total
def decode_outcome(data: Any) -> TaskOutcome:
    if type(data) is not dict:
        raise WireError("an outcome must be an object")
    try:
        status = RunStatus(data.get("status"))
    except ValueError:
        raise WireError("an outcome's status is not one the grader knows") from None
    outputs = data.get("outputs")
    if outputs is not None:
        if type(outputs) is not dict or len(outputs) > MAX_ITEMS:
            raise WireError("outputs must be an object of a few values")
        outputs = {text(name, "output"): decode_value(value) for name, value in outputs.items()}
    error = data.get("error")
    return TaskOutcome(status, outputs, None if error is None else decode_error(error),
                       text(data.get("message", ""), "message"), number(data.get("seconds", 0.0), "seconds"))


def record_to_data(record: RunRecord) -> dict:
    return {"loaded": record.loaded, "seconds": record.seconds, "problems": list(record.problems),
            "load_errors": [[cell, error_to_data(error)] for cell, error in record.load_errors],
            "defined": record.defined,
            "outcomes": {str(number): outcome_to_data(outcome) for number, outcome in sorted(record.outcomes.items())}}


@total
def decode_record(data: Any) -> RunRecord:
    if type(data) is not dict or type(data.get("loaded")) is not bool:
        raise WireError("a record must be an object")
    record = RunRecord(loaded=data["loaded"], seconds=number(data.get("seconds", 0.0), "seconds"),
                       problems=[text(p, "problem") for p in as_list(data.get("problems", []))])
    for item in as_list(data.get("load_errors", [])):
        if len(as_list(item)) != 2:
            raise WireError("a load error must be a [cell, error] pair")
        record.load_errors.append((as_int(item[0]), decode_error(item[1])))
    record.defined = decode_defined(data.get("defined", {}))
    outcomes = data.get("outcomes")
    if type(outcomes) is not dict:
        raise WireError("outcomes must be an object")
    for key, value in outcomes.items():
        if not (type(key) is str and key.isdigit()):
            raise WireError("an outcome's task number must be digits")
        record.outcomes[int(key)] = decode_outcome(value)
    return record


@total
def decode_defined(data: Any) -> dict[str, list[str] | str]:
    """What the child found defined: exercise -> its positional parameters, or why it is not a function."""
    if type(data) is not dict or len(data) > MAX_ITEMS:
        raise WireError("defined must be an object of a few names")
    return {text(name, "name"): (text(value, "why") if type(value) is str
                                 else [text(v, "param") for v in as_list(value)[:MAX_ITEMS]])
            for name, value in data.items()}


# --------------------------------------------------------------------------- a cell's outputs

# What one cell may show (nbgrader's autograded notebook): the child cuts to these first (``run.capture``),
# the parent refuses anything beyond them.
MAX_CELL_OUTPUTS = 100
MAX_OUTPUT_TEXT = 100_000  # characters of one stream or one text/plain
MAX_IMAGE_BYTES = 2 * 2**20  # one PNG
STREAMS = ("stdout", "stderr")
DISPLAYS = ("display_data", "execute_result")
_PNG = b"\x89PNG\r\n\x1a\n"


@total
def decode_cell_outputs(data: Any) -> list[CellOutput]:
    """A cell's outputs as the child sent them: streams by name, displays of text/plain and PNG only."""
    listed = as_list(data)
    if len(listed) > MAX_CELL_OUTPUTS:
        raise WireError("more outputs in one cell than the grader keeps")
    outputs = []
    for item in map(as_dict, listed):
        kind = item.get("kind")
        if kind == "stream" and item.get("name") in STREAMS:
            outputs.append(CellOutput("stream", name=item["name"], text=_output_text(item.get("text"))))
        elif kind in DISPLAYS:
            bundle = as_dict(item.get("data"))
            if not bundle or not set(bundle) <= {"text/plain", "image/png"}:
                raise WireError("a display holds text/plain and image/png only")
            data_out = []
            if "text/plain" in bundle:
                data_out.append(("text/plain", _output_text(bundle["text/plain"])))
            if "image/png" in bundle:
                data_out.append(("image/png", _png(bundle["image/png"])))
            outputs.append(CellOutput(kind, data=tuple(data_out)))
        else:
            raise WireError("an output that is not a stream, a display or an execute result")
    return outputs


def _output_text(value: Any) -> str:
    if type(value) is not str or len(value) > MAX_OUTPUT_TEXT:
        raise WireError(f"an output's text must be a string of at most {MAX_OUTPUT_TEXT} characters")
    return _SURROGATE.sub("\ufffd", value)


def _png(value: Any) -> str:
    if type(value) is not str or len(value) > 4 * MAX_IMAGE_BYTES // 3 + 4:
        raise WireError("an image must be base64 text of at most 2 MiB")
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("an image is not base64") from None
    if not raw.startswith(_PNG):
        raise WireError("an image that is not a PNG")
    return base64.b64encode(raw).decode("ascii")  # re-encoded: nothing but base64 reaches the notebook


# --------------------------------------------------------------------------- a case's inputs (parent to child)

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


# --------------------------------------------------------------------------- checked scalars

def text(value: Any, what: str) -> str:
    """A string, cut to MAX_TEXT characters, with any lone surrogate (not text: no writer can encode it)
    replaced by U+FFFD."""
    if type(value) is not str:
        raise WireError(f"{what} must be a string")
    return _SURROGATE.sub("\ufffd", value[:MAX_TEXT])


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def one_line(value: Any, what: str) -> str:
    """A name that is one line by nature (an exception's type or module, a file, a function, a line of
    code): ``text``, with every control character written as its escape (a type named "Evil\\nFAKE" must
    not start a line of its own in any report)."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
                        else f"\\u{ord(match.group()):04x}", text(value, what))


def number(value: Any, what: str) -> float:
    if type(value) is int and abs(value) <= MAX_INT:
        return float(value)
    if type(value) is not float or not math.isfinite(value):
        raise WireError(f"{what} must be a finite number")
    return value


def as_int(value: Any) -> int:
    if type(value) is not int or abs(value) > MAX_INT:
        raise WireError("expected an integer")
    return value


def as_dict(value: Any) -> dict:
    if type(value) is not dict:
        raise WireError("expected an object")
    return value


def as_list(value: Any) -> list:
    if type(value) is not list:
        raise WireError("expected a list")
    return value
