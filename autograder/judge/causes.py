"""Causes across exercises: an exercise that fails because it calls another of the student's exercises that fails.

critic_gradients calls the student's own gradient_penalty (the contract asks for it, and its points stay as the
contract says); a hessian may call the student's jacobian. When that other exercise fails and this one fails
with it, the feedback says so, names that exercise and its line, and gives that exercise's fix, instead of a
fix that would move code already in place here. The cause is named only when the evidence shows it:
- **raised there**: this exercise's error was raised inside the other's function (its traceback's frames);
- **seen there**: this exercise's own diagnosis located its pitfall in the other's code;
- **its mistake**: this exercise's numbers match a mistake model of it that reproduces the other's mistake
  (``Mistake.through``), and the other exercise fails;
- **its wrong numbers**: nothing else explains this exercise's wrong numbers, and the other exercise, which it
  calls, gives wrong numbers on its own cases.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from autograder.judge.cases import CaseVerdict, Verdict
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.where import where_of
from autograder.model.pitfalls import describe
from autograder.model.results import Explanation, ExerciseResult, Status, Where


WRONG_NUMBERS = frozenset({Status.FAILED, Status.PARTIAL})


@dataclass
class Cause:
    """Another exercise that makes this one fail: what to say instead of this exercise's own diagnosis."""

    exercise: str  # the other exercise's id
    explanations: list[Explanation] = field(default_factory=list)
    note: str = ""  # said when the other exercise names no pitfall (it raises for its own reason)


def failing_callee(evidence: "ExerciseEvidence", verdicts: list[CaseVerdict], matched_through: set[str],
                   diagnosed: list[Explanation]) -> Cause | None:
    """The other exercise (called by this one, failing itself) that the evidence shows is the cause, or None.

    ``matched_through``: the exercises whose mistake, reproduced inside this one, a mistake model matched;
    ``diagnosed``: this exercise's own diagnosis (when it names a pitfall, wrong numbers alone are no proof).
    """
    explained = any(e.pitfall != "wrong-value" for e in diagnosed)
    failing = [v for v in verdicts if not v.passed]
    if not failing:
        return None
    for reach in getattr(evidence.static, "reaches", ()):
        other = evidence.others.get(reach.name)
        if other is None or other.status == Status.PASSED:
            continue
        raised_there = any(_raised_in(evidence, v, reach.name) for v in failing if v.kind == Verdict.ERROR)
        seen_there = any(e.where is not None and reach.holds(e.where.cell, e.where.line) for e in diagnosed)
        wrong_there = (not explained and other.status in WRONG_NUMBERS
                       and all(v.kind == Verdict.WRONG for v in failing))
        if raised_there or seen_there or reach.name in matched_through or wrong_there:
            return _cause(evidence, reach, other)
    return None


def not_implemented_callee(evidence: "ExerciseEvidence") -> str | None:
    """The other exercise whose stub raised NotImplementedError inside this one, or None."""
    names = {reach.name for reach in getattr(evidence.static, "reaches", ())}
    for outcome in evidence.student:
        error = outcome.error if outcome is not None else None
        if error is not None and error.type == "NotImplementedError" and error.frames:
            deepest = error.frames[-1][2]
            if deepest in names and deepest != evidence.exercise.id:
                return deepest
    return None


def _raised_in(evidence: "ExerciseEvidence", verdict: CaseVerdict, name: str) -> bool:
    index = next(i for i, case in enumerate(evidence.cases) if case.id == verdict.case.id)
    outcome = evidence.student[index]
    error = outcome.error if outcome is not None else None
    return error is not None and not error.contract and any(frame[2] == name for frame in error.frames)


def _cause(evidence: "ExerciseEvidence", reach, other: ExerciseResult) -> Cause:
    this, name = evidence.exercise.id, reach.name
    place = evidence.source.where(reach.cell, reach.line) or f"line {reach.line}"
    calls = f"`{this}` calls your `{name}` ({place}: `{reach.code}`), which fails its own cases"
    explanations = other.explanations or [Explanation(p, describe(p).what, describe(p).fix)
                                          for p in other.pitfalls if p != "not-implemented"]
    cause = Cause(name)
    for explanation in explanations:
        cause.explanations.append(Explanation(
            explanation.pitfall, f"{calls}: {explanation.text}",
            f"in `{name}`, which `{this}` calls: {explanation.fix}",
            explanation.where or _definition(evidence, reach)))
    if not cause.explanations:
        cause.note = (f"{calls} ({other.status}): fix `{name}` first (its own feedback says how); `{this}` uses it, "
                      "so it fails with it.")
    return cause


def _definition(evidence: "ExerciseEvidence", reach) -> Where:
    """The other exercise's `def` line, as the place to look."""
    cell = evidence.source.cell(reach.defined_cell) if reach.defined_cell is not None else (
        evidence.source.cells[0] if evidence.source.cells else None)
    lines = cell.source.splitlines() if cell is not None else []
    code = lines[reach.defined_line - 1].strip() if 0 < reach.defined_line <= len(lines) else ""
    return where_of(evidence.source, reach.defined_cell, reach.defined_line, code,
                    f"`{reach.name}` is defined here; `{evidence.exercise.id}` calls it "
                    f"({evidence.source.where(reach.cell, reach.line) or f'line {reach.line}'})")
