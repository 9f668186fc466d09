"""Running a probe on a student's function, as the grader's child and the students' self-check both do.

The probe's outputs are encoded with the one codec (``wire``) right where they were computed; what comes
back to whoever judges is an outcome in ``wire``'s format. No TensorFlow import here: the self-check
imports this in the student's kernel, the child after its own import.
"""
from __future__ import annotations

import inspect
import time
import traceback
from typing import Any, Callable

from autograder.model.course import ContractError, Exercise
from autograder.model.outcomes import ErrorInfo
from autograder.run.wire.checked import MAX_TEXT
from autograder.run.wire.error_info import MAX_FRAMES, error_to_data
from autograder.run.wire.values import encode_value


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
            encoded[name] = encode_value(value)
        except TypeError as error:
            raise ContractError(f"{exercise.output(name).label} came back as {error}") from None
    return encoded


def describe_exception(error: BaseException, student_file: Callable[[str], str | None]) -> ErrorInfo:
    """Type, message and the student's own frames of an exception; ``student_file`` names a frame's file as
    the feedback shows it ("<cell [7]>"), or None for frames that are not the student's."""
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        shown = student_file(frame.filename)
        if shown is not None:
            frames.append((shown, frame.lineno or 0, frame.name, (frame.line or "")[:200]))
    try:
        message = str(error)
    except Exception:  # noqa: BLE001  (a student's exception whose __str__ raises)
        message = "<message unavailable>"
    return ErrorInfo(type(error).__name__[:200], message[:MAX_TEXT], (type(error).__module__ or "")[:200],
                     isinstance(error, ContractError), tuple(frames[-MAX_FRAMES:]))


def probe_outcome(exercise: Exercise, function: Any, args, student_file: Callable[[str], str | None],
                  catch: type[BaseException] = BaseException) -> dict:
    """Run the probe on ``function`` and return its outcome in ``wire``'s format. The student's errors are
    the outcome, never raised; in the grader's child that includes SystemExit and KeyboardInterrupt, in a
    student's own kernel (``catch=Exception``) an interrupt still interrupts."""
    started = time.perf_counter()
    try:
        if function is None:
            raise ContractError(f"{exercise.id} is not defined")
        outputs, error = encoded_outputs(exercise, function, args), None
    except catch as raised:  # noqa: BLE001
        outputs, error = None, error_to_data(describe_exception(raised, student_file))
    return {"status": "ok" if error is None else "error", "outputs": outputs, "error": error, "message": "",
            "seconds": time.perf_counter() - started}
