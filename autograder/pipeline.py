"""grade(): plan -> references -> run -> judge, each a short step over small data classes.

1. **plan**: read every submission (never run it), tell its assignment, resume what a journal already
   holds, take kept grades when asked, group submissions that run the same code;
2. **references**: per assignment, the reference's and the mistake models' outcomes on this run's cases,
   from the cache or from a contained run of its own;
3. **run**: every submission that must run, in a contained child, at most ``jobs`` at once;
4. **judge**: each finished record against its reference (``judge.evaluate``), then delivered: to the
   journal, the kept grades and the caller as they finish; ``grade`` returns them in the order given.
"""
from __future__ import annotations

import math
import secrets
import sys
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable

from autograder.config import REFERENCE_LIMITS, Limits, SetupError, Settings, find_solutions, require_mistake_models
from autograder.course import ASSIGNMENT_IDS, assignment_by_id
from autograder.judge.static import analyze
from autograder.judge.evaluate import ExerciseEvidence, evaluate_exercises, unreadable_result
from autograder.judge.plan import CasePlan
from autograder.load.cells import SubmissionSource, cell_label, read_submission
from autograder.load.discover import Found, detect_assignment, student_name, ungradable
from autograder.load.program import cells_for_child, program_digest
from autograder.load.reading import content_for_key
from autograder.model.course import ADVISORY, Assignment, Case, case_key
from autograder.model.outcomes import RunRecord, RunStatus, TaskOutcome
from autograder.model.results import SubmissionResult
from autograder.run.forkserver import ForkServerError
from autograder.run.handing import CaseBook
from autograder.run.hidden import require_out_of_sight
from autograder.run.isolation import Containment
from autograder.run.scheduler import LocalRunner, run_all
from autograder.run.supervisor import SubmissionRun
from autograder.run.tasks import STUDENT, ChildJob, Task
from autograder.store.durations import Durations, longest_first
from autograder.store.journal import Journal, result_key
from autograder.store.reference_cache import ReferenceCache, reference_key
from autograder.store.result_store import ResultStore

# How long the fork server's `import tensorflow` keeps one core free for the parent's own work, about.
PREWORK_SECONDS = 2.0


@dataclass(frozen=True)
class Graded:
    """What a run returns: the results in the order given, and the seed their random cases came from."""

    results: list[SubmissionResult]
    seed: int
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (submission, why): graded as errors, or unknown


@dataclass
class Submission:
    """One submission of the plan, read but never run by this process."""

    number: int
    found: Found
    source: SubmissionSource
    assignment: str | None
    key: str  # what determines its result, for the journal
    program: str  # digest of the code the child runs: the same program (assignment, seed), the same run
    static: dict[str, object] = field(default_factory=dict)  # exercise id -> what the static reading found

    @property
    def runnable(self) -> bool:
        return self.assignment is not None and self.source.problem is None


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


def reference_outcomes(assignment_id: str, seed: int, solutions: Path | None = None) -> Reference:
    """The reference's and every mistake model's outcomes on all the cases of a seed, run apart (for the tests
    and tools that study the cases themselves; grading uses the cache)."""
    run = GradingRun(Settings(seed=seed, solutions=solutions, cache=None))
    assignment = assignment_by_id(assignment_id)
    cases = {e.id: e.cases(seed) for e in assignment.exercises}
    reference = Reference(assignment, cases, reference_tasks(assignment, cases))
    (finished,) = list(run_all([run._reference_run(reference)], jobs=1))
    reference.record = finished.record
    return reference


def grade(found: Iterable[Found], settings: Settings, on_result: Callable[[SubmissionResult], None] | None = None,
          runner: LocalRunner | None = None) -> Graded:
    """Grade every submission; results come back in the order given (see the module's docstring). ``on_result``
    sees each result as soon as it is judged; ``runner`` runs the children (default: this machine's; a cluster's)."""
    return GradingRun(settings, on_result, runner).grade(list(found))


class GradingRun:
    """One call of ``grade``: the run's settings and stores, and what each step leaves for the next."""

    def __init__(self, settings: Settings, on_result: Callable[[SubmissionResult], None] | None = None,
                 runner: LocalRunner | None = None):
        self.settings, self.runner = settings, runner or LocalRunner()
        self.on_result = on_result or (lambda result: None)
        self.journal = Journal(settings.journal) if settings.journal is not None else None
        self.seed = self._choose_seed()
        cache = ReferenceCache(settings.cache) if settings.cache is not None else None
        self.cache = cache if cache is not None and cache.prepare() else None
        self.store = ResultStore.inside(self.cache.folder) if self.cache is not None else None
        self.durations = Durations.inside(self.cache.folder) if self.cache is not None else None
        self.submissions: list[Submission] = []
        self.results: dict[int, SubmissionResult] = {}
        self.references: dict[str, Reference] = {}
        self.copies: dict[int, list[int]] = {}  # a submission that runs -> those that share its run
        self.kept_now: set[str] = set()

    def _choose_seed(self) -> int:
        """The seed asked for, else an interrupted run's (resuming grades on the same cases), else 63 new bits."""
        seed = self.settings.seed
        if seed is None and self.journal is not None:
            seed = self.journal.seed()
        if seed is None:
            seed = secrets.randbits(63)
        if self.journal is not None:
            self.journal.start(seed)
        return seed

    def grade(self, found: list[Found]) -> Graded:
        if found and not self.settings.reuse_results:  # when reusing, maybe nothing runs: start it only if needed
            self.runner.prepare()  # the fork server's import of TensorFlow runs while this process reads
        prework_until = time.monotonic() + PREWORK_SECONDS
        self.plan(found)
        self.read_statically(until=prework_until)
        self.prepare_references()
        students = self.schedule()
        try:
            self.run(students)
        except ForkServerError as error:
            raise SetupError(str(error)) from None
        if self.store is not None and self.kept_now:
            self.store.trim()
        if self.durations is not None:
            self.durations.save()
        unreadable = [(s.found.shown_as, why) for s in self.submissions if (why := ungradable(s.source, s.assignment))]
        return Graded([self.results[number] for number in range(len(self.submissions))], self.seed, unreadable)

    # ---------------------------------------------------------------- 1. plan
    def plan(self, found: list[Found]) -> None:
        """Read every submission and resume what the journal already holds."""
        for number, item in enumerate(found):
            source = read_submission(item.path)
            assignment = self.settings.assignment or detect_assignment(item.path, source)
            key = result_key(item.shown_as, content_for_key(item.path), assignment, self.seed)
            self.submissions.append(Submission(number, item, source, assignment, key, program_digest(source)))
        for submission in self.submissions:
            earlier = self.journal.load(submission.key) if self.journal is not None else None
            if earlier is not None:
                self.results[submission.number] = earlier
                self.on_result(earlier)
        if self.results:
            print(f"autograder: resuming an interrupted run (seed {self.seed}): {len(self.results)} of "
                  f"{len(self.submissions)} submissions were already graded", file=sys.stderr)

    @property
    def todo(self) -> list[Submission]:
        return [s for s in self.submissions if s.number not in self.results]

    def read_statically(self, until: float) -> None:
        """The static reading, now, while the fork server imports TensorFlow (the rest when judging)."""
        for submission in self.todo:
            if time.monotonic() > until:
                break
            if submission.assignment in ASSIGNMENT_IDS and submission.source.problem is None:
                submission.static = {e.id: analyze(submission.source, e.id)
                                     for e in assignment_by_id(submission.assignment).exercises}

    # ---------------------------------------------------------------- 2. references
    def prepare_references(self) -> None:
        """Each needed assignment's cases and tasks, and its outcomes from the cache when it has them."""
        for assignment_id in sorted({s.assignment for s in self.todo if s.assignment}):
            assignment = assignment_by_id(assignment_id)
            keys = {e.id: case_key(self.seed, e.id) for e in assignment.exercises}
            cases = {e.id: e.cases_from_key(keys[e.id]) for e in assignment.exercises}
            reference = Reference(assignment, cases, reference_tasks(assignment, cases), keys=keys)
            if self.cache is not None:
                reference.key = reference_key(self._solution(assignment_id).read_bytes(), assignment_id, self.seed)
                kept = self.cache.load(reference.key, reference.tasks)
                if kept is not None and not replace(reference, record=kept).problems():
                    reference.record = kept
            self.references[assignment_id] = reference

    def _solution(self, assignment_id: str) -> Path:
        return find_solutions(self.settings.solutions) / assignment_id / f"{assignment_id}.ipynb"

    def _reference_run(self, reference: Reference) -> SubmissionRun:
        require_mistake_models(reference.assignment.id)
        notebook = self._solution(reference.assignment.id)
        source = read_submission(notebook)
        if source.problem:
            raise SetupError(f"the reference solution {notebook} cannot be read: {source.problem}")
        return child_run(("reference", reference.assignment.id), source, reference.assignment, reference.book,
                         reference.tasks, REFERENCE_LIMITS, reference=True)

    # ---------------------------------------------------------------- 3. run
    def schedule(self) -> list[SubmissionRun]:
        """The student runs, longest first; what needs no run is delivered now (unreadable, kept, copies)."""
        if self.references:  # no child may read the solutions: they must lie outside every child's view
            require_out_of_sight(find_solutions(self.settings.solutions), "the reference solutions folder")
        first_of: dict[tuple[str, str], int] = {}
        runs = []
        for submission in self.todo:
            if not submission.runnable:
                self.deliver(submission, None)  # unreadable, or of no known assignment: nothing to run
                continue
            kept = self._kept(submission)
            if kept is not None:
                self.deliver(submission, None, kept)
                continue
            if self.settings.dedupe:
                same = first_of.setdefault((submission.program, submission.assignment), submission.number)
                if same != submission.number:
                    self.copies[same].append(submission.number)
                    continue
                self.copies[submission.number] = []
            reference = self.references[submission.assignment]
            tasks = student_tasks(reference.assignment, reference.cases)
            runs.append(child_run(("student", submission.number), submission.source, reference.assignment,
                                  reference.book, tasks, self.settings.limits, private_files=self.cache is not None,
                                  wanted=CasePlan(reference, tasks).wanted))
        # Longest first (by a program's last time, else its assignment's): no worker waits long at the end.
        cost = {a: reference.expected_seconds() for a, reference in self.references.items()}
        return longest_first(runs, [self.submissions[run.key[1]] for run in runs], self.durations, cost)

    def _kept(self, submission: Submission) -> SubmissionResult | None:
        if not (self.settings.reuse_results and self.store is not None):
            return None
        kept = self.store.load(self._kept_key(submission))
        return kept if kept is not None and kept.assignment == submission.assignment else None

    def _kept_key(self, submission: Submission) -> str:
        return self.store.key(submission.program, self.references[submission.assignment].key, self.settings.limits)

    def run(self, students: list[SubmissionRun]) -> None:
        """References first (a reference runs only when a submission of its assignment will), then students;
        a student's record waits for its reference, then is judged."""
        needed = {run.job.assignment for run in students}
        references = [self._reference_run(r) for a, r in self.references.items() if a in needed and r.record is None]
        waiting: dict[str, list[SubmissionRun]] = {a: [] for a in self.references}
        for run in self.runner.run_all(references + students, jobs=self.settings.jobs):
            kind, key = run.key
            if kind == "reference":
                self._reference_done(self.references[key], run.record)
                for each in waiting.pop(key, []):
                    self._student_done(each)
            elif self.references[self.submissions[key].assignment].record is not None:
                self._student_done(run)
            else:
                waiting[self.submissions[key].assignment].append(run)

    def _reference_done(self, reference: Reference, record: RunRecord) -> None:
        reference.record = record
        problems = reference.problems()
        if problems:
            raise SetupError(f"the reference solution of {reference.assignment.id} does not run cleanly: "
                             + "; ".join(problems[:5]))
        if self.cache is not None:
            self.cache.save(reference.key, reference.tasks, record)

    def _student_done(self, run: SubmissionRun) -> None:
        if self.durations is not None:  # the next run's order
            self.durations.note(self.submissions[run.key[1]], run.record.seconds)
        for number in [run.key[1], *self.copies.get(run.key[1], [])]:
            self.deliver(self.submissions[number], run.record)
        run.record = None  # judged: only the result is kept (a class's records would not fit in memory)

    # ---------------------------------------------------------------- 4. judge, deliver
    def deliver(self, submission: Submission, record: RunRecord | None, kept: SubmissionResult | None = None) -> None:
        if kept is not None:
            result = replace(kept, submission=submission.found.shown_as, student=student_name(submission.found.path))
        else:
            result = judge_submission(submission, record, self.references.get(submission.assignment))
            reference = self.references.get(submission.assignment)
            if self.store is not None and record is not None and reference is not None \
                    and record.clean(len(student_tasks(reference.assignment, reference.cases))):
                key = self._kept_key(submission)
                if key not in self.kept_now:  # copies of one program share one entry
                    self.kept_now.add(key)
                    self.store.save(key, result)
        self.results[submission.number] = result
        if self.journal is not None:
            self.journal.save(submission.key, result)
        self.on_result(result)


def judge_submission(submission: Submission, record: RunRecord | None,
                     reference: Reference | None) -> SubmissionResult:
    """A submission's result: every exercise's evidence judged against the reference's."""
    student, shown_as = student_name(submission.found.path), submission.found.shown_as
    if submission.assignment is None:
        return SubmissionResult(shown_as, student, "unknown", [], notes=[ungradable(submission.source, None)])
    assignment = reference.assignment if reference is not None else assignment_by_id(submission.assignment)
    if submission.source.problem or record is None:
        return unreadable_result(shown_as, student, assignment, submission.source.problem or "not graded")
    evidences: list[ExerciseEvidence] = []
    tasks = student_tasks(assignment, reference.cases)
    for exercise in assignment.exercises:
        count = len(reference.cases[exercise.id])
        reading = submission.static.get(exercise.id) or analyze(submission.source, exercise.id)
        for crash in reading.crashes:  # for the instructor: the grade stands on the numbers alone
            print(f"autograder: the static reading of {shown_as} crashed ({crash}); {exercise.id} is graded "
                  "from its numbers alone", file=sys.stderr)
        evidence = ExerciseEvidence(
            exercise=exercise,
            cases=reference.cases[exercise.id],
            student=[record.outcomes.get(n) for n, task in enumerate(tasks) if task.exercise == exercise.id],
            reference=[reference.outcome(exercise.id, i) for i in range(count)],
            mistakes=[[reference.outcome(exercise.id, i, f"mistake:{k}") for i in range(count)]
                      for k in range(len(exercise.mistakes))],
            static=reading,
            defined=record.defined.get(exercise.id),
            load_errors=record.load_errors,
            source=submission.source,
            problems=record.problems,
        )
        evidences.append(evidence)
    exercises = evaluate_exercises(evidences)  # together: one exercise's failure may be another's cause
    notes = list(record.problems)
    notes += [f"{submission.source.where(cell, None) or 'the file'} raised {error.type}: "
              f"{error.message.splitlines()[0] if error.message else ''}" for cell, error in record.load_errors]
    return SubmissionResult(shown_as, student, assignment.id, exercises, seconds=record.seconds, notes=notes)
