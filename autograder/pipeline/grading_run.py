"""One call of ``grade`` from start to end: the run's seed and stores, its steps in order (plan, references,
run, judge), the scheduling of student runs after their references, and delivery of each result to the journal,
the kept grades and the caller as it is judged (the steps' own work is in ``pipeline.submissions``,
``pipeline.references`` and ``pipeline.judging``)."""
from __future__ import annotations

import secrets
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from autograder.config import SetupError, Settings, find_solutions
from autograder.judge.plan import CasePlan
from autograder.load.discover import Found, student_name, ungradable
from autograder.model.outcomes import RunRecord
from autograder.model.results import SubmissionResult
from autograder.pipeline.judging import judge_submission
from autograder.pipeline.references import (Reference, child_run, prepare_references, reference_run,
                                            student_tasks)
from autograder.pipeline.submissions import Submission, read_statically, read_submissions
from autograder.run.forkserver import ForkServerError
from autograder.run.hidden import require_out_of_sight
from autograder.run.scheduler import LocalRunner
from autograder.run.supervisor import SubmissionRun
from autograder.store.durations import Durations, longest_first
from autograder.store.journal import Journal
from autograder.store.reference_cache import ReferenceCache
from autograder.store.result_store import ResultStore

# How long the fork server's `import tensorflow` keeps one core free for the parent's own work, about.
PREWORK_SECONDS = 2.0


@dataclass(frozen=True)
class Graded:
    """What a run returns: the results in the order given, and the seed their random cases came from."""

    results: list[SubmissionResult]
    seed: int
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (submission, why): graded as errors, or unknown


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

    # ---------------------------------------------------------------- 1. plan (pipeline.submissions)
    def plan(self, found: list[Found]) -> None:
        """Read every submission and resume what the journal already holds."""
        self.submissions = read_submissions(found, self.settings.assignment, self.seed)
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
        read_statically(self.todo, until)

    # ---------------------------------------------------------------- 2. references (pipeline.references)
    def prepare_references(self) -> None:
        """Each needed assignment's cases and tasks, and its outcomes from the cache when it has them."""
        needed = {s.assignment for s in self.todo if s.assignment}
        self.references = prepare_references(needed, self.seed, self.cache, self.settings.solutions)

    def _reference_run(self, reference: Reference) -> SubmissionRun:
        return reference_run(reference, self.settings.solutions)

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

    # ---------------------------------------------------------------- 4. judge (pipeline.judging), deliver
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
