"""What the parent hands a child, one task at a time: the task, and that task's case only.

No case exists in a child before its cells have run, and a child holds no case but the one its function is
being called on (CURRICULUM.md, "The course secret stays with the grader"): the parent keeps every case of a
run (``CaseBook``, built from the course's secret in a trusted process) and sends each with its task, over
the child's socket, when that task starts. A case's inputs are encoded once per run (``wire.case_inputs.encode_args``)
and the same bytes go to every child that runs it.

The order is the parent's too (``run_order``): every public case of every exercise first, then each
exercise's hidden cases: graded, diagnostic, advisory. What a student sees of a public case carries what
their code chose (its message, its values); run first, it cannot carry what their code met in a hidden one.
Parent side only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from autograder.model.course import ADVISORY, DIAGNOSTIC, Case
from autograder.run.tasks import Task
from autograder.run.wire.case_inputs import encode_args
from autograder.run.wire.messages import dumps

PHASE = {DIAGNOSTIC: 1, ADVISORY: 2}  # after the graded cases of their exercise


@dataclass
class CaseBook:
    """One run's cases of one assignment (exercise id -> its cases), each encoded for a child once."""

    cases: dict[str, list[Case]]
    keys: dict[str, bytes] | None = None  # each exercise's key the cases were drawn from, where it is known
    _encoded: dict[tuple[str, int], bytes] = field(default_factory=dict, repr=False)

    def case(self, task: Task) -> Case:
        return self.cases[task.exercise][task.case_index]

    def task_message(self, number: int, task: Task) -> bytes:
        """The message that starts task ``number``: what to run, and its case's inputs."""
        key = (task.exercise, task.case_index)
        if key not in self._encoded:
            self._encoded[key] = json.dumps(encode_args(self.case(task).args), allow_nan=True).encode("utf-8")
        header = dumps({"event": "task", "task": number, "exercise": task.exercise, "case": task.case_index,
                             "implementation": task.implementation})
        return header[:-1] + b', "args": ' + self._encoded[key] + b"}"


def run_order(tasks: list[Task], book: CaseBook) -> list[int]:
    """Task numbers in the order a child runs them: public cases first (exercise by exercise), then each
    exercise's hidden cases, graded before diagnostic before advisory; the tasks' own order otherwise."""
    position = {exercise: n for n, exercise in enumerate(dict.fromkeys(task.exercise for task in tasks))}

    def key(number: int) -> tuple:
        case = book.case(tasks[number])
        return (not case.public, position.get(tasks[number].exercise, len(position)), PHASE.get(case.kind, 0),
                number)

    return sorted(range(len(tasks)), key=key)
