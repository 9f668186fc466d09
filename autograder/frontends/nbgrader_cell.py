"""What an nbgrader graded cell calls: the kit's grade for one exercise, as nbgrader's partial credit.

A graded cell of the course holds two lines::

    from autograder.graded_cell import grade_exercise
    grade_exercise("higher_order", "derivatives")

Under ``nbgrader autograde`` the kernel's working directory holds the
student's notebook. The first graded cell grades that notebook once, with the
kit's own command (``autograder grade NOTEBOOK --format json``) in a separate
process, so the student's code runs contained and apart from the grader
exactly as on the command line; later cells reuse that result. Each cell
prints the exercise's feedback (the CLI's words) to stdout and returns the
score: nbgrader records a grade cell whose output is a number as partial
credit. Nothing is written to stderr (nbgrader zeroes a cell that does).

Only under nbgrader (``NBGRADER_EXECUTION``, set by nbgrader while it runs a
notebook, or ``AUTOGRADER_NBGRADER``, set by the course's ``nbgrader_config.py``)
does a graded cell grade. Anywhere else (a student's JupyterLab, Colab, even a
clone that holds the solutions) it prints one line, that the hidden cases run
when the instructor grades, and returns nothing: the notebook saved on disk is
not what the kernel holds now, and grading it would show a stale grade.

Where grading is impossible under nbgrader (no reference solutions, no saved
notebook): with ``AUTOGRADER_NBGRADER`` the cell raises, so the cell scores 0
with the reason instead of silently full marks; without it (``nbgrader
validate`` on a student's machine) it prints a note, and validation goes on.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.config import KIT_ROOT, quiet_environment, variable
from autograder.model.results import from_contract
from autograder.report.text import exercise_text


# What a graded cell says outside nbgrader: the kernel's code is graded on the hidden cases only by the instructor.
LATER = ("the hidden cases run when your instructor grades the assignment; "
         "the public check above ran your current code on the public cases")


class GradingUnavailable(RuntimeError):
    """The grader could not grade this notebook; the message says why and what to do. A kernel shows the message
    alone (IPython's ``_render_traceback_``), not this module's frames."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


@dataclass(frozen=True)
class _Run:
    notebook: Path
    assignment: str
    seed: int
    solutions: Path


_graded: dict[tuple, dict] = {}  # one grading per notebook version and seed, shared by the notebook's graded cells


def grade_exercise(assignment_id: str, exercise_id: str) -> float | None:
    """Grade ``exercise_id`` of the notebook in the working directory; return its score for nbgrader."""
    if "autograder.run.child" in sys.modules:
        return None  # a copy of this cell inside the grader's own child: the grader grades, not the cell
    if not (variable("AUTOGRADER_NBGRADER") or variable("NBGRADER_EXECUTION")):
        print(f"{exercise_id}: {LATER}")
        return None
    under_nbgrader = bool(variable("AUTOGRADER_NBGRADER"))  # the course's nbgrader_config.py sets it
    try:
        run = _plan(assignment_id)
    except GradingUnavailable as reason:
        if under_nbgrader:
            raise
        print(f"{exercise_id}: graded when your instructor grades the assignment ({reason}). "
              "The public checks above run the same checks on the public cases.")
        return None
    result = from_contract(_grade_notebook(run))
    exercise = next((e for e in result.exercises if e.id == exercise_id), None) if result is not None else None
    if exercise is None:
        raise GradingUnavailable(f"the grader's result for {run.notebook.name} has no exercise {exercise_id!r}")
    print(exercise_text(exercise))
    return float(exercise.score)


def _plan(assignment_id: str) -> _Run:
    notebook = find_notebook(Path.cwd(), assignment_id)
    solutions = find_solutions(Path.cwd(), assignment_id)
    seed = int(variable("AUTOGRADER_SEED")) if variable("AUTOGRADER_SEED") else seed_for(notebook)
    return _Run(notebook, assignment_id, seed, solutions)


def find_notebook(folder: Path, assignment_id: str) -> Path:
    """The saved notebook of ``assignment_id`` in ``folder`` (where nbgrader runs the kernel)."""
    named = folder / f"{assignment_id}.ipynb"
    if named.is_file():
        return named
    for candidate in sorted(folder.glob("*.ipynb")):
        try:
            metadata = json.loads(candidate.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError):
            continue
        if isinstance(metadata, dict) and (metadata.get("autograder") or {}).get("assignment") == assignment_id:
            return candidate
    raise GradingUnavailable(f"no saved notebook of {assignment_id} in {folder}")


def find_solutions(folder: Path, assignment_id: str) -> Path:
    """The course's reference solutions: $AUTOGRADER_SOLUTIONS, else the course folder above, else the kit's."""
    relative = Path(assignment_id) / f"{assignment_id}.ipynb"
    candidates = [Path(variable("AUTOGRADER_SOLUTIONS"))] if variable("AUTOGRADER_SOLUTIONS") else []
    for parent in [folder, *folder.parents]:
        if (parent / "nbgrader_config.py").is_file():
            candidates += [parent / "solutions", parent / "source"]
            break
    candidates.append(KIT_ROOT / "solutions")
    for candidate in candidates:
        if (candidate / relative).is_file():
            return candidate
    raise GradingUnavailable("the reference solutions are not on this machine")


def seed_for(notebook: Path) -> int:
    """A seed fixed by the notebook's bytes: grading the same submission again gives the same grade."""
    return int.from_bytes(hashlib.sha256(notebook.read_bytes()).digest()[:4], "big") % 2**31


def _grade_notebook(run: _Run) -> dict:
    key = (str(run.notebook), hashlib.sha256(run.notebook.read_bytes()).hexdigest(), run.seed, str(run.solutions))
    if key not in _graded:
        _graded[key] = _run_grader(run)
    return _graded[key]


def _run_grader(run: _Run) -> dict:
    command = [sys.executable, "-m", "autograder", "grade", str(run.notebook), "--assignment", run.assignment,
               "--format", "json", "--seed", str(run.seed), "--jobs", "1", "--solutions", str(run.solutions),
               "--reuse-results"]
    done = subprocess.run(command, capture_output=True, text=True, env=quiet_environment(), stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GradingUnavailable(f"the autograder could not grade {run.notebook.name}: {detail}")
    try:
        return json.loads(done.stdout)[0]
    except (ValueError, IndexError, KeyError) as error:
        raise GradingUnavailable(f"the autograder's output for {run.notebook.name} is not its JSON: {error}") from None
