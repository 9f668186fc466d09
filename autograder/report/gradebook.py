"""The kit's own CSV gradebook: one row per student, a column per exercise and per assignment."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Iterable

from autograder.course import ASSIGNMENT_IDS
from autograder.model.results import SubmissionResult
from autograder.report.numbers import exact
from autograder.report.safe_text import spreadsheet

@dataclass
class GradebookRow:
    """One row: a student's submissions, one per assignment (a student who submitted one assignment twice gets a row
    per such submission, labelled by its path, as the class table does)."""
    label: str
    results: dict[str, SubmissionResult] = field(default_factory=dict)  # assignment -> its result

    @property
    def total(self) -> float:
        return round(sum(result.score for result in self.results.values()), 4)


@dataclass
class Gradebook:
    """The class as a gradebook: what the CSV writes and the feedback pages' index shows, so both say the same."""
    assignments: list[str]  # the contract's order
    exercises: dict[str, list[str]]  # assignment -> its exercises, in the order the results list them
    maxima: dict[str, float]  # assignment -> its points
    rows: list[GradebookRow]  # by label

    @property
    def max_score(self) -> float:
        """Every row is out of the points of every assignment in the class: a skipped assignment counts 0."""
        return sum(self.maxima.values())


def gradebook(results: Iterable[SubmissionResult]) -> Gradebook:
    results = list(results)
    order = {assignment: n for n, assignment in enumerate(ASSIGNMENT_IDS)}
    assignments = sorted({r.assignment for r in results}, key=lambda a: (order.get(a, len(order)), a))
    exercises: dict[str, list[str]] = {assignment: [] for assignment in assignments}
    maxima: dict[str, float] = {}
    for result in results:
        for exercise in result.exercises:
            if exercise.id not in exercises[result.assignment]:
                exercises[result.assignment].append(exercise.id)
        maxima[result.assignment] = max(maxima.get(result.assignment, 0.0), result.max_score)
    twice = {key for key in {(r.student, r.assignment) for r in results}
             if sum((r.student, r.assignment) == key for r in results) > 1}
    rows: dict[str, GradebookRow] = {}
    for result in results:
        label = result.submission if (result.student, result.assignment) in twice else result.student
        rows.setdefault(label, GradebookRow(label)).results[result.assignment] = result
    return Gradebook(assignments, exercises, maxima, [rows[label] for label in sorted(rows)])


def to_csv(results: Iterable[SubmissionResult], seed: int | None = None) -> str:
    """A wide gradebook: one row per student, what spreadsheets and LMS imports expect.

    Columns: ``student``; then, per assignment in the contract's order, one column per
    exercise (``<assignment>:<exercise>``, its points) and the assignment's total
    (``<assignment>``); then ``total`` and ``max_score``. A cell is empty where the student
    submitted nothing for that assignment; ``total`` counts it as 0 and ``max_score`` is the
    same for every row (the points of every assignment in the file), so ``total / max_score``
    is the grade. A student with two submissions for one assignment gets one row per
    submission, labelled by its path (as the class table does). A label that a spreadsheet
    would run as a formula (starting with =, +, -, @, a tab or a carriage return: OWASP's CSV
    injection guidance) is prefixed with a single quote, and its control characters are escaped.
    """
    book = gradebook(results)
    columns = ["student"]
    for assignment in book.assignments:
        columns += [f"{assignment}:{exercise}" for exercise in book.exercises[assignment]] + [assignment]
    columns += ["total", "max_score"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="", lineterminator="\n")
    writer.writerow({column: spreadsheet(column) for column in columns})
    max_score = exact(book.max_score)
    for row in book.rows:
        cells = {"student": spreadsheet(row.label)}
        for assignment, result in row.results.items():
            cells.update({f"{assignment}:{exercise.id}": exact(exercise.score) for exercise in result.exercises})
            cells[assignment] = exact(result.score)
        writer.writerow({**cells, "total": exact(row.total), "max_score": max_score})
    return buffer.getvalue()
