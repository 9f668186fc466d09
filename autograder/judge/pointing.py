"""Every named mistake points at its line: the explanations of a diagnosis, each with a place where one exists.

The rules name a pitfall from numbers; the static reading's checks locate most of them. For the rest, in order:
- a pitfall TensorFlow raises on its very line (``Pitfall.raised_on_its_line``: a second `gradient` on a tape,
  `tape.watch` of a Keras variable) is where a public case's traceback ends in the student's code;
- else its look (``model.pitfalls.Look``): the matched mistake model's, then the pitfall's own, finds the one
  line it names;
- else the feedback says what to look for (and the lines it could be).

Only public cases' tracebacks are read: what a hidden case's run leaves is the student code's choice and is not
shown (``judge.hidden``).
"""
from __future__ import annotations

from dataclasses import replace

from autograder.judge.diagnosis import Diagnosis
from autograder.judge.cases import Verdict
from autograder.judge.frames import deepest_place
from autograder.judge.messages import headline, trimmed
from autograder.judge.static.lines import Line, locate
from autograder.judge.where import where_of
from autograder.model.pitfalls import CATALOGUE
from autograder.model.results import Explanation, Where



def pointed(diagnosis: "Diagnosis") -> list[Explanation]:
    """The diagnosis's explanations, in order, each with its place (or what to look for) where it had none."""
    return [explanation if explanation.where is not None else _placed(diagnosis, explanation)
            for explanation in diagnosis.found.values()]


def _placed(d: "Diagnosis", explanation: Explanation) -> Explanation:
    pitfall = CATALOGUE.get(explanation.pitfall)
    if pitfall is None:
        return explanation
    if pitfall.raised_on_its_line:
        where = raised_here(d)
        if where is not None:
            return replace(explanation, where=where)
    looks = [look for look in (d.looks.get(explanation.pitfall), pitfall.look) if look is not None and look.lines]
    several: tuple[Line, ...] = ()
    for look in looks:
        found = locate(d.evidence.source, d.evidence.exercise.id, look.lines)
        if found.line is not None:
            line = found.line
            return replace(explanation, where=where_of(d.evidence.source, line.cell, line.line, line.code, look.says))
        several = several or found.candidates
    look_for = next((look.look_for for look in (d.looks.get(explanation.pitfall), pitfall.look)
                     if look is not None and look.look_for), "")
    if several and look_for:
        places = ", ".join(d.evidence.source.where(line.cell, line.line) for line in several)
        look_for = f"{look_for} ({places})"
    return replace(explanation, look_for=look_for)


def raised_here(d: "Diagnosis") -> Where | None:
    """The line a public case's error was raised on, in the student's code, with what it raised."""
    for verdict in d.failing:
        outcome = d.student(verdict)
        error = outcome.error if outcome is not None else None
        if not verdict.case.public or verdict.kind != Verdict.ERROR or error is None or error.contract:
            continue
        place = deepest_place(error.frames, d.evidence.source)
        if place is None:
            continue
        cell, line = place
        code = (error.frames[-1][3] or "").strip()
        said = headline(error)
        detail = f"a public case raised {error.type} here" + (f": {trimmed(said, 160)}" if said else "")
        return where_of(d.evidence.source, cell, line, code, detail)
    return None

