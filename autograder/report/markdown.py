"""A submission's feedback as Markdown: Gradescope's ``output_format: md``, a Classroom 50 release body,
a GitHub job summary.

Rendered from the structure the judge built (an exercise read back from the contract's JSON shows its text
in a code block). What a student controls (a file name, an exception's message, a line of their code)
never reaches the page as Markdown or HTML: code and messages go into fenced blocks whose fence is longer
than any run of backticks inside them, and inline text is escaped character by character (CommonMark's
backslash escapes), so that ``<img src=x onerror=...>`` in a message shows as text on every renderer.
GitHub also links ``@name`` (a mention: a notification to that user) and ``#123`` (an issue) in rendered text,
backslash or not: a zero-width space after every ``@`` and ``#`` of inline text (``ZERO_WIDTH``, as Renovate
does in the bodies it writes) leaves them inert, in Markdown and in HTML alike; code spans and fenced blocks
are never linked.
"""
from __future__ import annotations

import re

from autograder.model.results import Advice, CaseReport, Explanation, ExerciseResult, Status, SubmissionResult
from autograder.report.feedback_text import ADVICE_HEAD, case_lines, case_title, sentence
from autograder.report.numbers import number
from autograder.report.safe_text import line, text

# Characters that open or close Markdown or HTML constructs anywhere in a line (CommonMark allows a backslash
# before any ASCII punctuation); a line's start also opens headings, lists and quotes; "://" an autolink.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&!])")
_LINE_START = re.compile(r"^(\s*)(?:([#>+\-=])|(\d+)([.)]))")
_AUTOLINK = re.compile(r"(?<=[A-Za-z]):(?=//)|(?<=w)\.(?=\w)")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")  # the judge's own `code`; a student's backticks never pair across
_BACKTICKS = re.compile("`+")
_MENTION = re.compile("[@#]")  # GitHub's mentions (@name) and issue links (#123, owner/repo#123)
ZERO_WIDTH = "\u200b"  # GitHub links nothing after it; a character, not a reference, so no escaping breaks it
STATUS_MARKS = {Status.PASSED: "✅", Status.PARTIAL: "🟡"}


def _plain(value: str) -> str:
    return unlinked(_AUTOLINK.sub(lambda m: "\\" + m.group(), _INLINE_SPECIAL.sub(r"\\\1", value)))


def unlinked(value: str) -> str:
    """Text in which GitHub links no ``@name`` and no ``#123`` (before or after escaping it)."""
    return _MENTION.sub(lambda match: match.group() + ZERO_WIDTH, value)


def inline(value: object) -> str:
    """One line of text inside Markdown: controls escaped (``safe_text.line``); `code` kept as code spans
    (their content is literal on every renderer); everything else escaped where it could open a link, an
    emphasis, an HTML tag, a table cell or (at the start) a heading or a list."""
    safe = line(value)
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(safe):
        parts += [_plain(safe[last:span.start()]), f"`{span.group(1)}`"]
        last = span.end()
    parts.append(_plain(safe[last:]))
    return _LINE_START.sub(_escape_start, "".join(parts), count=1)


def plain(value: object) -> str:
    """A name a student chose (a file, a folder), as one line of Markdown text: every character that could
    open anything escaped, backticks too (a name never makes a code span of its own)."""
    return _LINE_START.sub(_escape_start, _plain(line(value)), count=1)


_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def table_cell(value: object, chosen: bool = False) -> str:
    """A cell of a GFM table: ``inline`` (``plain`` for a name a student chose) with every pipe escaped, inside
    code spans too: GFM splits a row at any unescaped ``|``, a code span's included, and takes ``\\|`` as a pipe
    in the cell, a code span's included."""
    return _UNESCAPED_PIPE.sub(r"\\|", plain(value) if chosen else inline(value))


def _escape_start(match: re.Match) -> str:
    if match.group(2):  # "# title", "> quote", "- item": escape the marker
        return f"{match.group(1)}\\{match.group(2)}"
    return f"{match.group(1)}{match.group(3)}\\{match.group(4)}"  # "1. item": escape the dot


def code_block(value: object, language: str = "text") -> str:
    """A fenced block that no content can close: the fence is one backtick longer than the longest run
    inside (CommonMark: a closing fence must be at least as long as the opening one)."""
    body = text(value).rstrip("\n")
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def quoted(block: str) -> str:
    """A block inside a blockquote (the callout of a pitfall)."""
    return "\n".join(f"> {row}" if row else ">" for row in block.split("\n"))


def points_markdown(exercise: ExerciseResult) -> str:
    """'1 / 2', and why when capped (``feedback_text.points_text``), as Markdown."""
    shown = f"{number(exercise.score)} / {number(exercise.max_score)}"
    return f"{shown} ({inline(exercise.cap)})" if exercise.cap else shown


def exercise_markdown(exercise: ExerciseResult, level: int = 2) -> str:
    """An exercise: a heading with its points, then ``exercise_body``."""
    mark = STATUS_MARKS.get(exercise.status, "❌")
    heading = (f"{'#' * level} {mark} {inline(exercise.id)}: {points_markdown(exercise)} "
               f"({inline(exercise.status.value)})")
    body = exercise_body(exercise, level + 1)
    return f"{heading}\n\n{body}" if body else heading


def exercise_body(exercise: ExerciseResult, level: int = 3) -> str:
    """The summary, a callout per pitfall (what, where, the student's line as code, the fix), the failing
    cases (headings of ``level``) with their messages as code, then the advice (Gradescope shows it under
    the test's own name, so no heading of its own)."""
    parts: list[str] = []
    if exercise.text is not None:  # read back from the contract's JSON: its structure is gone
        if exercise.text.strip():
            parts.append(code_block(exercise.text))
        return "\n\n".join(parts)
    if exercise.summary:
        parts.append(inline(exercise.summary))
    parts += [inline(note) for note in exercise.notes]
    parts += [explanation_markdown(explanation) for explanation in exercise.explanations]
    parts += [case_markdown(case, level) for case in exercise.cases]
    if exercise.more_failing > 0:
        parts.append(f"_{exercise.more_failing} more failing case{'s' if exercise.more_failing > 1 else ''} "
                     "not shown_")
    parts += [advice_markdown(advice) for advice in exercise.advice]
    return "\n\n".join(parts)


def explanation_markdown(explanation: Explanation) -> str:
    rows = [f"**Pitfall `{line(explanation.pitfall)}`**: {inline(sentence(explanation.text))}"]
    if explanation.where is not None:
        rows.append(f"**Where:** {inline(explanation.where.place)}")
        if explanation.where.code:
            rows.append(code_block(explanation.where.code, "python"))
        if explanation.where.detail:
            rows.append(inline(explanation.where.detail))
    elif explanation.look_for:
        rows.append(f"**Look for:** {inline(explanation.look_for)}")
    rows.append(f"**Fix:** {inline(sentence(explanation.fix))}")
    return quoted("\n\n".join(rows))


def case_markdown(case: CaseReport, level: int) -> str:
    return f"{'#' * level} {inline(case_title(case))}\n\n{code_block(chr(10).join(case_lines(case)))}"


def advice_markdown(advice: Advice) -> str:
    rows = [f"**{ADVICE_HEAD}:** {inline(sentence(advice.text))}",
            f"Beyond the graded cases: {inline(advice.description)}"]
    if advice.happened.strip():
        rows.append(code_block(advice.happened.strip().splitlines()[0]))
    return quoted("\n\n".join(rows))


def submission_markdown(result: SubmissionResult, level: int = 1) -> str:
    """A whole submission: a heading with the total, its notes, then each exercise one level below."""
    parts = [f"{'#' * level} {inline(result.assignment)}: {number(result.score)} / {number(result.max_score)}",
             f"Submission: `{line(result.submission).replace('`', chr(0x2018))}`"]
    parts += [f"**Note:** {inline(note)}" for note in result.notes]
    if not result.exercises:
        parts.append("Nothing was graded.")
    parts += [exercise_markdown(exercise, level + 1) for exercise in result.exercises]
    return "\n\n".join(parts) + "\n"


def points_table(results: list[SubmissionResult]) -> str:
    """One row per exercise (a submission per column block): the job summary's table."""
    rows = ["| submission | exercise | points | status | pitfalls |", "|---|---|---|---|---|"]
    for result in results:
        for exercise in result.exercises:
            rows.append(f"| {table_cell(result.student, True)} | {table_cell(exercise.id, True)} | "
                        f"{number(exercise.score)} / {number(exercise.max_score)} | "
                        f"{table_cell(exercise.status.value, True)} | "
                        f"{table_cell(', '.join(exercise.pitfalls), True)} |")
        rows.append(f"| {table_cell(result.student, True)} | **total** | **{number(result.score)} / "
                    f"{number(result.max_score)}** | | |")
    return "\n".join(rows) + "\n"
