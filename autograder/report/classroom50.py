"""Classroom 50's ``result.json`` (schema ``classroom50/result/v1``) and its release body.

Classroom 50 (foundation50/classroom50) grades in the student's repository with GitHub Actions: its runner
calls the assignment's ``autograder.py`` in the student's checkout and reads ``./result.json``; the
``collect-scores`` workflow later validates each result and merges it into the classroom's gradebook. The
fields and their checks are those of the wiki's "Advanced Autograding" page and of ``validate_result`` in
the runner and in ``collect_scores.py``:

- identity (``classroom``, ``assignment``, ``owner``, ``assignment_type``) must match the repository's:
  taken from the runner's environment (``CLASSROOM``, ``ASSIGNMENT``, ``OWNER`` or ``USERNAME``,
  ``ASSIGNMENT_TYPE``); the runner stamps owner and type again itself;
- ``submission`` (``SUBMISSION_TAG``, a ``submit/...`` tag), ``commit``, ``release``, ``review`` (URLs from
  ``COMMIT_URL``, ``RELEASE_URL``, ``REVIEW_URL``) are non-empty strings;
- ``datetime`` is the submission instant (the graded commit's committer date, UTC, ``...Z``), ``graded_at``
  this run's clock;
- ``score``, ``max-score`` and every test's ``score`` and ``max-score`` are non-negative INTEGERS, a score
  never above its maximum. The kit gives partial credit in fractions of a point (4 of 6 cases of a 2-point
  exercise is 1.3333), so Classroom 50 gets hundredths of a point (``POINT_SCALE``): 7.5 of 10 points is
  750 of 1000. Full marks stay full marks exactly; the release body and the log show the kit's points.

One test per exercise, named by its id, with the kit's own fields beside Classroom 50's (the wiki: "extra
diagnostic fields on a test are preserved verbatim"): ``status``, ``pitfalls``, ``points``,
``max-points``. Outside a Classroom 50 run the identity fields that are missing say so (``unset:CLASSROOM``)
rather than look real.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Mapping

from autograder.model.results import Status, SubmissionResult
from autograder.report.markdown import submission_markdown
from autograder.report.numbers import number
from autograder.report.safe_text import line

SCHEMA = "classroom50/result/v1"
POINT_SCALE = 100  # Classroom 50 counts whole points: the kit's points in hundredths
RELEASE_BODY_LIMIT = 100_000  # GitHub caps a release body at 125,000 characters
RUNNER_VARIABLES = ("CLASSROOM", "ASSIGNMENT", "SUBMISSION_TAG", "COMMIT_URL", "RELEASE_URL")  # always set by it
CONTEXT_VARIABLES = (*RUNNER_VARIABLES, "ASSIGNMENT_TYPE", "OWNER", "USERNAME", "REVIEW_URL", "GITHUB_ACTOR",
                     "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")
UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class RunnerContext:
    """What Classroom 50's runner tells the autograder about this submission (its environment)."""
    classroom: str
    assignment: str
    owner: str
    assignment_type: str
    submission: str
    commit: str
    release: str
    review: str
    missing: tuple[str, ...] = ()  # runner variables that were not set (not a Classroom 50 run)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str | None]) -> "RunnerContext":
        """From the runner's variables (``CONTEXT_VARIABLES``; the CLI reads them through ``config.variable``)."""
        def value(name: str) -> str:
            return (environ.get(name) or "").strip()

        missing = tuple(name for name in RUNNER_VARIABLES if not value(name))
        commit = value("COMMIT_URL") or _commit_url(environ) or "unset:COMMIT_URL"
        return cls(classroom=value("CLASSROOM") or "unset:CLASSROOM",
                   assignment=value("ASSIGNMENT") or "unset:ASSIGNMENT",
                   owner=value("OWNER") or value("USERNAME") or value("GITHUB_ACTOR") or "unset:OWNER",
                   assignment_type=value("ASSIGNMENT_TYPE") or "individual",
                   submission=value("SUBMISSION_TAG") or "submit/unset",
                   commit=commit, release=value("RELEASE_URL") or "unset:RELEASE_URL",
                   review=value("REVIEW_URL") or commit, missing=missing)


def _commit_url(environ: Mapping[str, str | None]) -> str:
    """The runner's own formula (runner.py ``commit_url``), from the standard GITHUB_* variables."""
    server, repository, sha = ((environ.get(k) or "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"))
    return f"{server.rstrip('/')}/{repository}/commit/{sha}" if server and repository and sha else ""


def scaled(points: float) -> int:
    """Points as Classroom 50's integers (hundredths), never negative."""
    return max(0, round(points * POINT_SCALE))


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime(UTC_FORMAT)


def classroom50_result(result: SubmissionResult, context: RunnerContext, submitted_at: dt.datetime,
                       graded_at: dt.datetime) -> dict:
    """The ``result.json`` of one submission."""
    tests = [{
        "test-name": line(exercise.id),
        "passed": exercise.status == Status.PASSED,
        "score": min(scaled(exercise.score), scaled(exercise.max_score)),
        "max-score": scaled(exercise.max_score),
        "status": exercise.status.value,
        "pitfalls": [line(p) for p in exercise.pitfalls],
        "points": round(exercise.score, 4),
        "max-points": exercise.max_score,
    } for exercise in result.exercises]
    return {
        "schema": SCHEMA,
        "classroom": context.classroom,
        "assignment": context.assignment,
        "assignment_type": context.assignment_type,
        "owner": context.owner,
        "submission": context.submission,
        "commit": context.commit,
        "release": context.release,
        "review": context.review,
        "datetime": utc(submitted_at),
        "graded_at": utc(graded_at),
        "score": sum(test["score"] for test in tests),
        "max-score": sum(test["max-score"] for test in tests),
        "tests": tests,
    }


def release_body(result: SubmissionResult, data: dict) -> str:
    """The submission's Release text (Markdown): the kit's points and feedback, as the student reads it."""
    head = (f"### Autograder: {number(result.score)} / {number(result.max_score)} points "
            f"(Classroom 50 counts {data['score']} / {data['max-score']}, hundredths of a point)\n\n")
    body = head + submission_markdown(result, level=3)
    if len(body) > RELEASE_BODY_LIMIT:
        body = body[:RELEASE_BODY_LIMIT - 80].rstrip() + "\n\n_(cut here: the rest is in the run's log)_\n"
    return body


def step_outputs(result: SubmissionResult, data: dict) -> str:
    """``status=`` and ``summary=`` lines for $GITHUB_OUTPUT: the commit status Classroom 50 shows."""
    state = "success" if all(test["passed"] for test in data["tests"]) and data["tests"] else "failure"
    summary = (f"autograder: {number(result.score)}/{number(result.max_score)} points "
               f"({sum(t['passed'] for t in data['tests'])}/{len(data['tests'])} exercises at full marks)")
    return f"status={state}\nsummary={line(summary)}\n"


def to_json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
