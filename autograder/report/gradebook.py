"""The kit's own CSV gradebook: one row per student, a column per exercise and per assignment."""
from __future__ import annotations

import csv
import io
from typing import Iterable

from autograder.course import ASSIGNMENT_IDS
from autograder.model.results import SubmissionResult
from autograder.report.numbers import number
from autograder.report.safe_text import spreadsheet

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
    rows: dict[str, dict[str, str]] = {}
    totals: dict[str, float] = {}
    for result in results:
        label = result.submission if (result.student, result.assignment) in twice else result.student
        row = rows.setdefault(label, {"student": spreadsheet(label)})
        for exercise in result.exercises:
            row[f"{result.assignment}:{exercise.id}"] = number(exercise.score)
        row[result.assignment] = number(result.score)
        totals[label] = totals.get(label, 0.0) + result.score
    columns = ["student"]
    for assignment in assignments:
        columns += [f"{assignment}:{exercise}" for exercise in exercises[assignment]] + [assignment]
    header = {column: spreadsheet(column) for column in columns + ["total", "max_score"]}
    columns += ["total", "max_score"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="", lineterminator="\n")
    writer.writerow(header)
    max_score = number(sum(maxima.values()))
    for label in sorted(rows):
        writer.writerow({**rows[label], "total": number(totals[label]), "max_score": max_score})
    return buffer.getvalue()
