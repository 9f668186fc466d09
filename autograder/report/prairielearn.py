"""PrairieLearn's external grader results (``/grade/results/results.json``) for ONE submission.

PrairieLearn (docs: "External Grading", "Grading results") reads, from the file the grading container writes:

- ``gradable``: false marks the submission "invalid, not gradable" (no points won or lost, no attempt used),
  with ``format_errors`` saying why; the kit writes false only when there was nothing to grade or the grader
  could not run (``not_gradable``), never for a student's mistake, which is graded;
- ``score``: the submission's points over its maximum, from 0 to 1;
- ``message`` and ``output``: the headline and the notes; ``tests``: one per exercise with ``name``,
  ``description``, ``points``, ``max_points``, ``message`` (status, points, pitfalls) and ``output`` (the
  exercise's feedback, the CLI's words).

Student text stays inert. ``<pl-external-grader-results>`` escapes ``name``, ``description`` and
``format_errors`` (Mustache ``{{...}}``), but puts ``message`` and ``output`` into the page as HTML after
converting ANSI codes with ansi2html: it escapes ``&``, ``<`` and ``>``, and turns colour codes into styled spans,
OSC 8 sequences into links and cursor-up codes into deleted lines. Every text here is ``safe_text.text``,
which writes ESC and every other control character as a visible escape (``\\x1b``): what a student's code
printed or raised can neither style, link nor erase the grader's words.

PrairieLearn accepts at most 1 MB: each test's output is cut at ``TEST_OUTPUT_LIMIT`` characters, and the file
as a whole is kept below ``RESULTS_LIMIT`` bytes. The seed is never written (students read this file).
"""
from __future__ import annotations

import json

from autograder.course import ASSIGNMENT_IDS, assignment_by_id
from autograder.model.results import ExerciseResult, SubmissionResult
from autograder.report.feedback_text import feedback_text
from autograder.report.numbers import number, points
from autograder.report.safe_text import line, text

RESULTS_LIMIT = 1_000_000  # bytes: PrairieLearn's "limited to 1 MB"
TEST_OUTPUT_LIMIT = 50_000  # characters of one exercise's feedback
CUT = "\n(cut here: the feedback was longer than PrairieLearn shows)"


def _cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[:max(0, limit - len(CUT))].rstrip() + CUT


def _description(assignment: str, exercise: ExerciseResult) -> str:
    """The exercise's signature, as the notebook asks for it (just the id for an assignment the kit lacks)."""
    if assignment in ASSIGNMENT_IDS:
        known = {e.id: e for e in assignment_by_id(assignment).exercises}
        if exercise.id in known:
            return f"{exercise.id}({', '.join(known[exercise.id].params)})"
    return line(exercise.id)


def _test(assignment: str, exercise: ExerciseResult) -> dict:
    pitfalls = f" [{', '.join(line(p) for p in exercise.pitfalls)}]" if exercise.pitfalls else ""
    return {
        "name": line(exercise.id),
        "description": _description(assignment, exercise),
        "points": points(min(max(exercise.score, 0.0), exercise.max_score)),
        "max_points": exercise.max_score,
        "message": f"{exercise.status.value}: {number(exercise.score)} / {number(exercise.max_score)} points"
                   + (f" ({exercise.cap})" if exercise.cap else "") + pitfalls,
        "output": _cut(text(feedback_text(exercise)), TEST_OUTPUT_LIMIT),
    }


def prairielearn_results(result: SubmissionResult) -> dict:
    """results.json for one graded submission (see the module's docstring)."""
    fraction = result.score / result.max_score if result.max_score > 0 else 0.0
    data = {
        "gradable": True,
        "score": round(min(max(fraction, 0.0), 1.0), 6),
        "message": f"{line(result.assignment)}: {number(result.score)} / {number(result.max_score)} points",
        "output": "\n".join(f"Note: {text(note)}" for note in result.notes),
        "tests": [_test(result.assignment, exercise) for exercise in result.exercises],
    }
    return _within_limit(data)


def _within_limit(data: dict) -> dict:
    """Halve the longest output (the notes' or an exercise's) until the file fits PrairieLearn's 1 MB."""
    while len(to_json(data).encode("utf-8")) > RESULTS_LIMIT:
        longest = max([data, *data["tests"]], key=lambda place: len(place["output"]))
        if len(longest["output"]) <= len(CUT) + 100:
            break  # nothing long is left: names and messages are one line each
        longest["output"] = _cut(longest["output"], len(longest["output"]) // 2)
    return data


def not_gradable(reason: str) -> dict:
    """Nothing could be graded (no notebook, the grader could not run): PrairieLearn marks the submission invalid,
    costs the student no attempt and shows ``reason``."""
    message = text(reason)
    return {"gradable": False, "format_errors": [message], "message": message}


def to_json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_prairielearn(results: list[SubmissionResult], seed: int | None = None) -> str:
    if len(results) != 1:
        raise ValueError(f"PrairieLearn's results.json holds one submission; got {len(results)}")
    return to_json(prairielearn_results(results[0]))
