"""One exercise's evidence -> its ``ExerciseResult``: score, status, pitfalls, explanations, cases shown.

The evidence (``judge.evidence``) is plain data; the grader's pipeline and the students' self-check build it
the same way and call ``evaluate_exercise``; the writers render what it returns.
"""
from __future__ import annotations

import re
from dataclasses import replace

from autograder.judge.cases import CaseVerdict, Verdict, describe_error, judge_case
from autograder.judge.causes import failing_callee, not_implemented_callee
from autograder.judge.diagnose import run_rules
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.hidden import blinded, kind_of
from autograder.judge.pointing import pointed
from autograder.model.course import ADVISORY, DIAGNOSTIC, Assignment
from autograder.model.results import Advice, CaseReport, ExerciseResult, Status, SubmissionResult

# Share of the points kept when the numbers are right but the exercise's learning goal is missed: no
# @tf.custom_gradient where the exercise is about writing one, or a method output wrong (Output.method: the
# model run once per example where the exercise asks for one run on the whole batch).
METHOD_CAP = 0.5
# Why the points are capped, as the line that shows them says it (by the pitfall that caps them)
CAP_REASONS = {"no-custom-gradient": "no `@tf.custom_gradient`", "per-example-loop": "the model runs once per example",
               "": "right numbers by another method than the exercise's"}
MAX_CASE_MESSAGES = 2


def unreadable_result(shown_as: str, student: str, assignment: Assignment, problem: str) -> SubmissionResult:
    summary = f"The submission could not be read: {problem}. Nothing in it was graded."
    return SubmissionResult(shown_as, student, assignment.id, [
        ExerciseResult(e.id, 0.0, e.points, Status.ERROR, [], summary) for e in assignment.exercises], notes=[problem])


def evaluate_exercises(evidences: list[ExerciseEvidence]) -> list[ExerciseResult]:
    """Every exercise of a submission. One that fails and calls another of the student's exercises is judged
    again knowing how that one did, so that its feedback can name it as the cause."""
    first = {evidence.exercise.id: evaluate_exercise(evidence) for evidence in evidences}
    results = []
    for evidence in evidences:
        own = first[evidence.exercise.id]
        called = {r.name for r in getattr(evidence.static, "reaches", ())} & set(first) - {evidence.exercise.id}
        if own.status != Status.PASSED and any(first[name].status != Status.PASSED for name in called):
            own = evaluate_exercise(replace(evidence, others={name: first[name] for name in called}))
        results.append(own)
    return results


def evaluate_exercise(evidence: ExerciseEvidence) -> ExerciseResult:
    exercise = evidence.exercise
    total = len(evidence.cases)
    if evidence.defined is None:
        return ExerciseResult(exercise.id, 0.0, exercise.points, Status.MISSING, [], _missing_summary(evidence),
                              cases_total=total)
    if isinstance(evidence.defined, str):
        return ExerciseResult(exercise.id, 0.0, exercise.points, Status.ERROR, [],
                              f"`{exercise.id}` is {evidence.defined}; define it with "
                              f"`def {exercise.id}({', '.join(exercise.params)}):`", cases_total=total)
    every = _judged(evidence)
    # From here on, a hidden case's outcome is read blinded: its kind and numbers, never its error's words.
    evidence = replace(evidence, student=[blinded(case, outcome)
                                          for case, outcome in zip(evidence.cases, evidence.student)])
    verdicts = [v for v in every if v.case.graded]  # only these earn (or cost) points
    total_weight = sum(v.case.weight for v in verdicts)
    method = {output.name for output in exercise.outputs if output.method}
    method_missed = any(v.kind == Verdict.WRONG and set(v.failed_outputs) & method for v in verdicts)
    # A case whose numbers are right and whose only fault is the method keeps its points (then capped below).
    earned = sum(v.case.weight for v in verdicts if v.passed or (
        v.kind == Verdict.WRONG and v.failed_outputs and set(v.failed_outputs) <= method))
    score = exercise.points * earned / total_weight if total_weight else 0.0
    # Diagnostic cases tell mistakes apart, once a graded case failed (before, the grader skips them: they
    # cannot matter, ``judge.plan``); advisory ones only give advice, never a pitfall.
    failed = not all(v.passed for v in verdicts)
    judged = [v for v in every if v.case.graded or (v.case.kind == DIAGNOSTIC and failed)]
    diagnosis = run_rules(evidence, judged)
    explanations = pointed(diagnosis)
    cause = failing_callee(evidence, judged, diagnosis.through, explanations)
    if cause is not None:  # another of the student's exercises fails, and this one with it: say that one
        explanations = cause.explanations
    pitfalls = [e.pitfall for e in explanations]
    cap = ""
    if ("no-custom-gradient" in pitfalls or method_missed) and score > exercise.points * METHOD_CAP:
        score = exercise.points * METHOD_CAP
        reason = next((CAP_REASONS[p] for p in pitfalls if p in CAP_REASONS), CAP_REASONS[""])
        cap = f"capped at half: {reason}"
    kinds = _status_kinds(verdicts, evidence)
    status = _status(verdicts, kinds, score, exercise.points)
    passed = sum(v.passed for v in verdicts)
    result = ExerciseResult(exercise.id, round(score, 4), exercise.points, status, cases_passed=passed,
                            cases_total=len(verdicts), cap=cap)
    if status == Status.NOT_IMPLEMENTED:
        result.pitfalls = ["not-implemented"]
        result.summary = (f"`{exercise.id}` still raises NotImplementedError: replace `raise NotImplementedError()` "
                          "with your implementation.")
        stub = not_implemented_callee(evidence)
        if stub is not None:
            result.summary = (f"`{exercise.id}` calls your `{stub}`, which still raises NotImplementedError: "
                              f"implement `{stub}` first.")
        return result
    if status != Status.PASSED and not pitfalls and Verdict.WRONG in kinds:
        pitfalls = ["wrong-value"]
    result.pitfalls = pitfalls
    result.explanations = explanations
    result.summary = (f"All {len(verdicts)} cases passed." if status == Status.PASSED
                      else f"{passed} of {len(verdicts)} cases passed.")
    if cause is not None and cause.note:
        result.notes.append(cause.note)
    if method_missed:
        by_method = sum(1 for v in verdicts if not v.passed and v.kind == Verdict.WRONG and v.failed_outputs
                        and set(v.failed_outputs) <= method)
        result.summary = (f"{passed} of {len(verdicts)} cases passed; {by_method} more "
                          f"{'have' if by_method != 1 else 'has'} the right numbers by another method than the one "
                          "the exercise asks for: those keep their points, and the exercise is capped at half of "
                          f"its points ({exercise.points * METHOD_CAP:g} of {exercise.points:g}).")
    if evidence.defined != list(exercise.params):
        result.notes.append(f"`{exercise.id}` takes ({', '.join(evidence.defined)}) but the exercise asks for "
                            f"`{exercise.id}({', '.join(exercise.params)})`.")
    result.cases, result.more_failing = _cases_shown(verdicts)
    # Advice once the graded cases pass: before that, an advisory case mostly fails for the same mistake.
    if all(v.passed for v in verdicts):
        result.advice = [Advice(v.case.id, v.case.description, v.case.advice, v.message)
                         for v in every if v.case.kind == ADVISORY and not v.passed and v.kind != Verdict.NOT_RUN]
    return result


def _judged(evidence: ExerciseEvidence) -> list[CaseVerdict]:
    """Every case's verdict: the public ones first, so that a failed hidden graded case can say whether one of
    them fails the same way (their outcomes exist before any hidden case does: ``run.handing``)."""
    exercise, triples = evidence.exercise, list(zip(evidence.cases, evidence.student, evidence.reference))
    public = {case.id: judge_case(exercise, case, student, reference)
              for case, student, reference in triples if case.public}
    kinds = frozenset(kind_of(verdict, student) for (case, student, _) in triples
                      for verdict in [public.get(case.id)] if verdict is not None and not verdict.passed)
    return [public[case.id] if case.public else judge_case(exercise, case, student, reference, kinds)
            for case, student, reference in triples]


# What a failed hidden case counts as for the exercise's status: its kind (judge.hidden), never how its code failed.
_KIND_VERDICT = {"values": Verdict.WRONG, "shape": Verdict.WRONG, "none": Verdict.WRONG, "error": Verdict.ERROR,
                 "memory": Verdict.MEMORY, "timeout": Verdict.TIMEOUT, "not-run": Verdict.NOT_RUN}


def _status_kinds(verdicts: list[CaseVerdict], evidence: ExerciseEvidence) -> set[Verdict]:
    """The failed graded cases' verdicts as the status reads them: a public case's own; a hidden case's from its
    kind, an error counting as the stub's when every public case raises NotImplementedError (the stub)."""
    public = [v.kind for v in verdicts if v.case.public]
    stub = bool(public) and all(kind == Verdict.NOT_IMPLEMENTED for kind in public)
    position = {case.id: n for n, case in enumerate(evidence.cases)}
    kinds = set()
    for verdict in verdicts:
        if verdict.passed:
            continue
        if verdict.case.public:
            kinds.add(verdict.kind)
            continue
        student = evidence.student[position[verdict.case.id]]
        kind = _KIND_VERDICT[kind_of(verdict, student)]
        kinds.add(Verdict.NOT_IMPLEMENTED if stub and kind == Verdict.ERROR else kind)
    return kinds


def _status(verdicts: list[CaseVerdict], kinds: set[Verdict], score: float, points: float) -> Status:
    if all(v.passed for v in verdicts):
        return Status.PASSED if score >= points - 1e-9 else Status.PARTIAL
    if any(v.passed for v in verdicts) or score > 0:
        return Status.PARTIAL
    if kinds <= {Verdict.NOT_IMPLEMENTED, Verdict.NOT_RUN} and Verdict.NOT_IMPLEMENTED in kinds:
        return Status.NOT_IMPLEMENTED
    if kinds <= {Verdict.TIMEOUT, Verdict.NOT_RUN}:
        return Status.TIMEOUT
    if kinds <= {Verdict.ERROR, Verdict.CRASHED, Verdict.MEMORY, Verdict.NOT_RUN, Verdict.NOT_IMPLEMENTED}:
        return Status.ERROR
    return Status.FAILED


def _cases_shown(verdicts: list[CaseVerdict]) -> tuple[list[CaseReport], int]:
    """The first failing cases, public ones first (a hidden case's message points at the public one above it
    that fails the same way), a 'not run' only when nothing else is shown; and how many more failed."""
    shown: list[CaseReport] = []
    for verdict in sorted(verdicts, key=lambda v: not v.case.public):
        if verdict.passed or len(shown) >= MAX_CASE_MESSAGES:
            continue
        if verdict.kind == Verdict.NOT_RUN and shown:
            continue
        shown.append(CaseReport(verdict.case.id, verdict.case.description, verdict.case.public, verdict.message))
    return shown, len([v for v in verdicts if not v.passed]) - len(shown)


def _missing_summary(evidence: ExerciseEvidence) -> str:
    exercise = evidence.exercise
    signature = f"def {exercise.id}({', '.join(exercise.params)}):"
    pattern = re.compile(rf"^\s*def\s+{re.escape(exercise.id)}\s*\(", re.MULTILINE)
    for cell, error in evidence.load_errors:
        source_cell = evidence.source.cell(cell)
        if source_cell is not None and pattern.search(source_cell.code):
            where = evidence.source.where(cell, None) or "the file"
            return (f"`{exercise.id}` is not defined: {where}, which defines it, raised {describe_error(error)}. "
                    "Fix that error and run the cell again.")
    if evidence.problems:
        return (f"`{exercise.id}` is not defined: the submission did not load completely "
                f"({'; '.join(evidence.problems)}). Make every cell run to its end, quickly, without exiting.")
    return (f"`{exercise.id}` is not defined. Keep the function with this exact name and signature: "
            f"`{signature}`")
