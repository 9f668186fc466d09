"""One case's verdict: the student's outcome on it against the reference's."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from autograder.judge.compare import compare
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


def describe_error(error: ErrorInfo) -> str:
    """'ValueError (cell 3, line 2): the first line of its message' (no colon when there is no message)."""
    where = f" ({error.where})" if error.where else ""
    message = error.message.strip().splitlines()[0][:300] if error.message.strip() else ""
    return f"{error.type}{where}: {message}" if message else f"{error.type}{where}"


def judge_case(exercise: Exercise, case: Case, student: TaskOutcome | None, reference: TaskOutcome | None) -> CaseVerdict:
    if student is None or student.status == RunStatus.NOT_RUN:
        return CaseVerdict(case, False, Verdict.NOT_RUN, student.message if student else "not run")
    if student.status in (RunStatus.TIMEOUT, RunStatus.MEMORY, RunStatus.CRASHED):
        return CaseVerdict(case, False, Verdict(student.status.value), student.message)  # the sandbox's words
    if student.status == RunStatus.ERROR:
        error = student.error
        if error.type == "NotImplementedError":
            return CaseVerdict(case, False, Verdict.NOT_IMPLEMENTED, "raises NotImplementedError")
        if error.contract:
            return CaseVerdict(case, False, Verdict.ERROR, error.message)
        return CaseVerdict(case, False, Verdict.ERROR, f"raised {describe_error(error)}")
    failures = []
    failed = []
    rtol, atol = exercise.tolerance(case)
    for output in exercise.outputs:
        if output.name not in reference.outputs:
            continue
        obtained = student.outputs.get(output.name)
        if obtained is None:
            failures.append(f"{output.label} is missing")
            failed.append(output.name)
            continue
        verdict = compare(obtained, reference.outputs[output.name], output, rtol, atol, reveal=case.public)
        if not verdict:
            failures.append(verdict.message)
            failed.append(output.name)
    if failures:
        return CaseVerdict(case, False, Verdict.WRONG, "\n".join(failures), tuple(failed))
    return CaseVerdict(case, True, Verdict.OK)
