"""Turn one exercise's evidence into a score, a status, pitfalls and feedback.

Evidence is plain data: the student's and the reference's outcomes per case,
the mistake models' outcomes, and what the static reading found. A pitfall is
named only when the numbers say something is wrong (static evidence alone
never costs points, except a missing ``@tf.custom_gradient``), so a correct
solution written differently is never accused.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from autograder.compare import Comparison, compare, matches
from autograder.loader import SubmissionSource
from autograder.pitfalls import describe
from autograder.results import ExerciseResult, SubmissionResult
from autograder.sandbox import ErrorInfo, TaskOutcome
from autograder.spec import Assignment, Case, Exercise

NO_CUSTOM_GRADIENT_CAP = 0.5  # share of the points kept when the numbers are right but the goal is missed
MAX_CASE_MESSAGES = 2
_PFOR_ERROR = re.compile(r"pfor|vectoriz", re.IGNORECASE)
_PERSISTENT_ERROR = re.compile(r"non-persistent|persistent=True", re.IGNORECASE)


@dataclass
class ExerciseEvidence:
    exercise: Exercise
    cases: list[Case]
    student: list[TaskOutcome | None]
    reference: list[TaskOutcome | None]
    mistakes: list[list[TaskOutcome | None]]  # [mistake k][case i]
    static: object  # static_checks.FunctionReport
    defined: list[str] | str | None  # parameters, or why it is not a function, or None when missing
    load_errors: list[tuple[int, ErrorInfo]]
    source: SubmissionSource
    problems: list[str] = field(default_factory=list)  # what stopped the submission while loading


@dataclass
class CaseVerdict:
    case: Case
    passed: bool
    kind: str  # "ok" | "wrong" | "error" | "not-implemented" | "timeout" | "memory" | "crashed" | "not-run"
    message: str = ""
    failed_outputs: tuple[str, ...] = ()


def unreadable_result(shown_as: str, student: str, assignment: Assignment, problem: str) -> SubmissionResult:
    feedback = f"The submission could not be read: {problem}. Nothing in it was graded."
    return SubmissionResult(shown_as, student, assignment.id, [
        ExerciseResult(e.id, 0.0, e.points, "error", [], feedback) for e in assignment.exercises], notes=[problem])


# --------------------------------------------------------------------------- per case

def judge_case(exercise: Exercise, case: Case, student: TaskOutcome | None, reference: TaskOutcome | None) -> CaseVerdict:
    if student is None or student.status == "not-run":
        return CaseVerdict(case, False, "not-run", student.message if student else "not run")
    if student.status in ("timeout", "memory", "crashed"):
        return CaseVerdict(case, False, student.status, student.message)  # the sandbox's words
    if student.status == "error":
        error = student.error
        if error.type == "NotImplementedError":
            return CaseVerdict(case, False, "not-implemented", "raises NotImplementedError")
        if error.contract:
            return CaseVerdict(case, False, "error", error.message)
        return CaseVerdict(case, False, "error", f"raised {_describe(error)}")
    failures = []
    failed = []
    rtol, atol = exercise.tolerance(case)
    for output in exercise.outputs:
        if output.name not in reference.outputs:
            continue
        obtained = student.outputs.get(output.name)
        if obtained is None:
            failures.append(f"{output.label} is missing")
            failed.append(output.name)
            continue
        verdict: Comparison = compare(obtained, reference.outputs[output.name], output, rtol, atol,
                                      reveal=case.public)
        if not verdict:
            failures.append(verdict.message)
            failed.append(output.name)
    if failures:
        return CaseVerdict(case, False, "wrong", "\n".join(failures), tuple(failed))
    return CaseVerdict(case, True, "ok")


# --------------------------------------------------------------------------- per exercise

def evaluate_exercise(evidence: ExerciseEvidence) -> ExerciseResult:
    exercise = evidence.exercise
    if evidence.defined is None:
        return ExerciseResult(exercise.id, 0.0, exercise.points, "missing", [], _missing_feedback(evidence),
                              0, len(evidence.cases))
    if isinstance(evidence.defined, str):
        return ExerciseResult(exercise.id, 0.0, exercise.points, "error", [],
                              f"`{exercise.id}` is {evidence.defined}; define it with "
                              f"`def {exercise.id}({', '.join(exercise.params)}):`", 0, len(evidence.cases))
    verdicts = [judge_case(exercise, case, student, reference)
                for case, student, reference in zip(evidence.cases, evidence.student, evidence.reference)]
    total_weight = sum(v.case.weight for v in verdicts)
    passed_weight = sum(v.case.weight for v in verdicts if v.passed)
    score = exercise.points * passed_weight / total_weight if total_weight else 0.0
    pitfalls, explanations = _diagnose(evidence, verdicts)
    if "no-custom-gradient" in pitfalls:
        score = min(score, exercise.points * NO_CUSTOM_GRADIENT_CAP)
    status = _status(verdicts, score, exercise.points)
    if status == "not-implemented":
        pitfalls, explanations = ["not-implemented"], []
    elif status not in ("passed",) and not pitfalls and any(v.kind == "wrong" for v in verdicts):
        pitfalls = ["wrong-value"]
    feedback = _feedback(evidence, verdicts, status, pitfalls, explanations, score)
    return ExerciseResult(exercise.id, round(score, 4), exercise.points, status, pitfalls, feedback,
                          sum(v.passed for v in verdicts), len(verdicts))


def _status(verdicts: list[CaseVerdict], score: float, points: float) -> str:
    if all(v.passed for v in verdicts):
        return "passed" if score >= points - 1e-9 else "partial"
    if any(v.passed for v in verdicts):
        return "partial"
    kinds = {v.kind for v in verdicts}
    if kinds <= {"not-implemented", "not-run"} and "not-implemented" in kinds:
        return "not-implemented"
    if kinds <= {"timeout", "not-run"}:
        return "timeout"
    if kinds <= {"error", "crashed", "memory", "not-run", "not-implemented"}:
        return "error"
    return "failed"


@dataclass
class Explanation:
    pitfall: str
    text: str  # what happened, specific to this submission
    fix: str
    where: str = ""  # "cell 7, line 4: `code`"


def _diagnose(evidence: ExerciseEvidence, verdicts: list[CaseVerdict]) -> tuple[list[str], list[Explanation]]:
    exercise = evidence.exercise
    found: dict[str, Explanation] = {}

    def name(pitfall: str, text: str | None = None, fix: str | None = None, where: str = "") -> None:
        if pitfall not in found:
            default = describe(pitfall)
            found[pitfall] = Explanation(pitfall, text or default.what,
                                         fix or exercise.hints.get(pitfall, default.fix), where)

    failing = [v for v in verdicts if not v.passed]
    static = evidence.static
    findings = list(getattr(static, "findings", ()))

    def located(pitfall: str) -> str:
        """'cell 7, line 4: `code`: what the static reading saw there', or '' when it saw nothing."""
        # tf.stop_gradient is often intended (targets, straight-through): point at other cuts first.
        for finding in sorted(findings, key=lambda f: "stop_gradient" in f.code):
            if finding.pitfall == pitfall:
                place = evidence.source.where(finding.cell, finding.line)
                code = f": `{finding.code}`" if finding.code else ""
                return f"{place}{code}\n    {finding.message}" if finding.message else f"{place}{code}"
        return ""

    errors = [evidence.student[verdicts.index(v)].error for v in failing if v.kind == "error"
              and evidence.student[verdicts.index(v)] is not None and evidence.student[verdicts.index(v)].error]
    # 1. errors with a recognisable cause
    if any(_PERSISTENT_ERROR.search(e.message) for e in errors):
        name("non-persistent-tape", where=located("non-persistent-tape"))
    pfor_failures = [v for v in failing if v.case.has("pfor")]
    if pfor_failures and all(v.kind == "error" for v in pfor_failures) and any(
            _PFOR_ERROR.search(evidence.student[verdicts.index(v)].error.message) for v in pfor_failures
            if evidence.student[verdicts.index(v)].error) and all(v.case.has("pfor") for v in failing):
        name("pfor-unsupported")
    # 2. right for small inputs, out of time or memory at scale
    scale = [v for v in verdicts if v.case.has("scale")]
    if exercise.materialized_pitfall and scale and all(v.kind in ("timeout", "memory", "crashed") for v in scale) \
            and any(v.passed for v in verdicts if not v.case.has("scale")):
        name(exercise.materialized_pitfall)
    # 3. mistake models: the student's numbers match a known-wrong implementation
    wrong = [v for v in failing if v.kind == "wrong"]
    for k, mistake in enumerate(exercise.mistakes):
        # On every case the student got wrong, the student's numbers must be exactly the mistake's, and
        # at least one of those cases must tell the mistake from the reference (on the others the
        # mistake is right, so matching it there says nothing).
        covered = [v for v in wrong if evidence.mistakes[k][verdicts.index(v)] is not None]
        if (covered and all(_matches_mistake(evidence, verdicts.index(v), k) for v in covered)
                and any(_informative(evidence, verdicts.index(v), k) for v in covered)):
            if (mistake.pitfall == "tape-outside-context" and not located("tape-outside-context")
                    and located("gradient-cut")):
                # A term that never reaches the tape looks the same in numbers whether it was computed
                # outside the tape or cut by .numpy() inside it; the source tells which.
                name("gradient-cut", where=located("gradient-cut"))
                continue
            name(mistake.pitfall, text=mistake.explanation, fix=mistake.fix, where=located(mistake.pitfall))
    # 4. None (or an error on the None) for Tensors, right for the same data as Variables
    twins = _variable_twins(verdicts)
    if twins and all(not tensor.passed and variable.passed for tensor, variable in twins) and all(
            (tensor.kind == "wrong" and _has_none_gradient(evidence, tensor)) or tensor.kind == "error"
            for tensor, _ in twins):
        name("unwatched-tensor")
    # 5. wrong only at large magnitudes: overflow
    if wrong and all(v.case.has("large") for v in failing):
        outputs = {name_ for v in wrong for name_ in v.failed_outputs}
        gradient_names = {o.name for o in exercise.outputs if o.gradient}
        if outputs - gradient_names:
            name("unstable-value")
        if outputs & gradient_names:
            name("unstable-gradient")
    # 6. a gradient that does not flow: static evidence says where and why
    if any(_has_none_gradient(evidence, v) or _has_zero_gradient(evidence, v) for v in wrong) and not (
            found.keys() & {"unwatched-tensor", "no-gradient", "missing-stop-gradient"}):
        if located("tape-outside-context"):
            name("tape-outside-context", where=located("tape-outside-context"))
        elif located("gradient-cut") and not _only_stop_gradient_expected(exercise, findings):
            name("gradient-cut", where=located("gradient-cut"))
    # a term silently missing (wrong numbers, not None) that static reading explains
    if wrong and located("tape-outside-context") and "tape-outside-context" not in found and not found:
        name("tape-outside-context", where=located("tape-outside-context"))
    # 7. the learning goal
    if exercise.requires_custom_gradient and static is not None and getattr(static, "defined", False) \
            and not static.uses_custom_gradient:
        name("no-custom-gradient")
    order = list(found)
    return order, [found[p] for p in order]


def _variable_twins(verdicts: list[CaseVerdict]) -> list[tuple[CaseVerdict, CaseVerdict]]:
    """(Tensor case, Variable case) pairs on the same data: they tell a missing tape.watch."""
    variables = [v for v in verdicts if v.case.has("variable")]
    pairs = []
    for tensor in (v for v in verdicts if v.case.has("tensor")):
        twin = next((v for v in variables if _same_data(tensor.case.args, v.case.args)), None)
        if twin is not None:
            pairs.append((tensor, twin))
    return pairs


def _same_data(a, b) -> bool:
    keys = (set(a) | set(b)) - {"variable"}
    try:
        return all(np.array_equal(np.asarray(a.get(k), dtype=object), np.asarray(b.get(k), dtype=object))
                   for k in keys)
    except (TypeError, ValueError):
        return False


def _only_stop_gradient_expected(exercise: Exercise, findings) -> bool:
    """For td_loss, tf.stop_gradient is the point; only other cuts count as evidence there."""
    cuts = [f for f in findings if f.pitfall == "gradient-cut"]
    return exercise.id == "td_loss" and all("stop_gradient" in f.code for f in cuts)


def _student_outputs(evidence: ExerciseEvidence, index: int):
    outcome = evidence.student[index]
    return outcome.outputs if outcome and outcome.outputs else {}


def _has_none_gradient(evidence: ExerciseEvidence, verdict: CaseVerdict) -> bool:
    index = evidence.cases.index(verdict.case)
    outputs = _student_outputs(evidence, index)
    reference = evidence.reference[index].outputs
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and outputs[output.name].is_none and not reference[output.name].is_none
               for output in evidence.exercise.outputs)


def _has_zero_gradient(evidence: ExerciseEvidence, verdict: CaseVerdict) -> bool:
    index = evidence.cases.index(verdict.case)
    outputs = _student_outputs(evidence, index)
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and not outputs[output.name].is_none and not np.any(outputs[output.name].array)
               for output in evidence.exercise.outputs)


def _matches_mistake(evidence: ExerciseEvidence, index: int, k: int) -> bool:
    """The student's outputs on case ``index`` are those of mistake model ``k``."""
    return _agree(evidence, index, evidence.student[index], evidence.mistakes[k][index],
                  evidence.exercise.mistakes[k].outputs)


def _informative(evidence: ExerciseEvidence, index: int, k: int) -> bool:
    """Mistake model ``k`` gives other numbers than the reference on case ``index``: the case can tell it."""
    mistake = evidence.mistakes[k][index]
    return (mistake is not None and mistake.status == "ok"
            and not _agree(evidence, index, mistake, evidence.reference[index], evidence.exercise.mistakes[k].outputs))


def _agree(evidence: ExerciseEvidence, index: int, first: TaskOutcome | None, second: TaskOutcome | None,
           compared: tuple[str, ...] | None) -> bool:
    if first is None or second is None or first.status != "ok" or second.status != "ok":
        return False
    case = evidence.cases[index]
    rtol, atol = evidence.exercise.tolerance(case)
    for output in evidence.exercise.outputs:
        if compared is not None and output.name not in compared:
            continue
        mine, theirs = first.outputs.get(output.name), second.outputs.get(output.name)
        if mine is None and theirs is None:
            continue
        if mine is None or theirs is None:
            return False
        if output.none_means_zero and (mine.is_none or theirs.is_none):
            if not compare(mine, theirs, output, rtol, atol).ok:
                return False
        elif not matches(mine, theirs, output, rtol, atol):
            return False
    return True


# --------------------------------------------------------------------------- feedback

def _missing_feedback(evidence: ExerciseEvidence) -> str:
    exercise = evidence.exercise
    signature = f"def {exercise.id}({', '.join(exercise.params)}):"
    pattern = re.compile(rf"^\s*def\s+{re.escape(exercise.id)}\s*\(", re.MULTILINE)
    for cell, error in evidence.load_errors:
        source_cell = evidence.source.cell(cell)
        if source_cell is not None and pattern.search(source_cell.code):
            where = evidence.source.where(cell, None) or "the file"
            return (f"`{exercise.id}` is not defined: {where}, which defines it, raised {_describe(error)}. "
                    "Fix that error and run the cell again.")
    if evidence.problems:
        return (f"`{exercise.id}` is not defined: the submission did not load completely "
                f"({'; '.join(evidence.problems)}). Make every cell run to its end, quickly, without exiting.")
    return (f"`{exercise.id}` is not defined. Keep the function with this exact name and signature: "
            f"`{signature}`")


def _describe(error: ErrorInfo) -> str:
    """'ValueError (cell 3, line 2): the first line of its message' (no colon when there is no message)."""
    where = f" ({error.where})" if error.where else ""
    message = error.message.strip().splitlines()[0][:300] if error.message.strip() else ""
    return f"{error.type}{where}: {message}" if message else f"{error.type}{where}"


def _feedback(evidence: ExerciseEvidence, verdicts: list[CaseVerdict], status: str, pitfalls: list[str],
              explanations: list[Explanation], score: float) -> str:
    exercise = evidence.exercise
    passed = sum(v.passed for v in verdicts)
    lines = []
    if status == "passed":
        lines.append(f"All {len(verdicts)} cases passed.")
    elif status == "not-implemented":
        return (f"`{exercise.id}` still raises NotImplementedError: replace `raise NotImplementedError()` "
                f"with your implementation.")
    else:
        lines.append(f"{passed} of {len(verdicts)} cases passed.")
    if isinstance(evidence.defined, list) and evidence.defined != list(exercise.params):
        lines.append(f"`{exercise.id}` takes ({', '.join(evidence.defined)}) but the exercise asks for "
                     f"`{exercise.id}({', '.join(exercise.params)})`.")
    for explanation in explanations:
        lines.append(f"[{explanation.pitfall}] {explanation.text[0].upper()}{explanation.text[1:]}.")
        if explanation.where:
            lines.append(f"  Where: {explanation.where}")
        lines.append(f"  Fix: {explanation.fix}.")
    shown = 0
    for verdict in verdicts:
        if verdict.passed or shown >= MAX_CASE_MESSAGES:
            continue
        if verdict.kind == "not-run" and shown:
            continue
        shown += 1
        message = verdict.message.replace("\n", "\n    ")
        label = (f"Case {verdict.case.description}" if verdict.case.public
                 else f"Hidden case {verdict.case.description} (its values are not shown)")
        lines.append(f"{label}:\n    {message}")
    hidden = len([v for v in verdicts if not v.passed]) - shown
    if hidden > 0:
        lines.append(f"({hidden} more failing case{'s' if hidden > 1 else ''} not shown)")
    return "\n".join(lines)
