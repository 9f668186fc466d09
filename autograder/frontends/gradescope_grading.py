"""Inside Gradescope, for each submission: the inner layer of ``run_autograder`` (``gradescope_scripts``).

``python -m autograder.frontends.gradescope_grading --assignment ID`` grades the submission in
``<root>/submission`` with the bundled kit and writes ``<root>/results/results.json`` whatever happens (score 0
and the reason when there is no notebook or grading fails).

Which notebook counts: the one named ``<id>.ipynb`` (the shallowest, if several); else
the only notebook; else every notebook is graded and the highest score counts (the
output lists each). Without any ``.ipynb``, the same rules apply to ``.py`` files.

Environment: ``GRADESCOPE_AUTOGRADER_ROOT`` (default ``/autograder``) is the root holding ``source/``,
``submission/`` and ``results/``; ``AUTOGRADER_SEED`` (an integer, a course secret: the hidden cases derive
from it) fixes the random cases, which by default are drawn per run from the system's randomness. Students
never see the seed: it is only in run_autograder's own log (stdout, hidden from students), never in results.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

from autograder.config import SetupError, Settings, variable
from autograder.course import ASSIGNMENT_IDS, assignment_by_id
from autograder.load.discover import Found
from autograder.model.results import ExerciseResult, Status, SubmissionResult
from autograder.pipeline.grading_run import grade
from autograder.report.formats import VISIBILITIES, gradescope_results
from autograder.report.numbers import number
from autograder.store.atomic import write_atomically

ROOT_ENV = "GRADESCOPE_AUTOGRADER_ROOT"
SEED_ENV = "AUTOGRADER_SEED"  # the same name the graded cells read
NOT_SUBMITTED = {"__pycache__", ".ipynb_checkpoints", "__MACOSX"}  # what tools leave beside a student's files


def candidates(submission: Path, assignment_id: str) -> list[Path]:
    """The files that may be the submission, by the rules in this module's docstring (before grading)."""
    if not submission.is_dir():
        return []
    for suffix in (".ipynb", ".py"):
        files = [p for p in sorted(submission.rglob(f"*{suffix}"), key=lambda p: (len(p.parts), str(p)))
                 if p.is_file() and not any(part in NOT_SUBMITTED or part.startswith(".")
                                            for part in p.relative_to(submission).parts)]
        named = [p for p in files if p.name == f"{assignment_id}{suffix}"]
        if named:
            return named[:1]
        if files:
            return files
    return []


def grade_in_gradescope(root: Path, assignment_id: str, seed: int | None = None,
                        visibility: str = "visible") -> dict:
    """results.json's content for the submission in ``root/submission`` (never raises SetupError)."""
    started = time.monotonic()
    submission = root / "submission"
    files = candidates(submission, assignment_id)
    if not files:
        present = sorted(str(p.relative_to(submission)) for p in submission.rglob("*") if p.is_file()) \
            if submission.is_dir() else []
        listing = f" (it holds: {', '.join(present[:20])}{', …' if len(present) > 20 else ''})" if present else \
            " (it is empty)"
        return unavailable(assignment_id, f"no notebook (.ipynb) was found in your submission{listing}; "
                                          f"upload your {assignment_id}.ipynb", "missing",
                           time.monotonic() - started, visibility)
    settings = Settings(jobs=max(1, min(len(files), os.cpu_count() or 1)), assignment=assignment_id,
                        solutions=root / "source" / "solutions", seed=seed)
    try:
        graded = grade([Found(path, str(path.relative_to(submission))) for path in files], settings)
        results = graded.results
    except SetupError as error:
        return unavailable(assignment_id, f"the autograder could not run: {error}", "error",
                           time.monotonic() - started, visibility)
    best = max(results, key=lambda r: r.score)  # the first of the highest, in path order
    print(f"graded with seed {graded.seed}")  # run_autograder's stdout: for instructors only
    preamble = [f"Graded {best.submission} as {assignment_id}."]
    if len(results) > 1:
        preamble = [f"Your submission holds {len(results)} files that could be the {assignment_id} notebook, and "
                    f"none is named {assignment_id}.ipynb: each was graded and the highest score counts."]
        preamble += [f"  {r.submission}: {number(r.score)} / {number(r.max_score)}"
                     + ("  (counted)" if r is best else "") for r in results]
    return gradescope_results(best, seed=graded.seed, visibility=visibility, preamble=preamble)


def unavailable(assignment_id: str, reason: str, status: str, seconds: float, visibility: str = "visible") -> dict:
    """Score 0 with every exercise listed, and the reason, in Gradescope's format."""
    assignment = assignment_by_id(assignment_id)
    result = SubmissionResult("(nothing graded)", "", assignment_id, [
        ExerciseResult(e.id, 0.0, e.points, Status(status), [], f"Not graded: {reason}.")
        for e in assignment.exercises],
        seconds=seconds, notes=[reason])
    return gradescope_results(result, visibility=visibility)


def main(argv: list[str] | None = None) -> int:
    """The inner layer of run_autograder: grade, then write results.json whatever happens."""
    parser = argparse.ArgumentParser(prog="python -m autograder.frontends.gradescope_grading",
                                     description="Grade a Gradescope submission (run by run_autograder).")
    parser.add_argument("--root", default=variable(ROOT_ENV) or "/autograder")
    parser.add_argument("--assignment", required=True, choices=ASSIGNMENT_IDS)
    parser.add_argument("--visibility", default="visible", choices=VISIBILITIES)
    args = parser.parse_args(argv)
    root = Path(args.root)
    started = time.monotonic()
    print(f"grader: {Path(__file__).resolve().parent}")  # run_autograder's stdout is for instructors
    try:
        seed_text = (variable(SEED_ENV) or "").strip()
        seed = int(seed_text) if seed_text else None
        report = grade_in_gradescope(root, args.assignment, seed, args.visibility)
    except Exception as error:  # noqa: BLE001 - whatever it is, the student gets a result that says so
        traceback.print_exc()
        report = unavailable(args.assignment, f"the autograder failed ({type(error).__name__}: {error})", "error",
                             time.monotonic() - started, args.visibility)
    write_atomically(root / "results" / "results.json", json.dumps(report, indent=2) + "\n")
    print(f"{args.assignment}: {number(report['score'])} points; results.json written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
