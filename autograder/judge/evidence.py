"""What one exercise is judged on, as plain data: the student's and the reference's outcomes per case, the mistake
models' outcomes, what the static reading found and the submission's source. The pipeline and the students'
self-check build it; the evaluation, the rules and the causes read it (a module of its own, so that none of them
imports another to learn its shape)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from autograder.load.cells import SubmissionSource
from autograder.model.course import Case, Exercise
from autograder.model.outcomes import ErrorInfo, TaskOutcome
from autograder.model.results import ExerciseResult


@dataclass
class ExerciseEvidence:
    exercise: Exercise
    cases: list[Case]
    student: list[TaskOutcome | None]
    reference: list[TaskOutcome | None]
    mistakes: list[list[TaskOutcome | None]]  # [mistake k][case i]
    static: object  # judge.static.FunctionReport (or None)
    defined: list[str] | str | None  # parameters, or why it is not a function, or None when missing
    load_errors: list[tuple[int, ErrorInfo]]
    source: SubmissionSource
    problems: list[str] = field(default_factory=list)  # what stopped the submission while loading
    # How the other exercises of the submission that this one calls did (``evaluate_exercises``): one of them
    # failing may be the cause (``judge.causes``).
    others: Mapping[str, ExerciseResult] = field(default_factory=dict)
