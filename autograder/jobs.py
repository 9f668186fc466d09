"""What the parent asks a child to do: plain, picklable descriptions, no TensorFlow.

The parent imports this module; only the child imports ``autograder.child``
(and with it TensorFlow), through ``enter_child``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.isolation import Containment

STUDENT = "student"


@dataclass(frozen=True)
class Task:
    """Run one implementation of one exercise on one case."""

    exercise: str
    case_index: int
    implementation: str  # "student" (the submission's function) or "mistake:<k>"


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


def enter_child(connection, job: ChildJob) -> None:
    """Process target. The fork server has already imported autograder.child, so this is free."""
    from autograder.child import child_main

    child_main(connection, job)
