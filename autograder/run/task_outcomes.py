"""The outcome the parent writes for each task of a run: a child's result as it is kept, and what a stopped child,
a give-up or the end of the run leave to the tasks that have none yet.

A finished run's record holds exactly one outcome per task. A failure costs the task that was running and the
later cases of the same implementation and exercise (they would most likely fail the same way), never an
outcome already written. Once a hidden case was handed, why a process stopped is told in the grader's words
only (``STOPPED``): an exit code, a signal or a message may be the student's code's choice.
"""
from __future__ import annotations

from dataclasses import replace

from autograder.config import GiB, Limits
from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.run.tasks import Task

MEMORY_ERRORS = {"MemoryError", "ResourceExhaustedError"}
STOPPED = ("the submission's process stopped between two cases (it crashed, exited, ran out of a limit or "
           "broke the grader's protocol)")  # what a note says once a hidden case was handed: nothing chosen


def kept_result(outcome: TaskOutcome, limits: Limits) -> TaskOutcome:
    """A child's result or error as the record keeps it: its words are its error's, never a note the child
    chose; an allocation that the address-space limit made fail is the memory limit's."""
    outcome = replace(outcome, message="")
    if outcome.status is RunStatus.ERROR and outcome.error.type in MEMORY_ERRORS:
        outcome = replace(outcome, status=RunStatus.MEMORY, message=(
            f"memory limit of {limits.memory_bytes / GiB:g} GiB exceeded ({outcome.error.type})"))
    return outcome


def skipped() -> TaskOutcome:
    """A task that was not run because it could not matter (the pipeline's ``wanted``)."""
    return TaskOutcome(RunStatus.SKIPPED, message="skipped: it could not change this exercise's feedback")


def fail_with_its_group(record: RunRecord, tasks: list[Task], failed: int, reason: str, status: RunStatus) -> None:
    """Task ``failed`` stopped for ``reason``; the other cases of the same implementation and exercise after it
    in the exercise's own order (whatever order they run in) are not run."""
    record.outcomes[failed] = TaskOutcome(status, message=reason)
    group = (tasks[failed].implementation, tasks[failed].exercise)
    for later in range(failed + 1, len(tasks)):
        if (tasks[later].implementation, tasks[later].exercise) == group:
            record.outcomes.setdefault(later, TaskOutcome(
                RunStatus.NOT_RUN, message=f"not run: an earlier case stopped ({reason})"))


def fail_all_left(record: RunRecord, tasks: list[Task], reason: str, status: RunStatus) -> None:
    """A problem of the whole submission: noted once, and the outcome of every task that has none yet."""
    for number in range(len(tasks)):
        record.outcomes.setdefault(number, TaskOutcome(status, message=reason))
    record.problems.append(reason)


def stop_note(reason: str, after_hidden_case: bool) -> str:
    """Why the process stopped, as a note may say it: between two cases, after a hidden one, only ``STOPPED``."""
    return STOPPED if after_hidden_case else reason


def not_run_left(record: RunRecord, tasks: list[Task]) -> None:
    """The run is over: a task that still has no outcome was not run."""
    for number in range(len(tasks)):
        record.outcomes.setdefault(number, TaskOutcome(RunStatus.NOT_RUN, message="not run"))
