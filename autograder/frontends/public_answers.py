"""The reference's answers on the public cases, shipped with the kit for students' self-checks.

Students have the kit but not the solutions. Their notebook's public check
cells (``autograder.selfcheck.check``) compare their function with these
stored outcomes, and judge them with the same code and words as the grader.
Only cases marked ``public`` (the ones the notebooks' teaching text shows)
are stored, with the mistake models' outcomes on them (their answers, never
their code); the hidden cases and the solutions never leave the instructor.
Outcomes are stored with the one codec (``run.wire``), times left out.

Regenerate after changing a public case or a solution::

    python -m autograder.frontends.public_answers   # writes autograder/public_cases/<assignment>.json

A test checks the stored files against a fresh run of the solutions.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from autograder.course import all_assignments
from autograder.model.course import Assignment, Case, Exercise
from autograder.model.outcomes import TaskOutcome
from autograder.run.tasks import STUDENT
from autograder.run.wire.checked import WireError
from autograder.run.wire.records import decode_outcome, outcome_to_data

DATA = Path(__file__).resolve().parents[1] / "public_cases"
PUBLIC_SEED = 0  # public cases are fixed; the seed only fills the random ones, which are never public
FORMAT = 2


def public_cases(exercise: Exercise) -> list[Case]:
    return [case for case in exercise.cases(PUBLIC_SEED) if case.public]


# --------------------------------------------------------------------------- reading (students' kernels)

def load(assignment_id: str) -> dict:
    """The stored outcomes of ``assignment_id``: {exercise: {case id: {"reference": ..., "mistakes": [...]}}}."""
    path = DATA / f"{assignment_id}.json"
    return json.loads(path.read_text(encoding="utf-8"))["exercises"]


def outcome_from_data(data) -> TaskOutcome | None:
    return None if data is None else decode_outcome(data)


def stored_outcomes(assignment_id: str, exercise: Exercise,
                    cases: list[Case]) -> tuple[list[TaskOutcome | None], list[list[TaskOutcome | None]]]:
    """The reference's outcome on each public case, and each mistake model's: [case], [mistake][case]."""
    stored = load(assignment_id).get(exercise.id, {})
    if sorted(case.id for case in cases) != sorted(stored):
        raise RuntimeError(f"the kit's stored public answers for {exercise.id} are out of date: reinstall the kit "
                           "(instructors: python -m autograder.frontends.public_answers)")
    try:
        return ([outcome_from_data(stored[case.id]["reference"]) for case in cases],
                [[outcome_from_data(stored[case.id]["mistakes"][k]) for case in cases]
                 for k in range(len(exercise.mistakes))])
    except (KeyError, IndexError, TypeError, WireError) as error:
        raise RuntimeError(f"the kit's stored public answers for {exercise.id} are damaged ({error}): reinstall "
                           "the kit") from None


# --------------------------------------------------------------------------- writing (the instructor)

def outcome_to_stored(outcome: TaskOutcome | None) -> dict | None:
    return None if outcome is None else outcome_to_data(replace(outcome, seconds=0.0))


def compute(assignment: Assignment, solutions: Path) -> dict:
    """Run the solution and the mistake models on the public cases, in a child, as grading does."""
    from autograder.config import REFERENCE_LIMITS, SetupError  # the grading machinery, only here
    from autograder.load.cells import read_submission
    from autograder.pipeline.references import child_run, reference_tasks
    from autograder.run.handing import CaseBook
    from autograder.run.scheduler import run_all

    cases = {exercise.id: public_cases(exercise) for exercise in assignment.exercises}
    tasks = reference_tasks(assignment, cases)
    source = read_submission(solutions / assignment.id / f"{assignment.id}.ipynb")
    run = child_run(("public", assignment.id), source, assignment, CaseBook(cases), tasks, REFERENCE_LIMITS,
                    reference=True)
    (finished,) = list(run_all([run], jobs=1))
    outcomes = {(t.exercise, t.case_index, t.implementation): finished.record.outcomes.get(n)
                for n, t in enumerate(tasks)}
    exercises = {}
    for exercise in assignment.exercises:
        stored = {}
        for i, case in enumerate(cases[exercise.id]):
            reference = outcomes.get((exercise.id, i, STUDENT))
            if reference is None or reference.status != "ok":
                raise SetupError(f"the solution of {exercise.id} fails on public case {case.id}")
            stored[case.id] = {
                "reference": outcome_to_stored(reference),
                "mistakes": [outcome_to_stored(outcomes.get((exercise.id, i, f"mistake:{k}")))
                             for k in range(len(exercise.mistakes))],
            }
        exercises[exercise.id] = stored
    return {"assignment": assignment.id, "seed": PUBLIC_SEED, "format": FORMAT, "exercises": exercises}


def main(argv: list[str] | None = None) -> int:
    from autograder.config import find_solutions

    solutions = find_solutions()
    DATA.mkdir(exist_ok=True)
    for assignment in all_assignments():
        data = compute(assignment, solutions)
        (DATA / f"{assignment.id}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"wrote {DATA / assignment.id}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
