"""A task's outcome and a run's record, as wire data and back: what the parent keeps, caches and ships.

The parent decodes a child's outcome of one task (``decode_outcome``) and what its cells defined
(``decode_defined``); the reference cache and a cluster's workers keep and send whole records
(``record_to_data``, ``decode_record``); the public answers ship outcomes. Parent side only: the child
builds its outcome in this format (``probe.probe_outcome``) and never decodes one.
"""
from __future__ import annotations

from typing import Any

from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.run.wire.checked import MAX_ITEMS, WireError, as_int, as_list, number, text, total
from autograder.run.wire.error_info import decode_error, error_to_data
from autograder.run.wire.values import decode_value, value_to_data


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
