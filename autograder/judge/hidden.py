"""What a student sees of a hidden case: the kind of failure and the line, never what their code chose.

A hidden case's inputs reach the student's code only while it runs on them (CURRICULUM.md, "The course
secret stays with the grader"), and whatever comes back from that run is that code's choice: an exception's
type name and message, a returned array's shape, dtype and values, the way its process ended. Any of them
could carry the case's inputs out, or what the code found in its process. So a hidden case's feedback is
written here, in the grader's words only: wrong values, a wrong shape (the expected one), None, an error of a
Python or TensorFlow type (any other type is "of its own"), time, memory, a process that stopped; and the
cell and line of the student's code the error came from, when that cell and line exist in the submission.
The case's public twin shows the rest (its messages are the student's own code talking about public data).
"""
from __future__ import annotations

import builtins

from autograder.judge.frames import deepest_place
from autograder.load.cells import SubmissionSource
from autograder.model.course import Exercise
from autograder.model.outcomes import ErrorInfo, TaskOutcome

PYTHON_ERRORS = frozenset(name for name, value in vars(builtins).items()
                          if isinstance(value, type) and issubclass(value, BaseException))
# tf.errors (and the two NumPy errors students meet beside TensorFlow): names, never what an object says it is
LIBRARY_ERRORS = frozenset({
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
    "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "LinAlgError", "AxisError"})
WRONG = {
    "shape": "has the wrong shape",
    "dtype": "has the wrong dtype",
    "none": "is None (the gradient does not reach it)",
    "not-zero": "should be None or zero, and is not",
    "values": "is not close to the reference",
    "missing": "is missing",
}
CONTRACT = ("returned what the exercise does not allow (its type, structure or shape); the case's public twin "
            "shows the message when it fails the same way")
STOPPED = "the process running it stopped (it crashed, exited or broke the grader's protocol)"
NOT_RUN = "not run: an earlier case of this exercise stopped its process"


def known_type(error: ErrorInfo) -> str | None:
    """The error's type when it is one of Python's or TensorFlow's (a name from a closed list), else None."""
    return error.type if error.type in PYTHON_ERRORS | LIBRARY_ERRORS else None


def error_name(error: ErrorInfo) -> str:
    """The error's type when it is one of Python's or TensorFlow's, else a phrase that names none."""
    return known_type(error) or "an exception of a type of its own"


def place(error: ErrorInfo, source: SubmissionSource | None) -> str:
    """'cell [7], line 4' of the deepest frame of the student's code, when that cell and line exist in the
    submission (a frame's file name is the code's to choose); else ''."""
    found = deepest_place(error.frames, source)
    return "" if found is None or source is None else source.where(found[0], found[1])


def raised(error: ErrorInfo, source: SubmissionSource | None) -> str:
    where = place(error, source)
    return f"raised {error_name(error)}" + (f" ({where})" if where else "")


def hidden_message(exercise: Exercise, verdict, student: TaskOutcome | None, reference: TaskOutcome | None,
                   source: SubmissionSource | None) -> str:
    """A hidden case's message (``verdict``: its ``judge.cases.CaseVerdict``), in the grader's words only."""
    kind = str(verdict.kind)
    if verdict.passed:
        return ""
    if kind == "wrong":
        lines = []
        for name, what in zip(verdict.failed_outputs, verdict.failure_kinds):
            expected = reference.outputs.get(name) if reference is not None and reference.outputs else None
            detail = ""
            if what == "shape" and expected is not None and expected.array is not None:
                detail = f" (expected {tuple(int(n) for n in expected.array.shape)})"
            elif what == "dtype" and expected is not None and expected.dtype:
                detail = f" (expected {expected.dtype})"
            output = exercise.output(name)
            said = "differs from the reference" if output.exact and what == "values" else WRONG.get(what, WRONG["values"])
            lines.append(f"{output.label} {said}{detail}")
        return "\n".join(lines)
    if kind == "error" and student is not None and student.error is not None:
        return CONTRACT if student.error.contract else raised(student.error, source)
    if kind == "not-implemented":
        return "raises NotImplementedError"
    if kind in ("timeout", "memory") and student is not None:
        return student.message  # the parent's words: the limit that was reached
    if kind == "crashed":
        return STOPPED
    return NOT_RUN
