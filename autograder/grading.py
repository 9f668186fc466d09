"""Grade submissions: run the reference and each submission apart, compare, score.

Data flows one way: submissions are read (``loader``), run in children
(``sandbox``), compared with the reference's outputs on the same cases
(``compare``), diagnosed (``diagnose``) and turned into ``results``.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable

from autograder import static_checks
from autograder.cache import ReferenceCache, ResultStore, clean, reference_key
from autograder.diagnose import ExerciseEvidence, evaluate_exercise, unreadable_result
from autograder.discover import Found, detect_assignment, student_name
from autograder.exercises import ASSIGNMENT_IDS, assignment_by_id
from autograder.isolation import SCRATCH_FOLDERS, Containment
from autograder.jobs import STUDENT, ChildJob, Task
from autograder.journal import Journal, result_key
from autograder.loader import SubmissionSource, read_submission
from autograder.results import ExerciseResult, SubmissionResult
from autograder.sandbox import Limits, RunRecord, SubmissionRun, run_all, start_fork_server
from autograder.spec import Assignment

REFERENCE_LIMITS = Limits(load_seconds=300.0, submission_seconds=1800.0, memory_bytes=6 * 2**30)
# How long the fork server's `import tensorflow` keeps one core free for the parent's own work, about.
PREWORK_SECONDS = 2.0


class SetupError(RuntimeError):
    """The grader itself cannot run (no reference solutions, unknown assignment)."""


@dataclass
class Settings:
    seed: int | None = None  # None: the journal's (when resuming), else chosen per run
    jobs: int = 1
    limits: Limits = field(default_factory=Limits)
    solutions: Path | None = None
    assignment: str | None = None  # force this assignment for every submission
    journal: Journal | None = None  # keep finished results on disk, resume an interrupted run
    # reference outcomes kept on disk between runs (None: always recompute); see autograder/cache.py
    cache: ReferenceCache | None = field(default_factory=ReferenceCache.from_environment)
    dedupe: bool = True  # submissions that run the same code (same assignment) run once, their results are shared
    # take the grade an earlier run kept (cache.ResultStore) for the same code, seed, solution, grader and limits
    reuse_results: bool = False

    def solutions_dir(self) -> Path:
        candidates = [self.solutions, os.environ.get("AUTOGRADER_SOLUTIONS"),
                      Path(__file__).resolve().parents[1] / "solutions"]
        for candidate in candidates:
            if candidate and Path(candidate).is_dir():
                return Path(candidate)
        raise SetupError("cannot find the reference solutions: pass --solutions DIR or set AUTOGRADER_SOLUTIONS "
                         "to the course's solutions/ directory")


@dataclass
class Reference:
    """The reference's and the mistake models' outcomes on one run's cases."""

    assignment: Assignment
    cases: dict[str, list]
    tasks: list[Task]
    record: RunRecord

    def outcome(self, exercise: str, case_index: int, implementation: str = STUDENT):
        number = self._numbers.get((exercise, case_index, implementation))
        return None if number is None else self.record.outcomes.get(number)

    @cached_property
    def _numbers(self) -> dict[tuple[str, int, str], int]:
        """Task number by (exercise, case, implementation): every submission looks up each of them."""
        return {(t.exercise, t.case_index, t.implementation): n for n, t in enumerate(self.tasks)}


@dataclass
class Pending:
    found: Found
    source: SubmissionSource
    assignment: str | None
    key: str  # what determines its result, for the journal
    program: str = ""  # digest of the code the child runs: the same program (assignment, seed), the same run
    static: dict[str, object] = field(default_factory=dict)  # exercise id -> what the static reading found


def cells_for_child(source: SubmissionSource, only_reference_cells: bool = False) -> list[tuple[int, str, str]]:
    """(index, code, filename) of the cells a child runs; filenames make tracebacks say 'cell 7'."""
    cells = []
    for cell in source.runnable_cells:
        if only_reference_cells and not (cell.solution or cell.grade_id == "setup"):
            continue
        filename = f"<cell {cell.index}>" if source.kind == "notebook" else "<submission>"
        cells.append((cell.index, cell.code, filename))
    return cells


def program_digest(source: SubmissionSource) -> str:
    """What a child's run depends on from the submission: the code it runs, cell by cell, under the names its
    tracebacks give. Outputs, execution counts, metadata and markdown are not part of it: a notebook re-saved
    by JupyterLab runs the same program as the file it came from."""
    return hashlib.sha256(json.dumps([source.kind, cells_for_child(source)]).encode()).hexdigest()


def student_tasks(assignment: Assignment, cases: dict[str, list]) -> list[Task]:
    return [Task(exercise.id, index, STUDENT) for exercise in assignment.exercises
            for index in range(len(cases[exercise.id]))]


def reference_tasks(assignment: Assignment, cases: dict[str, list]) -> list[Task]:
    tasks = student_tasks(assignment, cases)
    for exercise in assignment.exercises:
        for k, mistake in enumerate(exercise.mistakes):
            tasks += [Task(exercise.id, index, f"mistake:{k}")
                      for index, case in enumerate(cases[exercise.id]) if mistake.cases(case)]
    return tasks


def make_run(key, source: SubmissionSource, assignment: Assignment, cases, tasks, limits: Limits,
             reference: bool = False, hidden: tuple[str, ...] = (), seed: int | None = None) -> SubmissionRun:
    """``seed``: ``cases`` are every exercise's ``cases(seed)``, and the child draws them itself."""
    containment = Containment(memory_bytes=limits.memory_bytes, hidden=hidden,
                              cpu_seconds=int(limits.submission_seconds * 2) + 30)
    job = ChildJob(assignment=assignment.id, cells=cells_for_child(source, only_reference_cells=reference),
                   tasks=tasks, cases=None if seed is not None else cases, containment=containment, seed=seed)
    time_limits = [_case_limit(cases[task.exercise][task.case_index].time_limit, limits, reference) for task in tasks]
    return SubmissionRun(key, job, limits, time_limits)


def _case_limit(own: float, limits: Limits, reference: bool) -> float:
    if reference:
        return own * 3  # the reference must never be the one that times out
    return min(own, limits.case_seconds) if limits.case_seconds else own


def grade(found: Iterable[Found], settings: Settings,
          on_result: Callable[[SubmissionResult], None] | None = None) -> list[SubmissionResult]:
    """Grade every submission; results come back in the order given.

    ``on_result`` sees each result as soon as its submission (and its assignment's reference)
    is done. With ``settings.journal``, finished results are kept on disk and not graded again.
    With ``settings.cache``, the reference's outcomes are read from disk when an earlier run
    computed them for the same solution, seed and grader. With ``settings.dedupe``, submissions
    that run the same code (the template handed in unchanged by many students, whatever its outputs,
    execution counts and markdown) run once. With ``settings.reuse_results`` too, a submission graded
    cleanly by an earlier run (same code, seed, solution, grader and limits) is not run again.
    """
    journal = settings.journal
    if journal is not None:
        settings.seed = journal.seed() if settings.seed is None and journal.seed() is not None else settings.seed
    if settings.seed is None:
        settings.seed = random.SystemRandom().randrange(2**31)
    if journal is not None:
        journal.start(settings.seed)
    found = list(found)
    if found and not settings.reuse_results:  # when reusing, maybe nothing runs: start it only if needed
        start_fork_server()  # its import of TensorFlow runs while this process reads the submissions
    prework_until = time.monotonic() + PREWORK_SECONDS
    pending = []
    for item in found:
        source = read_submission(item.path)
        assignment_id = settings.assignment or detect_assignment(item.path, source)
        content = _content(item)
        pending.append(Pending(item, source, assignment_id, result_key(item.shown_as, content, assignment_id,
                                                                       settings.seed),
                               program_digest(source)))
    results: dict[int, SubmissionResult] = {}
    for number, item in enumerate(pending):
        earlier = journal.load(item.key) if journal is not None else None
        if earlier is not None:
            results[number] = earlier
            if on_result:
                on_result(earlier)
    if results:
        print(f"autograder: resuming an interrupted run (seed {settings.seed}): {len(results)} of {len(pending)} "
              "submissions were already graded", file=sys.stderr)

    kept_now: set[str] = set()

    def kept_key(item: Pending) -> str:
        return store.key(item.program, reference_keys[item.assignment], settings.limits)

    def finish(number: int, record: RunRecord | None, kept: SubmissionResult | None = None) -> None:
        item = pending[number]
        if kept is not None:
            result = replace(kept, submission=item.found.shown_as, student=student_name(item.found.path))
        else:
            result = _result_for(item, record, references)
            if store is not None and record is not None and item.assignment in reference_keys \
                    and clean(record, len(student_tasks(assignments[item.assignment], cases[item.assignment]))):
                key = kept_key(item)
                if key not in kept_now:  # copies of one program share one entry
                    kept_now.add(key)
                    store.save(key, result)
        results[number] = result
        if journal is not None:
            journal.save(item.key, result)
        if on_result:
            on_result(result)

    todo = [n for n in range(len(pending)) if n not in results]
    for number in todo:  # the static reading, now, while the fork server imports TensorFlow (the rest later)
        item = pending[number]
        if time.monotonic() > prework_until:
            break
        if item.assignment in ASSIGNMENT_IDS and item.source.problem is None:
            item.static = {e.id: static_checks.analyze(item.source, e.id)
                           for e in assignment_by_id(item.assignment).exercises}
    needed = sorted({pending[n].assignment for n in todo if pending[n].assignment})
    assignments = {assignment_id: assignment_by_id(assignment_id) for assignment_id in needed}
    cases = {a_id: {e.id: e.cases(settings.seed) for e in a.exercises} for a_id, a in assignments.items()}
    runs: list[SubmissionRun] = []
    references: dict[str, Reference] = {}
    done_references: set[str] = set()
    reference_keys: dict[str, str] = {}
    solutions = settings.solutions_dir() if needed else None
    cache = settings.cache if settings.cache is not None and settings.cache.prepare() else None
    store = ResultStore.inside(cache) if cache is not None else None
    reference_runs: dict[str, SubmissionRun] = {}
    for assignment_id, assignment in assignments.items():
        notebook = solutions / assignment_id / f"{assignment_id}.ipynb"
        source = read_submission(notebook)
        if source.problem:
            raise SetupError(f"the reference solution {notebook} cannot be read: {source.problem}")
        tasks = reference_tasks(assignment, cases[assignment_id])
        references[assignment_id] = Reference(assignment, cases[assignment_id], tasks, RunRecord())
        if cache is not None:
            reference_keys[assignment_id] = reference_key(notebook.read_bytes(), assignment_id, settings.seed)
            kept = cache.load(reference_keys[assignment_id], tasks)
            if kept is not None and _runs_cleanly(Reference(assignment, cases[assignment_id], tasks, kept)):
                references[assignment_id].record = kept
                done_references.add(assignment_id)
                continue
        reference_runs[assignment_id] = make_run(("reference", assignment_id), source, assignment,
                                                 cases[assignment_id], tasks, REFERENCE_LIMITS, reference=True,
                                                 seed=settings.seed)
    hidden = hidden_paths([p.found.path for p in pending], solutions,
                          extra=(cache.folder,) if cache is not None else ())
    waiting: dict[str, list[tuple[int, RunRecord]]] = {a_id: [] for a_id in assignments}  # for their reference
    copies: dict[int, list[int]] = {}  # the submission that runs -> the ones with the same program, sharing its run
    first_of: dict[tuple[str, str], int] = {}
    students: list[SubmissionRun] = []
    for number in todo:
        item = pending[number]
        if item.assignment and item.source.problem is None:
            if settings.reuse_results and store is not None:
                kept = store.load(kept_key(item))
                if kept is not None and kept.assignment == item.assignment:
                    finish(number, None, kept)
                    continue
            if settings.dedupe:
                same = first_of.setdefault((item.program, item.assignment), number)
                if same != number:
                    copies[same].append(number)
                    continue
                copies[number] = []
            assignment = assignments[item.assignment]
            students.append(make_run(("student", number), item.source, assignment, cases[item.assignment],
                                     student_tasks(assignment, cases[item.assignment]), settings.limits,
                                     hidden=hidden, seed=settings.seed))
        else:
            finish(number, None)  # unreadable, or of no known assignment: nothing to run
    # Longest first (the references are already in front): the last ones to finish are then short, and no
    # worker waits long for another at the end. The order changes when results come, never what they are.
    cost = {a_id: _expected_seconds(references[a_id]) for a_id in assignments}
    # A reference runs when a submission of its assignment will (references first: students wait for them).
    runs += [run for a_id, run in reference_runs.items() if any(s.job.assignment == a_id for s in students)]
    runs += sorted(students, key=lambda run: -cost[run.job.assignment])

    def finish_all(number: int, record: RunRecord) -> None:
        for each in [number, *copies.get(number, [])]:
            finish(each, record)

    for run in run_all(runs, jobs=settings.jobs):
        kind, key = run.key
        if kind == "reference":
            references[key].record = run.record
            _check_reference(references[key])
            if cache is not None:
                cache.save(reference_keys[key], references[key].tasks, run.record)
            done_references.add(key)
            for number, record in waiting.pop(key, []):
                finish_all(number, record)
        elif pending[key].assignment in done_references:
            finish_all(key, run.record)
        else:
            waiting[pending[key].assignment].append((key, run.record))
    if store is not None and kept_now:
        store.trim()
    return [results[number] for number in range(len(pending))]


def _expected_seconds(reference: Reference) -> float:
    """About how long a submission of this assignment takes: the reference's own time on the students' tasks
    when it is known (kept from an earlier run), else 50 ms a task."""
    outcomes = [reference.record.outcomes.get(n) for n, task in enumerate(reference.tasks)
                if task.implementation == STUDENT]
    if outcomes and all(outcome is not None for outcome in outcomes):
        return sum(outcome.seconds for outcome in outcomes)
    return 0.05 * len(outcomes)


def _content(item: Found) -> bytes:
    try:
        return item.path.read_bytes()
    except OSError:
        return b""


def hidden_paths(submissions: list[Path], solutions: Path | None, extra: Iterable[Path] = ()) -> tuple[str, ...]:
    """What a student's child must not see: the reference solutions, every submission, and ``extra``
    (the reference cache, which holds the reference's answers).

    A directory is covered whole unless it holds code the child still needs (the grader
    itself, Python's libraries); then its submission files are covered one by one.
    """
    needed = [Path(__file__).resolve().parent, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
              *(Path(p).resolve() for p in sys.path if p),
              # the child's fresh scratch folders hold its working directory: never cover them whole
              *(Path(folder) for folder in SCRATCH_FOLDERS)]
    hidden: set[Path] = set()
    if solutions is not None:
        hidden.add(solutions.resolve())
    for path in (Path(p).resolve() for p in extra):
        if not any(n == path or path in n.parents for n in needed):  # else its owner-only mode protects it
            hidden.add(path)
    for path in submissions:
        path = path.resolve()
        folder = path.parent
        if any(folder == n or folder in n.parents for n in needed):
            hidden.add(path)
        else:
            hidden.add(folder)
    # Covering a folder covers what is below it: keep only the outermost paths.
    outermost = [p for p in hidden if not any(q != p and q in p.parents for q in hidden)]
    return tuple(str(p) for p in sorted(outermost))


def _runs_cleanly(reference: Reference) -> bool:
    try:
        _check_reference(reference)
        return True
    except SetupError:
        return False


def _check_reference(reference: Reference) -> None:
    """The reference must run cleanly; if not, every grade of the run would be wrong."""
    problems = list(reference.record.problems)
    problems += [f"cell {cell}: {error.type}: {error.message}" for cell, error in reference.record.load_errors]
    for number, task in enumerate(reference.tasks):
        outcome = reference.record.outcomes.get(number)
        if task.implementation == STUDENT and (outcome is None or outcome.status != "ok"):
            detail = outcome.error.message if outcome and outcome.error else (outcome.message if outcome else "")
            problems.append(f"{task.exercise} case {task.case_index}: {outcome.status if outcome else 'missing'} "
                            f"{detail}")
    if problems:
        raise SetupError(f"the reference solution of {reference.assignment.id} does not run cleanly: "
                         + "; ".join(problems[:5]))


def _result_for(item: Pending, record: RunRecord | None, references: dict[str, Reference]) -> SubmissionResult:
    student = student_name(item.found.path)
    if item.assignment is None:
        return SubmissionResult(item.found.shown_as, student, "unknown", [],
                                notes=["cannot tell which assignment this is: pass --assignment ID"])
    reference = references[item.assignment]
    assignment = reference.assignment
    if item.source.problem or record is None:
        return unreadable_result(item.found.shown_as, student, assignment, item.source.problem or "not graded")
    exercises: list[ExerciseResult] = []
    tasks = student_tasks(assignment, reference.cases)
    for exercise in assignment.exercises:
        outcomes = [record.outcomes.get(number) for number, task in enumerate(tasks) if task.exercise == exercise.id]
        evidence = ExerciseEvidence(
            exercise=exercise,
            cases=reference.cases[exercise.id],
            student=outcomes,
            reference=[reference.outcome(exercise.id, i) for i in range(len(reference.cases[exercise.id]))],
            mistakes=[[reference.outcome(exercise.id, i, f"mistake:{k}")
                       for i in range(len(reference.cases[exercise.id]))] for k in range(len(exercise.mistakes))],
            static=item.static[exercise.id] if exercise.id in item.static else static_checks.analyze(item.source,
                                                                                                   exercise.id),
            defined=record.defined.get(exercise.id),
            load_errors=record.load_errors,
            source=item.source,
            problems=record.problems,
        )
        exercises.append(evaluate_exercise(evidence))
    notes = list(record.problems)
    notes += [f"{item.source.where(cell, None) or 'the file'} raised {error.type}: {error.message.splitlines()[0] if error.message else ''}"
              for cell, error in record.load_errors]
    return SubmissionResult(item.found.shown_as, student, assignment.id, exercises, seconds=record.seconds,
                            notes=notes)
