"""Step 2 of grading: per assignment, this run's cases, the tasks the reference and its mistake models run on
them, and their outcomes (from the cache, or from a trusted contained run of the solution notebook); also the
child run every submission gets, so that the reference and the students run alike."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from autograder.config import REFERENCE_LIMITS, Limits, SetupError, find_solutions, require_mistake_models
from autograder.course import assignment_by_id
from autograder.load.cells import SubmissionSource, cell_label, read_submission
from autograder.load.program import cells_for_child
from autograder.model.course import ADVISORY, Assignment, Case, case_key
from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.run.handing import CaseBook
from autograder.run.isolation import Containment
from autograder.run.scheduler import run_all
from autograder.run.supervisor import SubmissionRun
from autograder.run.tasks import STUDENT, ChildJob, Task
from autograder.store.reference_cache import ReferenceCache, reference_key


@dataclass
class Reference:
    """The reference's and the mistake models' outcomes on one run's cases."""

    assignment: Assignment
    cases: dict[str, list[Case]]
    tasks: list[Task]
    record: RunRecord | None = None  # None until it has run (or came from the cache)
    key: str | None = None  # its cache key, when there is a cache
    keys: dict[str, bytes] | None = None  # each exercise's case key (``case_key``): what a cluster's worker gets

    @cached_property
    def book(self) -> CaseBook:  # the cases as children get them, one at a time (one book per assignment)
        return CaseBook(self.cases, self.keys)

    def outcome(self, exercise: str, case_index: int, implementation: str = STUDENT) -> TaskOutcome | None:
        number = self._numbers.get((exercise, case_index, implementation))
        return None if number is None or self.record is None else self.record.outcomes.get(number)

    @cached_property
    def _numbers(self) -> dict[tuple[str, int, str], int]:
        """Task number by (exercise, case, implementation): every submission looks up each of them."""
        return {(t.exercise, t.case_index, t.implementation): n for n, t in enumerate(self.tasks)}

    def expected_seconds(self) -> float:
        """About how long a submission takes: the reference's own time on the students' tasks, else 50 ms a task."""
        outcomes = [self.outcome(t.exercise, t.case_index) for t in self.tasks if t.implementation == STUDENT]
        if outcomes and all(outcome is not None for outcome in outcomes):
            return sum(outcome.seconds for outcome in outcomes)
        return 0.05 * len(outcomes)

    def problems(self) -> list[str]:
        """Why this reference does not run cleanly (every grade of the run would be wrong), or nothing."""
        record = self.record or RunRecord()
        problems = list(record.problems)
        problems += [f"{cell_label(cell)}: {error.type}: {error.message}" for cell, error in record.load_errors]
        for number, task in enumerate(self.tasks):
            outcome = record.outcomes.get(number)
            if task.implementation == STUDENT and (outcome is None or outcome.status != RunStatus.OK):
                detail = outcome.error.message if outcome and outcome.error else (outcome.message if outcome else "")
                problems.append(f"{task.exercise} case {task.case_index}: "
                                f"{outcome.status if outcome else 'missing'} {detail}")
        return problems


def student_tasks(assignment: Assignment, cases: dict[str, list]) -> list[Task]:
    return [Task(e.id, index, STUDENT) for e in assignment.exercises for index in range(len(cases[e.id]))]


def reference_tasks(assignment: Assignment, cases: dict[str, list]) -> list[Task]:
    """The reference on every case; each mistake model on the cases that can name it (never advisory ones)."""
    tasks = student_tasks(assignment, cases)
    for exercise in assignment.exercises:
        for k, mistake in enumerate(exercise.mistakes):
            tasks += [Task(exercise.id, index, f"mistake:{k}") for index, case in enumerate(cases[exercise.id])
                      if mistake.cases(case) and case.kind != ADVISORY]
    return tasks


def child_run(key, source: SubmissionSource, assignment: Assignment, book: CaseBook, tasks: list[Task],
              limits: Limits, reference: bool = False, private_files: bool = False, wanted=None) -> SubmissionRun:
    """A run of ``tasks`` in contained children, each case handed over when its task starts (``reference``: the
    solution's, a trusted child that may run mistake models; ``wanted``: which can still matter, ``judge.plan``)."""
    containment = Containment(memory_bytes=limits.memory_bytes, private_files=private_files,
                              cpu_seconds=int(limits.submission_seconds * 2) + 30)
    job = ChildJob(assignment=assignment.id, cells=cells_for_child(source, only_reference_cells=reference),
                   trusted=reference, containment=containment)
    # The reference must never be the one that times out; a student's case has the tighter of the two limits.
    time_limits = [book.case(task).time_limit * 3 if reference
                   else min(book.case(task).time_limit, limits.case_seconds or math.inf) for task in tasks]
    return SubmissionRun(key, job, tasks, book, limits, time_limits, wanted)


def solution_notebook(solutions: Path | None, assignment_id: str) -> Path:
    """The reference solution's notebook (``solutions``: the folder asked for, else the one found)."""
    return find_solutions(solutions) / assignment_id / f"{assignment_id}.ipynb"


def prepare_references(assignment_ids: set[str], seed: int, cache: ReferenceCache | None,
                       solutions: Path | None) -> dict[str, Reference]:
    """Each assignment's cases and tasks, and its outcomes from the cache when it has them (and they are clean)."""
    references = {}
    for assignment_id in sorted(assignment_ids):
        assignment = assignment_by_id(assignment_id)
        keys = {e.id: case_key(seed, e.id) for e in assignment.exercises}
        cases = {e.id: e.cases_from_key(keys[e.id]) for e in assignment.exercises}
        reference = Reference(assignment, cases, reference_tasks(assignment, cases), keys=keys)
        if cache is not None:
            reference.key = reference_key(solution_notebook(solutions, assignment_id).read_bytes(), assignment_id,
                                          seed)
            kept = cache.load(reference.key, reference.tasks)
            if kept is not None and not replace(reference, record=kept).problems():
                reference.record = kept
        references[assignment_id] = reference
    return references


def reference_run(reference: Reference, solutions: Path | None) -> SubmissionRun:
    """The solution notebook's run on every task of ``reference``, in a trusted child."""
    require_mistake_models(reference.assignment.id)
    notebook = solution_notebook(solutions, reference.assignment.id)
    source = read_submission(notebook)
    if source.problem:
        raise SetupError(f"the reference solution {notebook} cannot be read: {source.problem}")
    return child_run(("reference", reference.assignment.id), source, reference.assignment, reference.book,
                     reference.tasks, REFERENCE_LIMITS, reference=True)


def reference_outcomes(assignment_id: str, seed: int, solutions: Path | None = None) -> Reference:
    """The reference's and every mistake model's outcomes on all the cases of a seed, run apart (for the tests
    and tools that study the cases themselves; grading uses the cache)."""
    assignment = assignment_by_id(assignment_id)
    cases = {e.id: e.cases(seed) for e in assignment.exercises}
    reference = Reference(assignment, cases, reference_tasks(assignment, cases))
    (finished,) = list(run_all([reference_run(reference, solutions)], jobs=1))
    reference.record = finished.record
    return reference
