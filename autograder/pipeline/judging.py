"""Step 4 of grading: a submission's record judged against its reference, exercise by exercise (the evidence
``judge.evaluate`` reads, built here from the run's outcomes and the static reading)."""
from __future__ import annotations

import sys

from autograder.course import assignment_by_id
from autograder.judge.evaluate import evaluate_exercises, unreadable_result
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.static import analyze
from autograder.load.discover import student_name, ungradable
from autograder.model.outcomes import RunRecord
from autograder.model.results import SubmissionResult
from autograder.pipeline.references import Reference, student_tasks
from autograder.pipeline.submissions import Submission


def judge_submission(submission: Submission, record: RunRecord | None,
                     reference: Reference | None) -> SubmissionResult:
    """A submission's result: every exercise's evidence judged against the reference's."""
    student, shown_as = student_name(submission.found.path), submission.found.shown_as
    if submission.assignment is None:
        return SubmissionResult(shown_as, student, "unknown", [], notes=[ungradable(submission.source, None)])
    assignment = reference.assignment if reference is not None else assignment_by_id(submission.assignment)
    if submission.source.problem or record is None:
        return unreadable_result(shown_as, student, assignment, submission.source.problem or "not graded")
    evidences: list[ExerciseEvidence] = []
    tasks = student_tasks(assignment, reference.cases)
    for exercise in assignment.exercises:
        count = len(reference.cases[exercise.id])
        reading = submission.static.get(exercise.id) or analyze(submission.source, exercise.id)
        for crash in reading.crashes:  # for the instructor: the grade stands on the numbers alone
            print(f"autograder: the static reading of {shown_as} crashed ({crash}); {exercise.id} is graded "
                  "from its numbers alone", file=sys.stderr)
        evidence = ExerciseEvidence(
            exercise=exercise,
            cases=reference.cases[exercise.id],
            student=[record.outcomes.get(n) for n, task in enumerate(tasks) if task.exercise == exercise.id],
            reference=[reference.outcome(exercise.id, i) for i in range(count)],
            mistakes=[[reference.outcome(exercise.id, i, f"mistake:{k}") for i in range(count)]
                      for k in range(len(exercise.mistakes))],
            static=reading,
            defined=record.defined.get(exercise.id),
            load_errors=record.load_errors,
            source=submission.source,
            problems=record.problems,
        )
        evidences.append(evidence)
    exercises = evaluate_exercises(evidences)  # together: one exercise's failure may be another's cause
    notes = list(record.problems)
    notes += [f"{submission.source.where(cell, None) or 'the file'} raised {error.type}: "
              f"{error.message.splitlines()[0] if error.message else ''}" for cell, error in record.load_errors]
    return SubmissionResult(shown_as, student, assignment.id, exercises, seconds=record.seconds, notes=notes)
