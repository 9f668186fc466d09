"""One case's verdict: the student's outcome on it against the reference's."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from autograder.judge.compare import compare
from autograder.judge.hidden import hidden_message, kind_of
from autograder.judge.messages import headline
from autograder.model.course import Case, Exercise
from autograder.model.outcomes import ErrorInfo, RunStatus, TaskOutcome


class Verdict(str, Enum):
    """How a case ended for the student: a run status, or wrong numbers, or the stub."""

    OK = "ok"
    WRONG = "wrong"
    ERROR = "error"
    NOT_IMPLEMENTED = "not-implemented"
    TIMEOUT = RunStatus.TIMEOUT.value
    MEMORY = RunStatus.MEMORY.value
    CRASHED = RunStatus.CRASHED.value
    NOT_RUN = RunStatus.NOT_RUN.value

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


STOPPED = frozenset({Verdict.TIMEOUT, Verdict.MEMORY, Verdict.CRASHED})  # the sandbox stopped it


@dataclass
class CaseVerdict:
    case: Case
    passed: bool
    kind: Verdict
    message: str = ""
    failed_outputs: tuple[str, ...] = ()
    failure_kinds: tuple[str, ...] = ()  # for each failed output, what failed ("shape", "values"...: ``compare``)


def describe_error(error: ErrorInfo) -> str:
    """'ValueError (cell [3], line 2): what went wrong' (``messages.headline``; no colon without a message)."""
    where = f" ({error.where})" if error.where else ""
    message = headline(error)
    return f"{error.type}{where}: {message}" if message else f"{error.type}{where}"


def _raised_while_tracing(error: ErrorInfo) -> bool:
    """A NotImplementedError from TensorFlow's autograph (a tensor-dependent `break` in a Python loop inside a
    tf.function): an error in written code, not the exercise's stub."""
    return error.message.lstrip().startswith("in user code:")


def judge_case(exercise: Exercise, case: Case, student: TaskOutcome | None, reference: TaskOutcome | None,
               public_kinds: frozenset[str] | None = None) -> CaseVerdict:
    """The verdict; a failed hidden case's message is one of the contract's fixed kinds (``judge.hidden``), and,
    for a graded one when ``public_kinds`` (the kinds the exercise's public cases failed with) is known, whether
    a public case fails the same way."""
    verdict = _verdict(exercise, case, student, reference)
    if not case.public and not verdict.passed:
        kind = kind_of(verdict, student)
        twin = None if public_kinds is None or not case.graded else kind in public_kinds
        verdict.message = hidden_message(kind, twin)
    return verdict


def _verdict(exercise: Exercise, case: Case, student: TaskOutcome | None, reference: TaskOutcome | None) -> CaseVerdict:
    if student is None or student.status in (RunStatus.NOT_RUN, RunStatus.SKIPPED):
        return CaseVerdict(case, False, Verdict.NOT_RUN, student.message if student else "not run")
    if student.status in (RunStatus.TIMEOUT, RunStatus.MEMORY, RunStatus.CRASHED):
        return CaseVerdict(case, False, Verdict(student.status.value), student.message)  # the sandbox's words
    if student.status == RunStatus.ERROR:
        error = student.error
        if error.type == "NotImplementedError" and not _raised_while_tracing(error):
            return CaseVerdict(case, False, Verdict.NOT_IMPLEMENTED, "raises NotImplementedError")
        if error.contract:
            return CaseVerdict(case, False, Verdict.ERROR, error.message)
        return CaseVerdict(case, False, Verdict.ERROR, f"raised {describe_error(error)}")
    failures, failed, kinds = [], [], []
    rtol, atol = exercise.tolerance(case)
    for output in exercise.outputs:
        if output.name not in reference.outputs:
            continue
        obtained = student.outputs.get(output.name)
        if obtained is None:
            failures.append(f"{output.label} is missing")
            failed.append(output.name)
            kinds.append("missing")
            continue
        verdict = compare(obtained, reference.outputs[output.name], output, rtol, atol, reveal=case.public)
        if not verdict:
            failures.append(verdict.message)
            failed.append(output.name)
            kinds.append(verdict.kind)
    if failures:
        return CaseVerdict(case, False, Verdict.WRONG, "\n".join(failures), tuple(failed), tuple(kinds))
    return CaseVerdict(case, True, Verdict.OK)
