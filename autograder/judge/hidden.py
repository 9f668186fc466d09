"""What a student sees of a hidden case: one of a fixed set of kinds, never anything their code chose.

A hidden case's inputs reach the student's code only while it runs on them (CURRICULUM.md, "The course
secret stays with the grader"), and whatever comes back from that run is that code's choice: an exception's
type, message and line (code can compile a ``raise`` at any line under any file name), a returned array's
shape, dtype and values, which outputs are wrong, the way its process ended. Every distinct thing shown is a
bit it could carry out. So a hidden case's feedback is its description (the grader's, without values) and
one of ``HIDDEN_KINDS`` (CURRICULUM.md, "A hidden case's feedback carries nothing that student code chose"),
plus one of two pointers that depend only on the public cases, which run before any hidden case exists
(``run.handing``): the public case that fails the same way, whose feedback shows the error, the line and the
numbers; or, where none does, that no public case fails this way.

The diagnosis reads hidden cases blinded the same way (``blinded``): a hidden error's type, message and
frames never decide which pitfall is named or what an explanation says.
"""
from __future__ import annotations

import builtins
from dataclasses import replace

from autograder.model.course import Case
from autograder.model.outcomes import ErrorInfo, TaskOutcome

PYTHON_ERRORS = frozenset(name for name, value in vars(builtins).items()
                          if isinstance(value, type) and issubclass(value, BaseException))
# tf.errors (and the two NumPy errors students meet beside TensorFlow): names, never what an object says it is
LIBRARY_ERRORS = frozenset({
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
    "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "LinAlgError", "AxisError"})
MEMORY_ERRORS = frozenset({"MemoryError", "ResourceExhaustedError"})

# The contract's fixed kinds, in the grader's words; the only things a hidden case's message names.
HIDDEN_KINDS: dict[str, str] = {
    "values": "wrong values (not close to the reference)",
    "shape": "a wrong shape or dtype (or a type or structure the exercise does not allow)",
    "none": "None where a value was due (a gradient that does not reach it)",
    "error": "an error (it raised, or its process stopped)",
    "timeout": "out of time",
    "memory": "out of memory",
}
# Not a failure of the case itself: an earlier case (shown, with its own kind) stopped the process.
NOT_RUN = "not run: an earlier case of this exercise stopped its process"
TWIN = "the public case above fails the same way: its feedback shows the details"
NO_TWIN = ("no public case fails this way: run your function on inputs like this description's (the public "
           "checks show inputs of each kind) to find the cause")
# For a wrong case, which output's kind is said: None first, then a shape or dtype, then values.
_WRONG_ORDER = (("none", ("none",)), ("shape", ("shape", "dtype", "missing")))


def known_type(error: ErrorInfo) -> str | None:
    """The error's type when it is one of Python's or TensorFlow's (a name from a closed list), else None."""
    return error.type if error.type in PYTHON_ERRORS | LIBRARY_ERRORS else None


def kind_of(verdict, student: TaskOutcome | None) -> str:
    """A failed case's kind: a key of ``HIDDEN_KINDS``, or "not-run" (``verdict``: a ``judge.cases.CaseVerdict``)."""
    kind = str(verdict.kind)
    if kind == "wrong":
        failed = set(verdict.failure_kinds)
        return next((name for name, kinds in _WRONG_ORDER if failed & set(kinds)), "values")
    if kind == "error" and student is not None and student.error is not None:
        if student.error.contract:
            return "shape"
        return "memory" if student.error.type in MEMORY_ERRORS else "error"
    if kind in ("timeout", "memory"):
        return kind
    if kind in ("not-implemented", "crashed", "error"):
        return "error"
    return "not-run"


def hidden_message(kind: str, twin: bool | None) -> str:
    """A hidden case's message: its kind and (for a graded case, ``twin`` not None) whether a public case of the
    exercise fails the same way."""
    if kind not in HIDDEN_KINDS:
        return NOT_RUN
    if twin is None:
        return HIDDEN_KINDS[kind]
    return f"{HIDDEN_KINDS[kind]}; {TWIN if twin else NO_TWIN}"


def every_hidden_message() -> frozenset[str]:
    """Every message a hidden case can show: what a test holds the writers to."""
    return frozenset({NOT_RUN} | {hidden_message(kind, twin) for kind in HIDDEN_KINDS for twin in (None, True, False)})


def blinded(case: Case, outcome: TaskOutcome | None) -> TaskOutcome | None:
    """What the diagnosis may read of a case's outcome: all of a public case's; of a hidden case, its status,
    its numbers (compared with the reference's and the mistake models') and whether an error was the probe's
    contract or a memory error, never a type, message, frame or note of the student's code."""
    if case.public or outcome is None:
        return outcome
    error = outcome.error
    if error is not None:
        memory = error.type in MEMORY_ERRORS and not error.contract
        error = ErrorInfo("MemoryError" if memory else "", "", contract=error.contract)
    return replace(outcome, error=error, message="")
