"""Gradescope's ``results.json`` for ONE submission (Gradescope grades one student at a time).

One test per exercise, ``number`` its position (1, 2, ...), ``tags`` its pitfall ids, ``status`` "passed"
only for full marks, ``output`` the feedback as Markdown (``output_format: md``: a heading per case, the
student's lines as code blocks, the pitfall and its fix as a callout; see ``markdown``). Given several
submissions the writer refuses (``ValueError``; the CLI says so before grading) rather than guess which
one counts: ``autograder gradescope-bundle`` makes that choice inside Gradescope. Gradescope's format:
gradescope/autograder_samples, docs/specs.md.
"""
from __future__ import annotations

import json
from typing import Iterable

from autograder.model.results import SubmissionResult
from autograder.report.markdown import exercise_body, inline, points_markdown
from autograder.report.numbers import number, points
from autograder.report.safe_text import line

# Gradescope's allowed values (gradescope-autograders.readthedocs.io, "Autograder Specifications").
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
OUTPUT_FORMATS = ("text", "html", "simple_format", "md", "ansi")


def gradescope_results(result: SubmissionResult, seed: int | None = None, visibility: str = "visible",
                       preamble: Iterable[str] = ()) -> dict:
    """Gradescope's results.json for one submission.

    Students read it: it never shows the seed (``seed`` is accepted and left out; run_autograder's own
    log, which only instructors see, names it), and every text in it is safe (``markdown.inline``, code
    blocks). The top-level ``score`` is the submission's total (as the contract's JSON); each test's
    ``score`` is that exercise's points rounded to 4 decimals, so the tests add up to the total up to that
    rounding (at most 0.0001 per exercise). ``status`` is "passed" for full marks and "failed" otherwise
    (partial credit included: the points say how much). No ``execution_time`` (Gradescope's is optional): how
    long a submission ran is its code's to choose, hidden cases included, so students are not shown it.
    """
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}, not {visibility!r}")
    output = [*(inline(row) for row in preamble),
              f"**{inline(result.assignment)}: {number(result.score)} / {number(result.max_score)}**",
              *(f"**Note:** {inline(note)}" for note in result.notes)]
    if not result.exercises:
        output.append("Nothing was graded.")
    tests = [{
        "name": line(exercise.id),
        "number": str(index),
        "score": points(exercise.score),
        "max_score": exercise.max_score,
        "status": "passed" if exercise.status == "passed" else "failed",
        "output": _test_output(exercise),
        "output_format": "md",
        "tags": [line(p) for p in exercise.pitfalls],
        "visibility": visibility,
        "extra_data": {"status": exercise.status.value, "pitfalls": [line(p) for p in exercise.pitfalls],
                       "cases_passed": exercise.cases_passed, "cases_total": exercise.cases_total},
    } for index, exercise in enumerate(result.exercises, start=1)]
    return {
        "score": result.score,
        "output": "\n\n".join(output),
        "output_format": "md",
        "test_output_format": "md",
        "test_name_format": "text",
        "visibility": visibility,
        "stdout_visibility": "hidden",  # run_autograder's stdout is for instructors (debugging)
        "extra_data": {"submission": line(result.submission), "student": line(result.student),
                       "assignment": line(result.assignment), "max_score": result.max_score},
        "tests": tests,
    }


def _test_output(exercise) -> str:
    head = f"**{inline(exercise.status.value)}**: {points_markdown(exercise)} points"
    if exercise.pitfalls:
        head += "  \nPitfalls: " + ", ".join(f"`{line(p)}`" for p in exercise.pitfalls)
    body = exercise_body(exercise, level=3)
    return head + (f"\n\n{body}" if body else "")


def to_gradescope(results: list[SubmissionResult], seed: int | None = None) -> str:
    if len(results) != 1:
        raise ValueError(f"Gradescope's results.json holds one submission; got {len(results)}")
    return json.dumps(gradescope_results(results[0], seed), indent=2) + "\n"
