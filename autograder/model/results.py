"""The result model: one object per submission, one per exercise, each explanation as data.

The judge (``autograder.judge``) builds these; every writer (``autograder.report``: the contract's JSON,
text, Gradescope, JUnit, CSV, HTML pages; nbgrader's graded cells; the students' self-check) renders
them. No writer parses another writer's text, and none recomputes a score.

Two codecs live here because the stores need them: ``to_data``/``from_data`` keep everything (the
journal, kept grades), ``from_contract`` reads the contract's JSON (``autograder merge``, ``report``),
where an exercise's feedback is text only (``ExerciseResult.text``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """An exercise's status, as the contract names them."""

    PASSED = "passed"  # score equals max_score
    PARTIAL = "partial"
    FAILED = "failed"
    ERROR = "error"  # it raised
    TIMEOUT = "timeout"
    MISSING = "missing"  # the function is not defined
    NOT_IMPLEMENTED = "not-implemented"

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


STATUSES = tuple(status.value for status in Status)


@dataclass(frozen=True)
class Where:
    """A place in the student's code, with the lines around it as they were when graded."""

    place: str  # "cell 7, line 4" (a notebook), "line 4" (a .py file), "cell [7], line 4" (a live kernel)
    cell: int | None = None
    line: int | None = None
    code: str = ""  # the line itself, stripped
    detail: str = ""  # what the static reading saw there, one sentence
    excerpt: tuple[tuple[int, str], ...] = ()  # (line number, text) around ``line``, for the HTML pages


@dataclass(frozen=True)
class Explanation:
    """A named pitfall: what the student did, where, and how to fix it."""

    pitfall: str
    text: str  # what happened, specific to this submission (a sentence without its final period)
    fix: str
    where: Where | None = None
    look_for: str = ""  # where no line can be named: what to look for in the code (a clause)


@dataclass(frozen=True)
class CaseReport:
    """One failing case as the feedback shows it (a hidden case's message never holds its values)."""

    case_id: str
    description: str
    public: bool
    message: str  # what went wrong; may span lines


@dataclass(frozen=True)
class Advice:
    """What an advisory case showed (beyond the contract's line): a hint that costs no points."""

    case_id: str
    description: str
    text: str  # what to do, a clause: "tape.gradient returns None there; pass ..."
    happened: str = ""  # what the case showed: "raised TypeError: ..."


@dataclass
class ExerciseResult:
    id: str
    score: float
    max_score: float
    status: Status
    pitfalls: list[str] = field(default_factory=list)
    summary: str = ""  # the first sentence: "3 of 7 cases passed.", or why nothing could be graded
    notes: list[str] = field(default_factory=list)  # remarks after the summary (a signature that differs)
    explanations: list[Explanation] = field(default_factory=list)
    cases: list[CaseReport] = field(default_factory=list)  # the failing cases shown
    more_failing: int = 0  # failing cases not shown
    advice: list[Advice] = field(default_factory=list)  # advisory cases that failed: hints, no points
    cases_passed: int = 0
    cases_total: int = 0
    cap: str = ""  # why the points are capped below what the cases earned ("capped at half: ..."), or ""
    text: str | None = None  # the feedback as text only: read from the contract's JSON, whose structure is gone

    def __post_init__(self):
        self.status = Status(self.status)  # "passed" and Status.PASSED alike


@dataclass
class SubmissionResult:
    submission: str
    student: str
    assignment: str
    exercises: list[ExerciseResult]
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # problems outside exercises: cells that failed to load, ...

    @property
    def score(self) -> float:
        return round(sum(exercise.score for exercise in self.exercises), 4)

    @property
    def max_score(self) -> float:
        return sum(exercise.max_score for exercise in self.exercises)


# --------------------------------------------------------------------------- everything, for the stores

def to_data(result: SubmissionResult) -> dict[str, Any]:
    """A result as plain JSON-able data, structure included: what ``from_data`` reads back."""
    return {
        "submission": result.submission, "student": result.student, "assignment": result.assignment,
        "seconds": result.seconds, "notes": list(result.notes),
        "exercises": [_exercise_data(e) for e in result.exercises],
    }


def _exercise_data(e: ExerciseResult) -> dict[str, Any]:
    return {
        "id": e.id, "score": e.score, "max_score": e.max_score, "status": e.status.value,
        "pitfalls": list(e.pitfalls), "summary": e.summary, "notes": list(e.notes),
        "explanations": [{"pitfall": x.pitfall, "text": x.text, "fix": x.fix,
                          "where": None if x.where is None else _where_data(x.where), "look_for": x.look_for}
                         for x in e.explanations],
        "cases": [{"case_id": c.case_id, "description": c.description, "public": c.public, "message": c.message}
                  for c in e.cases],
        "more_failing": e.more_failing, "cases_passed": e.cases_passed, "cases_total": e.cases_total, "cap": e.cap,
        "advice": [{"case_id": a.case_id, "description": a.description, "text": a.text, "happened": a.happened}
                   for a in e.advice],
        "text": e.text,
    }


def _where_data(where: Where) -> dict[str, Any]:
    return {"place": where.place, "cell": where.cell, "line": where.line, "code": where.code,
            "detail": where.detail, "excerpt": [list(line) for line in where.excerpt]}


def from_data(data: Any) -> SubmissionResult | None:
    """``to_data``'s output back as a result; None for anything else (a damaged or foreign file)."""
    try:
        return SubmissionResult(
            str(data["submission"]), str(data["student"]), str(data["assignment"]),
            [_exercise_from_data(e) for e in data["exercises"]],
            seconds=float(data["seconds"]), notes=[str(n) for n in data["notes"]])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _exercise_from_data(e: dict) -> ExerciseResult:
    return ExerciseResult(
        id=str(e["id"]), score=float(e["score"]), max_score=float(e["max_score"]), status=Status(e["status"]),
        pitfalls=[str(p) for p in e["pitfalls"]], summary=str(e["summary"]), notes=[str(n) for n in e["notes"]],
        explanations=[Explanation(str(x["pitfall"]), str(x["text"]), str(x["fix"]),
                                  None if x["where"] is None else _where_from_data(x["where"]),
                                  str(x.get("look_for", "")))
                      for x in e["explanations"]],
        cases=[CaseReport(str(c["case_id"]), str(c["description"]), bool(c["public"]), str(c["message"]))
               for c in e["cases"]],
        more_failing=int(e["more_failing"]), cases_passed=int(e["cases_passed"]), cases_total=int(e["cases_total"]),
        cap=str(e.get("cap", "")),
        advice=[Advice(str(a["case_id"]), str(a["description"]), str(a["text"]), str(a["happened"]))
                for a in e["advice"]],
        text=None if e["text"] is None else str(e["text"]))


def _where_from_data(w: dict) -> Where:
    return Where(str(w["place"]), None if w["cell"] is None else int(w["cell"]),
                 None if w["line"] is None else int(w["line"]), str(w["code"]), str(w["detail"]),
                 tuple((int(n), str(text)) for n, text in w["excerpt"]))


# --------------------------------------------------------------------------- the contract's JSON, read

def from_contract(data: Any) -> SubmissionResult | None:
    """A result from one object of the contract's JSON (``autograder grade --format json``), or None.

    The contract's JSON has no structure below the feedback text: each exercise keeps its text as given.
    """
    try:
        return SubmissionResult(
            str(data["submission"]), str(data["student"]), str(data["assignment"]),
            [ExerciseResult(str(e["id"]), float(e["score"]), float(e["max_score"]), Status(e["status"]),
                            [str(p) for p in e["pitfalls"]], text=str(e["feedback"]))
             for e in data["exercises"]],
            seconds=float(data.get("seconds", 0.0)), notes=[str(n) for n in data.get("notes", [])])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
