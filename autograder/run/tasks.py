"""What the parent asks a child to do: plain, picklable descriptions, no TensorFlow.

The parent builds a ``ChildJob`` per child start and hands it to the fork server (``forkserver``), which
forks a child that runs it (``child``). The job travels the trusted direction only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.run.isolation import Containment

STUDENT = "student"


@dataclass(frozen=True)
class Task:
    """Run one implementation of one exercise on one case."""

    exercise: str
    case_index: int
    implementation: str  # "student" (the submission's function) or "mistake:<k>" (a trusted mistake model)

    @property
    def mistake(self) -> int | None:
        """The mistake model's index, or None for the student's function."""
        return None if self.implementation == STUDENT else int(self.implementation.split(":")[1])


@dataclass
class ChildJob:
    """Everything a child needs; sent once from the parent (trusted direction)."""

    assignment: str
    cells: list[tuple[int, str, str]]  # (cell index, code, filename for tracebacks)
    tasks: list[Task]
    cases: dict[str, list[Any]] | None  # exercise id -> its Case list; None: the child draws them from ``seed``
    start: int = 0  # index of the first task to run (after a restart)
    skip_cells: frozenset[int] = frozenset()
    containment: Containment = field(default_factory=Containment)
    workdir: str = ""  # made by the parent for each child start, and removed by it when the child ends
    tf_threads: int = 1
    # With ``cases`` None, the child draws every exercise's cases from this seed itself, before any student
    # code runs: the same cases as the parent's (the same code, the same seed), and 1.6 MB less to send
    # through the fork server for each child (the n = 100,000 scale cases).
    seed: int | None = None
    # Keep each cell's outputs (streams, displays, the last expression's value) and send them after the cell,
    # for nbgrader's autograded notebook (``run.capture``); the command line asks for none.
    capture_outputs: bool = False

    @property
    def trusted(self) -> bool:
        """A job that runs mistake models: a reference's, never a student's (no student code runs in it)."""
        return any(task.mistake is not None for task in self.tasks)
