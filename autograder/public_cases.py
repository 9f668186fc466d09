"""The reference's answers on the public cases, shipped with the kit for students' self-checks.

Students have the kit but not the solutions. Their notebook's public check
cells (``autograder.selfcheck.check``) compare their function with these
stored outcomes, and diagnose with the same code and words as the grader.
Only cases marked ``public`` (the ones the notebooks' teaching text shows)
are stored; the hidden cases and the solutions never leave the instructor.

Regenerate after changing a public case or a solution::

    python -m autograder.public_cases      # writes autograder/public_cases/<assignment>.json

A test checks the stored files against a fresh run of the solutions.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


from autograder.exercises import all_assignments
from autograder.jobs import STUDENT
from autograder.sandbox import ErrorInfo, TaskOutcome
from autograder.spec import Assignment, Case, Exercise
from autograder.wire import decode_value
from autograder.wire import value_to_json as wire_value_to_json

DATA = Path(__file__).resolve().parent / "public_cases"
PUBLIC_SEED = 0  # public cases are fixed; the seed only fills the random ones, which are never public


def public_cases(exercise: Exercise) -> list[Case]:
    return [case for case in exercise.cases(PUBLIC_SEED) if case.public]


# --------------------------------------------------------------------------- reading (students' kernels)

def load(assignment_id: str) -> dict:
    """The stored outcomes of ``assignment_id``: {exercise: {case id: {"reference": ..., "mistakes": [...]}}}."""
    path = DATA / f"{assignment_id}.json"
    return json.loads(path.read_text(encoding="utf-8"))["exercises"]


def outcome_from_json(data: dict | None) -> TaskOutcome | None:
    if data is None:
        return None
    if data["status"] == "ok":
        return TaskOutcome("ok", outputs={name: decode_value(value) for name, value in data["outputs"].items()})
    return TaskOutcome(data["status"], error=ErrorInfo(data.get("type", ""), data.get("message", "")),
                       message=data.get("message", ""))


# --------------------------------------------------------------------------- writing (the instructor)

def outcome_to_json(outcome: TaskOutcome | None) -> dict | None:
    if outcome is None:
        return None
    if outcome.status == "ok":
        return {"status": "ok", "outputs": {name: wire_value_to_json(v) for name, v in sorted(outcome.outputs.items())}}
    error = outcome.error
    return {"status": outcome.status, "type": error.type if error else "",
            "message": (error.message if error else outcome.message)[:500]}


def compute(assignment: Assignment, solutions: Path) -> dict:
    """Run the solution and the mistake models on the public cases, in a child, as grading does."""
    from autograder.grading import REFERENCE_LIMITS, SetupError, make_run, reference_tasks  # the grading machinery, only here
    from autograder.loader import read_submission
    from autograder.sandbox import run_all

    cases = {exercise.id: public_cases(exercise) for exercise in assignment.exercises}
    tasks = reference_tasks(assignment, cases)
    source = read_submission(solutions / assignment.id / f"{assignment.id}.ipynb")
    run = make_run(("public", assignment.id), source, assignment, cases, tasks, REFERENCE_LIMITS, reference=True)
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
                "reference": outcome_to_json(reference),
                "mistakes": [outcome_to_json(outcomes.get((exercise.id, i, f"mistake:{k}")))
                             for k in range(len(exercise.mistakes))],
            }
        exercises[exercise.id] = stored
    return {"assignment": assignment.id, "seed": PUBLIC_SEED, "exercises": exercises}


def main(argv: list[str] | None = None) -> int:
    from autograder.grading import Settings

    solutions = Settings().solutions_dir()
    DATA.mkdir(exist_ok=True)
    for assignment in all_assignments():
        data = compute(assignment, solutions)
        (DATA / f"{assignment.id}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"wrote {DATA / assignment.id}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
