"""The result model: one object per submission, one per exercise, as the contract's JSON.

Every writer (text, JSON, and later Gradescope, JUnit, CSV, HTML) reads these
data classes; none of them recomputes a score.
"""
from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("passed", "partial", "failed", "error", "timeout", "missing", "not-implemented")

PITFALLS = (
    "tape-outside-context", "unwatched-tensor", "gradient-cut", "non-persistent-tape", "unstable-gradient",
    "unstable-value", "ignores-upstream", "no-custom-gradient", "missing-stop-gradient", "clips-value",
    "no-gradient", "not-recomputed", "wrong-norm-axis", "full-jacobian", "transposed", "summed-gradient",
    "pfor-unsupported", "materialized-hessian", "materialized-jacobian", "not-implemented", "wrong-value",
)


@dataclass
class ExerciseResult:
    id: str
    score: float
    max_score: float
    status: str
    pitfalls: list[str] = field(default_factory=list)
    feedback: str = ""
    cases_passed: int = 0
    cases_total: int = 0

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "score": round(self.score, 4),
            "max_score": self.max_score,
            "status": self.status,
            "pitfalls": list(self.pitfalls),
            "feedback": self.feedback,
        }


@dataclass
class SubmissionResult:
    submission: str
    student: str
    assignment: str
    exercises: list[ExerciseResult]
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # problems outside exercises: cells that failed to load, ...

    @property
    def score(self) -> float:
        return round(sum(exercise.score for exercise in self.exercises), 4)

    @property
    def max_score(self) -> float:
        return sum(exercise.max_score for exercise in self.exercises)

    def to_json(self) -> dict:
        return {
            "submission": self.submission,
            "student": self.student,
            "assignment": self.assignment,
            "score": self.score,
            "max_score": self.max_score,
            "exercises": [exercise.to_json() for exercise in self.exercises],
        }
