"""An exercise's feedback as the contract's text (the JSON's ``feedback``): what every text writer shows.

Rendered from the structure the judge built; a result read back from the contract's JSON carries its
text as given (``ExerciseResult.text``) and is shown as it is.
"""
from __future__ import annotations

from autograder.model.results import Advice, CaseReport, Explanation, ExerciseResult, Status, Where
from autograder.report.numbers import number


def points_text(exercise: ExerciseResult) -> str:
    """'1 / 2' and, when the points are capped, why: '1 / 2 (capped at half: no `@tf.custom_gradient`)'."""
    shown = f"{number(exercise.score)} / {number(exercise.max_score)}"
    return f"{shown} ({exercise.cap})" if exercise.cap else shown


def feedback_text(exercise: ExerciseResult) -> str:
    if exercise.text is not None:
        return exercise.text
    if exercise.status == Status.NOT_IMPLEMENTED:
        return exercise.summary
    lines = [exercise.summary] if exercise.summary else []
    lines += exercise.notes
    for explanation in exercise.explanations:
        lines += explanation_lines(explanation)
    lines += [case_text(case) for case in exercise.cases]
    if exercise.more_failing > 0:
        lines.append(f"({exercise.more_failing} more failing case{'s' if exercise.more_failing > 1 else ''} "
                     "not shown)")
    for advice in exercise.advice:
        lines += advice_lines(advice)
    return "\n".join(lines)


ADVICE_HEAD = "Advice (costs no points)"


def advice_lines(advice: Advice) -> list[str]:
    """'Advice (costs no points): <what to do>.' then the case it comes from and what it showed."""
    happened = advice.happened.strip().splitlines()[0] if advice.happened.strip() else ""
    return [f"{ADVICE_HEAD}: {sentence(advice.text)}",
            f"    beyond the graded cases: {advice.description}" + (f": {happened}" if happened else "")]


def explanation_lines(explanation: Explanation) -> list[str]:
    lines = [f"[{explanation.pitfall}] {sentence(explanation.text)}"]
    if explanation.where is not None:
        lines.append(f"  Where: {where_text(explanation.where)}")
    elif explanation.look_for:
        lines.append(f"  Look for: {explanation.look_for}")
    lines.append(f"  Fix: {explanation.fix}.")
    return lines


def sentence(text: str) -> str:
    """A clause as a sentence: capital first letter, final period."""
    return f"{text[0].upper()}{text[1:]}." if text else ""


def where_text(where: Where) -> str:
    """'cell 7, line 4: `code`' and, on the next line, what the static reading saw there."""
    text = where.place + (f": `{where.code}`" if where.code else "")
    return f"{text}\n    {where.detail}" if where.detail else text


def case_title(case: CaseReport) -> str:
    return (f"Case {case.description}" if case.public
            else f"Hidden case {case.description} (its values are not shown)")


FOLD_AFTER = 12  # lines of a case's message shown before the rest folds


def folded(message: str, keep: int = FOLD_AFTER) -> tuple[list[str], list[str]]:
    """A case's message as (shown, folded) lines: all of it when it is short; else its first output's block (a
    line at the margin and the lines indented under it: its table) and, of the other outputs, what follows."""
    lines = message.split("\n")  # "\n" only: what else splitlines() splits at is the message's text
    if len(lines) <= keep:
        return lines, []
    end = next((n for n in range(1, len(lines)) if not lines[n].startswith(" ")), len(lines))
    end = min(end, keep)
    return lines[:end], lines[end:]


def case_lines(case: CaseReport) -> list[str]:
    """A case's message for text: past its first output's table, only each other output's first line."""
    shown, rest = folded(case.message)
    heads = [line for line in rest if not line.startswith(" ")]
    hidden = len(rest) - len(heads)
    return shown + heads + ([f"({hidden} more lines of tables folded)"] if hidden else [])


def case_text(case: CaseReport) -> str:
    return f"{case_title(case)}:\n    " + "\n    ".join(case_lines(case))
