"""A GitHub Actions job summary: the points as a table, then each submission's feedback (Markdown).

GitHub renders what a step appends to the file ``$GITHUB_STEP_SUMMARY`` names on the run's summary page
(GitHub's docs, "Adding a job summary"); a summary is capped at 1 MiB, so long feedback is cut with a
note. Student text is made inert by ``markdown`` (code blocks, escaped inline text): GitHub sanitises the
HTML too, but a fake heading or link must not even appear.
"""
from __future__ import annotations

import html

from autograder.model.results import SubmissionResult
from autograder.report.markdown import points_table, submission_markdown, unlinked
from autograder.report.numbers import number
from autograder.report.safe_text import line

SUMMARY_LIMIT = 1_000_000  # GitHub refuses a step summary above 1 MiB


def step_summary(results: list[SubmissionResult], fail_under: float | None = None) -> str:
    total = sum(r.score for r in results)
    maximum = sum(r.max_score for r in results)
    head = [f"## Autograder: {number(total)} / {number(maximum)} points"]
    if fail_under is not None:
        below = [r for r in results if r.score < fail_under]
        head.append(f"**{len(below)} of {len(results)} below {number(fail_under)} points: the check fails.**"
                    if below else f"Every submission has at least {number(fail_under)} points.")
    text = "\n\n".join([*head, points_table(results)]) + "\n"
    for result in results:
        label = html.escape(unlinked(f"Feedback: {line(result.student)} ({number(result.score)} / "
                                     f"{number(result.max_score)})"))
        text += f"\n<details><summary>{label}</summary>\n\n" + submission_markdown(result, level=3) + "\n</details>\n"
    if len(text) > SUMMARY_LIMIT:
        text = text[:SUMMARY_LIMIT - 200].rstrip() + "\n\n_(cut here: the run's log has all the feedback)_\n"
    return text
