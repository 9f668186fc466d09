"""The class report's numbers, computed once from the results: the page's tables and its plots both read them.

Per assignment, the total scores and their histogram; per pitfall, in how many graded exercises it was named
and where; per exercise, how many submissions ended in each status. Submissions with no graded exercise (the
assignment could not be told) are kept apart, to be named rather than counted.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from autograder.course import ASSIGNMENT_IDS
from autograder.model.results import SubmissionResult
from autograder.report.numbers import number


@dataclass
class AssignmentScores:
    assignment: str
    max_score: float
    scores: list[float]
    edges: list[float]  # histogram bins [edges[i], edges[i+1]), the last one closed
    counts: list[int]

    @property
    def n(self) -> int:
        return len(self.scores)


@dataclass
class ExerciseRates:
    assignment: str
    exercise: str
    statuses: Counter
    mean_score: float
    max_score: float

    @property
    def n(self) -> int:
        return sum(self.statuses.values())

    @property
    def passed(self) -> int:
        return self.statuses["passed"]

    @property
    def pass_rate(self) -> float:
        return self.passed / self.n if self.n else 0.0


@dataclass
class ClassStatistics:
    submissions: int
    assignments: list[AssignmentScores]
    pitfalls: list[tuple[str, int]]  # most frequent first
    pitfall_exercises: dict[str, Counter]  # pitfall -> Counter of "assignment/exercise"
    exercises: list[ExerciseRates]
    left_out: list[SubmissionResult] = field(default_factory=list)  # no exercises: assignment unknown


def assignment_order(assignment: str) -> tuple[int, str]:
    """Sort key: the contract's assignments in its order, then any other name alphabetically."""
    return (ASSIGNMENT_IDS.index(assignment) if assignment in ASSIGNMENT_IDS else len(ASSIGNMENT_IDS), assignment)


def histogram_edges(max_score: float) -> list[float]:
    """One bin per point up to 20 points (0-1, 1-2, ..., 9-10), else ten equal bins."""
    if max_score <= 0:
        return [0.0, 1.0]
    if float(max_score).is_integer() and max_score <= 20:
        return [float(i) for i in range(int(max_score) + 1)]
    return [max_score * i / 10 for i in range(11)]


def histogram_counts(scores: list[float], edges: list[float]) -> list[int]:
    """Counts per bin [a, b), the last bin closed [a, b] (as numpy.histogram)."""
    counts = [0] * (len(edges) - 1)
    for score in scores:
        for i in range(len(counts)):
            last = i == len(counts) - 1
            if edges[i] <= score < edges[i + 1] or (last and score == edges[-1]):
                counts[i] += 1
                break
    return counts


def bin_labels(edges: list[float]) -> list[str]:
    """'0 ≤ score < 1', ..., '9 ≤ score ≤ 10': the last bin holds full marks."""
    last = len(edges) - 2
    return [f"{number(round(a, 2))} ≤ score {'≤' if i == last else '<'} {number(round(b, 2))}"
            for i, (a, b) in enumerate(zip(edges, edges[1:]))]


def class_statistics(results: list[SubmissionResult]) -> ClassStatistics:
    graded = [r for r in results if r.exercises]
    assignments = []
    for assignment in sorted({r.assignment for r in graded}, key=assignment_order):
        mine = [r for r in graded if r.assignment == assignment]
        max_score = max(r.max_score for r in mine)
        scores = [r.score for r in mine]
        edges = histogram_edges(max_score)
        assignments.append(AssignmentScores(assignment, max_score, scores, edges, histogram_counts(scores, edges)))
    counts: Counter = Counter()
    where: dict[str, Counter] = {}
    rates: dict[tuple[str, str], ExerciseRates] = {}
    totals: dict[tuple[str, str], float] = {}
    for result in graded:
        for exercise in result.exercises:
            for pitfall in exercise.pitfalls:
                counts[pitfall] += 1
                where.setdefault(pitfall, Counter())[f"{result.assignment}/{exercise.id}"] += 1
            key = (result.assignment, exercise.id)
            if key not in rates:
                rates[key] = ExerciseRates(result.assignment, exercise.id, Counter(), 0.0, exercise.max_score)
            rates[key].statuses[exercise.status] += 1
            totals[key] = totals.get(key, 0.0) + exercise.score
    for key, rate in rates.items():
        rate.mean_score = totals[key] / rate.n
    # Exercises in the contract's order: the order the results list them, assignment by assignment.
    order = {key: i for i, key in enumerate(rates)}
    exercises = sorted(rates.values(), key=lambda r: (assignment_order(r.assignment), order[(r.assignment, r.exercise)]))
    pitfalls = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ClassStatistics(len(results), assignments, pitfalls, where, exercises,
                           [r for r in results if not r.exercises])
