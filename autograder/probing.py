"""Running a probe on a student's function, shared by the grader's child and the students' self-check.

No TensorFlow import here: the self-check imports this in the student's kernel, the child after its own.
"""
from __future__ import annotations

import inspect
from typing import Any

from autograder import wire
from autograder.spec import ContractError, Exercise


def parameters(value: Any) -> list[str] | str:
    """The positional parameter names of a function, or why it is not one."""
    if not callable(value):
        return f"not a function but a {type(value).__name__}"
    try:
        return [p.name for p in inspect.signature(value).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def encoded_outputs(exercise: Exercise, function: Any, args) -> dict[str, dict]:
    """The probe's outputs as wire values; a non-numeric output is the student's ContractError."""
    encoded = {}
    for name, value in exercise.probe(function, args).items():
        try:
            encoded[name] = wire.encode_value(value)
        except TypeError as error:
            raise ContractError(f"{exercise.output(name).label} came back as {error}") from None
    return encoded
