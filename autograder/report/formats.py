"""The writers for other tools, by ``--format`` name: what each is for, and one dispatch.

Every writer reads the result model (``SubmissionResult`` / ``ExerciseResult``) and never recomputes a
score: an exercise's points are ``round(exercise.score, 4)`` as in the contract's JSON, and a submission's
total is ``SubmissionResult.score``.

- ``gradescope``: Gradescope's ``results.json`` for one submission, feedback in Markdown (``gradescope``).
- ``junit``: JUnit XML, a testsuite per submission (``junit``).
- ``csv``: the kit's own wide gradebook, a row per student (``gradebook``).
- ``classroom50``: Classroom 50's ``result.json`` (``classroom50``); the CLI writes the file, the release
  body and the step outputs beside it (``frontends.platform_outputs``).
- ``prairielearn``: PrairieLearn's external grader ``results.json`` for one submission (``prairielearn``).
- ``canvas`` and ``moodle``: the instructor's own gradebook export filled in (``lms``; needs ``--roster``).

GitHub Classroom's ``--format classroom`` (the ``autograding-grading-reporter`` runner result) is gone:
GitHub Classroom was retired on 28 August 2026 and nothing else reads that JSON. Plain GitHub Actions
use ``--step-summary`` with any format.
"""
from __future__ import annotations

from autograder.model.results import SubmissionResult
from autograder.report.gradebook import to_csv
from autograder.report.gradescope import OUTPUT_FORMATS, VISIBILITIES, gradescope_results, to_gradescope
from autograder.report.junit import to_junit
from autograder.report.prairielearn import to_prairielearn
from autograder.report.numbers import number, points

__all__ = ["FORMATS", "ONE_SUBMISSION", "ROSTER_FORMATS", "WRITERS", "OUTPUT_FORMATS", "VISIBILITIES",
           "gradescope_results", "number", "points", "render", "to_csv", "to_gradescope", "to_junit", "to_prairielearn"]

WRITERS = {"gradescope": to_gradescope, "junit": to_junit, "csv": to_csv, "prairielearn": to_prairielearn}
ONE_SUBMISSION = ("gradescope", "classroom50", "prairielearn")  # formats that describe one student's one submission
ROSTER_FORMATS = ("canvas", "moodle")  # formats that fill the instructor's gradebook export
FORMATS = (*WRITERS, "classroom50", *ROSTER_FORMATS)


def render(fmt: str, results: list[SubmissionResult], seed: int | None = None) -> str:
    return WRITERS[fmt](results, seed=seed)
