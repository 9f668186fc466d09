"""The contract's JSON (../shared/CURRICULUM.md, "The grader's JSON"): exactly its keys, in its order."""
from __future__ import annotations

import json
from typing import Iterable

from autograder.model.results import ExerciseResult, SubmissionResult
from autograder.report.feedback_text import feedback_text


def exercise_json(exercise: ExerciseResult) -> dict:
    return {
        "id": exercise.id,
        "score": round(exercise.score, 4),
        "max_score": exercise.max_score,
        "status": exercise.status.value,
        "pitfalls": list(exercise.pitfalls),
        "feedback": feedback_text(exercise),
    }


def submission_json(result: SubmissionResult) -> dict:
    return {
        "submission": result.submission,
        "student": result.student,
        "assignment": result.assignment,
        "score": result.score,
        "max_score": result.max_score,
        "exercises": [exercise_json(exercise) for exercise in result.exercises],
    }


def to_json(results: Iterable[SubmissionResult]) -> str:
    return json.dumps([submission_json(result) for result in results], indent=2) + "\n"
