"""Text for people: a submission's detail (what the CLI and nbgrader's graded cells print), the class table."""
from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from rich.table import Table

from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.report.feedback_text import feedback_text
from autograder.report.numbers import number
from autograder.report.safe_text import cell, line, text

MARKS = {Status.PASSED: "✓", Status.PARTIAL: "~", Status.FAILED: "✗", Status.ERROR: "!", Status.TIMEOUT: "⏱",
         Status.MISSING: "?", Status.NOT_IMPLEMENTED: "·"}


def _console(stream: io.TextIOBase | None, width: int = 110) -> Console:
    return Console(file=stream, width=width, highlight=False, soft_wrap=False, emoji=False)


def submission_text(result: SubmissionResult) -> str:
    """Per exercise: a mark, the score, the status and pitfalls, then the feedback, indented."""
    lines = [f"{line(result.student)} · {line(result.assignment)} · {number(result.score)} / "
             f"{number(result.max_score)}   ({line(result.submission)})"]
    lines += [f"  note: {line(note)}" for note in result.notes]
    width = max((len(line(e.id)) for e in result.exercises), default=10)
    for exercise in result.exercises:
        lines += ["  " + line for line in _exercise_lines(exercise, width)]
    return "\n".join(lines) + "\n"


def exercise_text(exercise: ExerciseResult) -> str:
    """One exercise as the CLI prints it: what nbgrader's graded cells show."""
    return "\n".join(_exercise_lines(exercise, len(exercise.id)))


def _exercise_lines(exercise: ExerciseResult, width: int) -> list[str]:
    """A mark, the score, the status and pitfalls, then the feedback, indented."""
    pitfalls = f"  [{', '.join(line(p) for p in exercise.pitfalls)}]" if exercise.pitfalls else ""
    cap = f" ({exercise.cap})" if exercise.cap else ""
    lines = [f"{MARKS.get(exercise.status, ' ')} {line(exercise.id).ljust(width)}  "
             f"{number(exercise.score):>4} / {number(exercise.max_score)}{cap}  {exercise.status}{pitfalls}"]
    feedback = text(feedback_text(exercise))
    if (exercise.status != Status.PASSED or exercise.advice) and feedback:
        lines += ["    " + line for line in feedback.splitlines()]
    return lines


def class_table(results: list[SubmissionResult], seed: int | None = None) -> str:
    """One row per student, one column per assignment, then how often each pitfall occurred."""
    buffer = io.StringIO()
    console = _console(buffer)
    assignments = sorted({r.assignment for r in results})
    twice = {key for key, n in Counter((r.student, r.assignment) for r in results).items() if n > 1}
    # Two submissions of one student for one assignment (two versions, or files named alike): one row each.
    label = {id(r): (r.submission if (r.student, r.assignment) in twice else r.student) for r in results}
    students = sorted(set(label.values()))
    table = Table(title=cell(f"Class results ({len(results)} submissions" + (f", seed {seed})" if seed is not None
                                                                            else ")")))
    table.add_column("student")
    for assignment in assignments:
        table.add_column(cell(assignment), justify="right")
    table.add_column("total", justify="right")
    table.add_column("pitfalls named")
    by_key = {(label[id(r)], r.assignment): r for r in results}
    for student in students:
        row, total, maximum, pitfalls = [student], 0.0, 0.0, Counter()
        for assignment in assignments:
            result = by_key.get((student, assignment))
            if result is None:
                row.append("—")
                continue
            row.append(f"{number(result.score)} / {number(result.max_score)}")
            total += result.score
            maximum += result.max_score
            pitfalls.update(p for e in result.exercises for p in e.pitfalls)
        row.append(f"{number(total)} / {number(maximum)}")
        row.append(", ".join(f"{p}" + (f" ×{n}" if n > 1 else "") for p, n in sorted(pitfalls.items())))
        table.add_row(*map(cell, row))  # Text cells: a path like `[/x]` is never read as rich's markup
    console.print(table)
    counts = Counter(p for r in results for e in r.exercises for p in e.pitfalls)
    if counts:
        summary = Table(title="Pitfalls across the class")
        summary.add_column("pitfall")
        summary.add_column("exercises", justify="right")
        for pitfall, count in counts.most_common():
            summary.add_row(cell(pitfall), cell(count))
        console.print(summary)
    return buffer.getvalue()

