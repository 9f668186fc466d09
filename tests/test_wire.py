"""The one codec (autograder.run.wire), on its own: exact round trips, and a WireError for anything else.

No TensorFlow here: every value is built with NumPy, as the child's encoder sees it after ``.numpy()``.
"""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from autograder.model.outcomes import ErrorInfo, RunRecord, RunStatus, TaskOutcome, Value
from autograder.run.wire import checked
from autograder.run.wire.checked import MAX_TEXT, WireError
from autograder.run.wire.messages import dumps, loads
from autograder.run.wire.records import decode_outcome, decode_record, outcome_to_data, record_to_data
from autograder.run.wire.values import MAX_ELEMENTS, decode_value, encode_value, value_to_data

ERROR = ErrorInfo("ValueError", "bad shape", "builtins", contract=True, frames=(("<cell 3>", 4, "f", "x = 1"),))


def through_json(data):
    """What crosses the pipe or the disk: JSON text, parsed again."""
    return json.loads(json.dumps(data, allow_nan=True))


@pytest.mark.parametrize("obj", [np.float32(2.5), np.arange(6, dtype=np.float64).reshape(2, 3), np.array(True),
                                 3, 1.25, [[1.0, 2.0], [3.0, 4.0]], np.array([np.inf, -np.inf, np.nan])])
def test_a_value_comes_back_as_float64_with_its_shape_and_type(obj):
    value = decode_value(through_json(encode_value(obj)))
    expected = np.asarray(obj, dtype=np.float64)
    assert value.array.dtype == np.float64 and value.array.shape == expected.shape
    assert np.array_equal(value.array, expected, equal_nan=True)
    assert value.type_name == type(obj).__name__


def test_none_travels_as_none_and_keeps_its_type_name():
    assert decode_value(encode_value(None)) == Value(None, "NoneType")
    assert decode_value(value_to_data(Value(None, "NoneType"))).is_none


def test_a_non_numeric_value_is_the_students_type_error():
    with pytest.raises(TypeError, match="not numeric"):
        encode_value("a string")
    with pytest.raises(TypeError, match="more than the grader accepts"):
        encode_value(np.zeros(MAX_ELEMENTS + 1))


def test_outcomes_and_records_round_trip_exactly():
    outcome = TaskOutcome(RunStatus.OK, {"value": Value(np.arange(4.0).reshape(2, 2).T, "ndarray", "float64"),
                                         "gradient": Value(None, "NoneType")}, seconds=0.25)
    again = decode_outcome(through_json(outcome_to_data(outcome)))
    assert again.status is RunStatus.OK and again.seconds == 0.25
    assert np.array_equal(again.outputs["value"].array, outcome.outputs["value"].array)
    assert again.outputs["gradient"].is_none
    record = RunRecord(loaded=True, seconds=1.5, problems=["cell 2 was skipped"], load_errors=[(7, ERROR)],
                       defined={"log1pexp": ["x"], "td_loss": "not a function but a int"},
                       outcomes={0: outcome, 1: TaskOutcome("error", error=ERROR), 2: TaskOutcome("timeout",
                                                                                                    message="slow")})
    back = decode_record(through_json(record_to_data(record)))
    assert back.load_errors == record.load_errors and back.defined == record.defined
    assert back.problems == record.problems and back.loaded and back.seconds == 1.5
    assert [back.outcomes[n].status for n in range(3)] == [RunStatus.OK, RunStatus.ERROR, RunStatus.TIMEOUT]
    assert back.outcomes[1].error == ERROR and back.outcomes[2].message == "slow"


def good_value() -> dict:
    return encode_value(np.arange(3.0))


@pytest.mark.parametrize("broken", [
    [1, 2],  # not an object
    {**good_value(), "shape": [2]},  # the data holds 3 numbers
    {**good_value(), "shape": [-3]},
    {**good_value(), "shape": [3.0]},
    {**good_value(), "shape": [True, 3]},  # a bool is not an int here
    {**good_value(), "data": "not base64!"},
    {**good_value(), "data": 12},
    {**good_value(), "type": None},
    {**good_value(), "shape": [1001, 1000], "data": ""},  # larger than the grader accepts
])
def test_a_malformed_value_is_a_wire_error(broken):
    with pytest.raises(WireError):
        decode_value(broken)


@pytest.mark.parametrize("broken", [
    {"status": "fine"},  # not a status the grader knows
    {"status": "ok", "outputs": [1]},
    {"status": "error", "error": "oops"},
    {"status": "ok", "outputs": None, "seconds": float("nan")},
    {"status": "ok", "outputs": None, "message": 3},
    {"status": "error", "error": {"type": "E", "frames": [{"file": "<cell 1>", "line": "4", "function": "f"}]}},
])
def test_a_malformed_outcome_is_a_wire_error(broken):
    with pytest.raises(WireError):
        decode_outcome(broken)


@pytest.mark.parametrize("broken", [
    {"loaded": 1, "outcomes": {}},
    {"loaded": True, "outcomes": {"x": {"status": "ok"}}},
    {"loaded": True, "outcomes": {}, "load_errors": [[1]]},
    {"loaded": True, "outcomes": {}, "defined": {"f": [1]}},
    {"loaded": True, "outcomes": []},
])
def test_a_malformed_record_is_a_wire_error(broken):
    with pytest.raises(WireError):
        decode_record(broken)


def test_messages_are_objects_with_an_event_and_nothing_is_evaluated():
    assert loads(dumps({"event": "done"})) == {"event": "done"}
    for data in (b"\xff\xfe", b"[1, 2]", b'{"no": "event"}', b'{"event": 3}', b"{"):
        with pytest.raises(WireError):
            loads(data)


def test_texts_are_cut_to_the_limit_and_numbers_must_be_finite():
    assert len(checked.text("x" * (MAX_TEXT + 10), "message")) == MAX_TEXT
    for bad in (float("inf"), "1", None, True, [1]):
        with pytest.raises(WireError):
            checked.number(bad, "seconds")


def test_arrays_travel_as_little_endian_float64_bytes():
    assert base64.b64decode(good_value()["data"]) == np.arange(3.0, dtype="<f8").tobytes()
