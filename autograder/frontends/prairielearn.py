"""Inside PrairieLearn's grading container: grade the student's upload, ALWAYS write ``results/results.json``.

``examples/prairielearn/`` holds the question, the grader image's Dockerfile and the entrypoint that runs this
module (``python -m autograder.frontends.prairielearn --root /grade --assignment ID``) with the course's copy of
the kit first on ``PYTHONPATH``, under a time limit, and writes a not-gradable result itself when this module
could not even start. PrairieLearn's layout below ROOT (``/grade``):

    student/<assignment>.ipynb                 the upload (or <assignment>.py, from a file editor)
    serverFilesCourse/tf_autodiff_autograder/  the course's files, which students never see:
        kit/autograder/, kit/solutions/        the kit and the course's reference solutions
        seed                                   the course's secret seed of the hidden cases (absent: one per run)
    results/results.json                       what PrairieLearn reads back

The seed is read from its file here, never passed on a command line (which other processes could read) and never
written to results.json or stdout.

PrairieLearn always grades a student's notebook, however slow: the entrypoint gives this module a budget
(``--budget``, its own time limit less a margin) and the kit's limits for the student's run are cut to what is
left of it once the grader itself is ready (``BudgetedRun``): a notebook whose cells run past it is stopped by the
kit's own time limit and gets that limit's zero, gradable, instead of the entrypoint's kill ("not gradable", no
attempt used). Only when the grader's own work left the student less than ``MIN_STUDENT_SECONDS`` is the
submission not gradable, with a message that says to raise the timeout.
"""
from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

from autograder.config import SetupError, Settings
from autograder.course import ASSIGNMENT_IDS
from autograder.load.discover import Found
from autograder.pipeline.grading_run import GradingRun
from autograder.report.numbers import number
from autograder.report.prairielearn import not_gradable, prairielearn_results, to_json
from autograder.store.atomic import write_atomically

COURSE_FILES = Path("serverFilesCourse") / "tf_autodiff_autograder"
JUDGING_SECONDS = 5.0  # of the budget, kept for judging the run and writing results.json
MIN_STUDENT_SECONDS = 10.0  # less than this left for the student's run: the grader's fault, not gradable


class BudgetedRun(GradingRun):
    """The CLI's run, with each student run's limits cut to the time left before ``ends_by`` (a monotonic time)."""

    def __init__(self, settings: Settings, ends_by: float | None):
        super().__init__(settings)
        self.ends_by = ends_by

    def schedule(self):
        runs = super().schedule()
        if self.ends_by is None:
            return runs
        left = int(self.ends_by - time.monotonic() - JUDGING_SECONDS)
        if left < MIN_STUDENT_SECONDS and runs:
            raise SetupError(f"the grader's own work left {max(left, 0)} s of its budget for the notebook: raise "
                             "AUTOGRADER_TIMEOUT and info.json's timeout")
        for run in runs:
            run.limits = replace(run.limits, submission_seconds=min(run.limits.submission_seconds, left),
                                 load_seconds=min(run.limits.load_seconds, left))
        return runs


def course_seed(root: Path) -> int | None:
    """The course's secret seed from serverFilesCourse (None: no file, a seed per run). Raises SetupError."""
    path = root / COURSE_FILES / "seed"
    if not path.is_file():
        return None
    value = path.read_text(encoding="utf-8").strip()
    try:
        return int(value)
    except ValueError:
        raise SetupError(f"{COURSE_FILES / 'seed'} holds no integer: write the course's seed there") from None


def submitted_file(student: Path, assignment: str) -> Path | None:
    for suffix in (".ipynb", ".py"):
        if (student / f"{assignment}{suffix}").is_file():
            return student / f"{assignment}{suffix}"
    return None


def grade_in_prairielearn(root: Path, assignment: str, ends_by: float | None = None) -> dict:
    """results.json's content for the upload in ``root/student`` (never raises SetupError); ``ends_by``: the
    monotonic time by which grading must be over (``BudgetedRun``)."""
    student = root / "student"
    path = submitted_file(student, assignment)
    if path is None:
        present = sorted(p.name for p in student.iterdir() if p.is_file()) if student.is_dir() else []
        listing = f" (your submission holds: {', '.join(present[:20])})" if present else " (your submission is empty)"
        return not_gradable(f"no {assignment}.ipynb was found{listing}: upload your notebook, named "
                            f"{assignment}.ipynb")
    try:
        settings = Settings(jobs=1, assignment=assignment, solutions=root / COURSE_FILES / "kit" / "solutions",
                            seed=course_seed(root))
        result = BudgetedRun(settings, ends_by).grade([Found(path, path.name)]).results[0]
    except SetupError as error:
        return not_gradable(f"the autograder could not run: {error}. Nothing was graded; please tell your instructor")
    return prairielearn_results(result)


def main(argv: list[str] | None = None) -> int:
    """The inner layer of the entrypoint: grade, then write results.json whatever happens."""
    parser = argparse.ArgumentParser(prog="python -m autograder.frontends.prairielearn",
                                     description="Grade a PrairieLearn submission (run by the question's entrypoint).")
    parser.add_argument("--root", default="/grade", help="PrairieLearn's grading folder (default: %(default)s)")
    parser.add_argument("--assignment", required=True, choices=ASSIGNMENT_IDS, help="the assignment to grade")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="grade within this time from now: the student's limits are cut to fit (default: none)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    started = time.monotonic()
    ends_by = started + args.budget if args.budget is not None else None
    print(f"grader: {Path(__file__).resolve().parents[1]}")  # the container's log is for instructors
    try:
        report = grade_in_prairielearn(root, args.assignment, ends_by)
    except Exception as error:  # noqa: BLE001 - whatever it is, the student gets a result that says so
        traceback.print_exc()
        report = not_gradable(f"the autograder failed ({type(error).__name__}: {error}). Nothing was graded; "
                              "please tell your instructor")
    write_atomically(root / "results" / "results.json", to_json(report))
    graded = f"score {number(report['score'])}" if report.get("gradable") else "not gradable"
    print(f"{args.assignment}: {graded}; results.json written in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
