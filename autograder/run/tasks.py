"""What the parent asks a child to do: plain, picklable descriptions, no TensorFlow.

The parent builds a ``ChildJob`` per child start and hands it to the fork server (``forkserver``), which
forks a child that runs it (``child``); then it hands the child one ``Task`` at a time (``handing``). Both
travel the trusted direction only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

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
    """Everything a child starts with; sent once from the parent (trusted direction), before any cell runs.

    It holds no case, no seed or key of the course and no path of the grader's (its solutions, its cache, a
    classmate): the parent hands each task, with its one case, over the child's socket when that task starts,
    after every cell has run (``handing``); what the child's files show is its allowlist (``mounts``)."""

    assignment: str
    cells: list[tuple[int, str, str]]  # (cell index, code, filename for tracebacks)
    load: bool = True  # run the cells (a task of the submission's own functions remains)
    trusted: bool = False  # a reference's child: it runs mistake models and no student code
    skip_cells: frozenset[int] = frozenset()
    containment: Containment = field(default_factory=Containment)
    workdir: str = ""  # made by the parent for each child start, and removed by it when the child ends
    tf_threads: int = 1
    # Keep each cell's outputs (streams, displays, the last expression's value) and send them after the cell,
    # for nbgrader's autograded notebook (``run.capture``); the command line asks for none.
    capture_outputs: bool = False
