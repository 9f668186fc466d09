"""The contract's JSON (../shared/CURRICULUM.md, "The grader's JSON"): exactly its keys, in its order.

Strings are written as they are (JSON escapes control characters itself), but a lone surrogate, which is not
text and which strict JSON readers refuse, is written as its escape (``safe_text.encodable``).
"""
from __future__ import annotations

import json
from typing import Iterable

from autograder.model.results import ExerciseResult, SubmissionResult
from autograder.report.feedback_text import feedback_text
from autograder.report.safe_text import encodable


def exercise_json(exercise: ExerciseResult) -> dict:
    return {
        "id": encodable(exercise.id),
        "score": round(exercise.score, 4),
        "max_score": exercise.max_score,
        "status": exercise.status.value,
        "pitfalls": [encodable(p) for p in exercise.pitfalls],
        "feedback": encodable(feedback_text(exercise)),
    }


def submission_json(result: SubmissionResult) -> dict:
    return {
        "submission": encodable(result.submission),
        "student": encodable(result.student),
        "assignment": encodable(result.assignment),
        "score": result.score,
        "max_score": result.max_score,
        "exercises": [exercise_json(exercise) for exercise in result.exercises],
    }


def to_json(results: Iterable[SubmissionResult]) -> str:
    return json.dumps([submission_json(result) for result in results], indent=2) + "\n"
