"""Which of a student's cases can still matter, asked case by case while the parent drives the child.

A diagnostic case tells two mistakes apart: it matters only once a graded case of its exercise failed. An
advisory case gives advice, which the feedback shows only when every graded case of the exercise passed
(``evaluate``). So the parent skips a diagnostic case when no graded case of its exercise failed and an
advisory case when one did: the result is the same, for less time (issue 12 measured these cases at about
17 % of a submission's). Every graded case of an exercise runs before its diagnostic and advisory ones
(``run.handing``); until the reference's outcomes are known (a reference still running beside the first
students), every case runs.
"""
from __future__ import annotations

from autograder.judge.cases import judge_case
from autograder.model.course import DIAGNOSTIC
from autograder.model.outcomes import RunRecord


class CasePlan:
    """One student run's judgement of which case can matter. ``reference``: the run's reference (its
    ``assignment``, its ``cases``, and ``outcome(exercise, index)``: None until known); ``tasks``: the run's
    student tasks by number (each with its ``exercise`` and ``case_index``)."""

    def __init__(self, reference, tasks: list):
        self.assignment, self.cases, self.reference = reference.assignment, reference.cases, reference.outcome
        self.tasks = [(task.exercise, task.case_index) for task in tasks]
        self._numbers = {task: number for number, task in enumerate(self.tasks)}
        self._failed: dict[str, bool] = {}  # exercise -> a graded case failed (decided once all have run)

    def wanted(self, number: int, record: RunRecord) -> bool:
        exercise_id, index = self.tasks[number]
        case = self.cases[exercise_id][index]
        if case.graded:
            return True
        failed = self.graded_failure(exercise_id, record)
        if failed is None:
            return True  # not known yet: run it, as every case ran before
        return failed if case.kind == DIAGNOSTIC else not failed

    def graded_failure(self, exercise_id: str, record: RunRecord) -> bool | None:
        """Whether a graded case of the exercise failed; None while that is not known."""
        if exercise_id in self._failed:
            return self._failed[exercise_id]
        exercise = self.assignment.exercise(exercise_id)
        verdicts = []
        for index, case in enumerate(self.cases[exercise_id]):
            if not case.graded:
                continue
            student = record.outcomes.get(self._numbers[(exercise_id, index)])
            reference = self.reference(exercise_id, index)
            if student is None or reference is None:
                return None
            verdicts.append(judge_case(exercise, case, student, reference).passed)
        self._failed[exercise_id] = not all(verdicts)
        return self._failed[exercise_id]
