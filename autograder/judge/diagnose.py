"""The rules that name a pitfall: from the verdicts, the mistake models' numbers and the static reading.

A pitfall is named only when the numbers say something is wrong (static evidence alone never costs points,
except a missing ``@tf.custom_gradient``), so a correct solution written differently is never accused.
Each rule is a short function over the evidence; ``diagnose`` applies them in order and the first
explanation of a pitfall wins.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from autograder.judge.cases import STOPPED, CaseVerdict, Verdict, headline
from autograder.judge.compare import compare, matches
from autograder.judge.where import where_of
from autograder.model.course import Case, Exercise
from autograder.model.outcomes import RunStatus, TaskOutcome
from autograder.model.pitfalls import describe
from autograder.model.results import Explanation, Where

if TYPE_CHECKING:
    from autograder.judge.evaluate import ExerciseEvidence

_PFOR_ERROR = re.compile(r"pfor|vectoriz", re.IGNORECASE)
_PERSISTENT_ERROR = re.compile(r"non-persistent|persistent=True", re.IGNORECASE)
_RANK_ERROR = re.compile(r"rank >= 2|must be rank 2|must be at least rank|have rank 2|Expected rank 2", re.IGNORECASE)
# What TensorFlow and Python say when an operation meets a None where a tensor should be (a gradient that
# did not flow): "Attempt to convert a value (None)", "None values not supported", "'NoneType' object ..."
_NONE_ERROR = re.compile(r"\(None\)|None values|NoneType|\bNone\b is not|got None|of None")


@dataclass
class Diagnosis:
    """What the rules found, in the order they found it (one explanation per pitfall)."""

    evidence: "ExerciseEvidence"
    verdicts: list[CaseVerdict]

    def __post_init__(self):
        self.found: dict[str, Explanation] = {}
        self.findings = list(getattr(self.evidence.static, "findings", ()))
        self._positions = {case.id: n for n, case in enumerate(self.evidence.cases)}

    def name(self, pitfall: str, text: str | None = None, fix: str | None = None, where: Where | None = None) -> None:
        if pitfall not in self.found:
            default = describe(pitfall)
            self.found[pitfall] = Explanation(pitfall, text or default.what,
                                              fix or self.evidence.exercise.hints.get(pitfall, default.fix), where)

    def located(self, pitfall: str) -> Where | None:
        """Where the static reading saw ``pitfall``, or None."""
        # tf.stop_gradient is often intended (targets, straight-through): point at other cuts first.
        for finding in sorted(self.findings, key=lambda f: "stop_gradient" in f.code):
            if finding.pitfall == pitfall:
                return where_of(self.evidence.source, finding.cell, finding.line, finding.code, finding.message,
                                finding.related_lines)
        return None

    @property
    def failing(self) -> list[CaseVerdict]:
        return [v for v in self.verdicts if not v.passed]

    @property
    def wrong(self) -> list[CaseVerdict]:
        return [v for v in self.failing if v.kind == Verdict.WRONG]

    def index(self, verdict: CaseVerdict) -> int:
        """The verdict's case's position in the evidence (the verdicts may leave some cases out)."""
        return self._positions[verdict.case.id]

    def student(self, verdict: CaseVerdict) -> TaskOutcome | None:
        return self.evidence.student[self.index(verdict)]


def diagnose(evidence: "ExerciseEvidence", verdicts: list[CaseVerdict]) -> list[Explanation]:
    """Every pitfall the evidence supports, each with its explanation, in the order the rules name them."""
    diagnosis = Diagnosis(evidence, verdicts)
    for rule in RULES:
        rule(diagnosis)
    return list(diagnosis.found.values())


# --------------------------------------------------------------------------- the rules, in order

def errors_with_a_cause(d: Diagnosis) -> None:
    """1. An error whose message says what happened: a second gradient on a tape, pfor that cannot convert."""
    errors = [d.student(v).error for v in d.failing if v.kind == Verdict.ERROR
              and d.student(v) is not None and d.student(v).error]
    if any(_PERSISTENT_ERROR.search(e.message) for e in errors):
        d.name("non-persistent-tape", where=d.located("non-persistent-tape"))
    rank = next((e for e in errors if _RANK_ERROR.search(e.message)), None)
    if rank is not None and d.located("summed-gradient"):  # a vector where a matrix must be: a summed Hessian
        d.name("summed-gradient", where=d.located("summed-gradient"),
               text=(f"{describe('summed-gradient').what}; the {rank.type} your code raises "
                     f"(\"{headline(rank)[:160]}\") is its consequence: a vector reached an operation that "
                     "needs a matrix"))
    pfor_failures = [v for v in d.failing if v.case.has("pfor")]
    if pfor_failures and all(v.kind == Verdict.ERROR for v in pfor_failures) and any(
            _PFOR_ERROR.search(d.student(v).error.message) for v in pfor_failures if d.student(v).error) \
            and all(v.case.has("pfor") for v in d.failing):
        d.name("pfor-unsupported")


def out_of_reach_at_scale(d: Diagnosis) -> None:
    """2. Right for small inputs, out of time or memory at n = 100,000: a materialised matrix."""
    exercise = d.evidence.exercise
    scale = [v for v in d.verdicts if v.case.has("scale")]
    if exercise.materialized_pitfall and scale and all(v.kind in STOPPED for v in scale) \
            and any(v.passed for v in d.verdicts if not v.case.has("scale")):
        d.name(exercise.materialized_pitfall)


def matches_a_mistake_model(d: Diagnosis) -> None:
    """3. On every case the student got wrong, the student's numbers are exactly a mistake model's, and at
    least one of those cases tells the mistake from the reference (elsewhere matching it says nothing)."""
    for k, mistake in enumerate(d.evidence.exercise.mistakes):
        covered = [v for v in d.wrong if d.evidence.mistakes[k][d.index(v)] is not None]
        if not (covered and all(_matches_mistake(d, d.index(v), k) for v in covered)
                and any(_informative(d, d.index(v), k) for v in covered)):
            continue
        if mistake.pitfall == "tape-outside-context" and not d.located("tape-outside-context") \
                and d.located("gradient-cut"):
            # A term that never reaches the tape looks the same in numbers whether it was computed
            # outside the tape or cut by .numpy() inside it; the source tells which.
            d.name("gradient-cut", where=d.located("gradient-cut"))
            continue
        d.name(mistake.pitfall, text=mistake.explanation, fix=mistake.fix, where=d.located(mistake.pitfall))


def gradients_in_another_order(d: Diagnosis) -> None:
    """3b. Every gradient is right, but the list is not in the order of the variables it belongs to (element k
    must be the gradient with respect to variable k): on every case the student got wrong, the student's
    gradient outputs are the reference's in another order."""
    if d.found or not d.wrong or not all(_permuted(d, v) for v in d.wrong):
        return
    d.name("wrong-value",
           text="each of your gradients is right, but your list is not in the order of the variables it belongs to: "
                "element k must be the gradient with respect to variable k of the list you were given",
           fix="keep the order of the variables you were given (`model.trainable_variables`, "
               "`critic.trainable_variables`): pass that list itself to `tape.jacobian` or `tape.gradient`, which "
               "return the gradients in the order of their sources (a tf.Module lists its variables sorted by "
               "attribute name)")


def _permuted(d: Diagnosis, verdict: CaseVerdict) -> bool:
    """The student's gradient outputs on this case are the reference's, in another order than theirs."""
    outputs = {o.name: o for o in d.evidence.exercise.outputs if o.gradient}
    reference = d.evidence.reference[d.index(verdict)].outputs
    student = _student_outputs(d, verdict)
    names = [name for name in outputs if name in reference]
    if len(names) < 2 or any(student.get(name) is None for name in names):
        return False
    rtol, atol = d.evidence.exercise.tolerance(verdict.case)
    fits = {(mine, theirs): matches(student[mine], reference[theirs], outputs[theirs], rtol, atol)
            for mine in names for theirs in names}
    return any(order != tuple(names) and all(fits[(mine, theirs)] for mine, theirs in zip(names, order))
               for order in itertools.permutations(names))


def wrong_for_tensors_right_for_variables(d: Diagnosis) -> None:
    """4. None (or an error on the None) for Tensors, right for the same data as Variables: no tape.watch."""
    twins = _variable_twins(d.verdicts)
    if twins and all(not tensor.passed and variable.passed for tensor, variable in twins) and all(
            (tensor.kind == Verdict.WRONG and _has_none_gradient(d, tensor)) or tensor.kind == Verdict.ERROR
            for tensor, _ in twins):
        d.name("unwatched-tensor")


def wrong_only_when_large(d: Diagnosis) -> None:
    """5. Wrong only at large magnitudes: an overflow, in the value or in the gradient."""
    if d.wrong and all(v.case.has("large") for v in d.failing):
        outputs = {name for v in d.wrong for name in v.failed_outputs}
        gradient_names = {o.name for o in d.evidence.exercise.outputs if o.gradient}
        if outputs - gradient_names:
            d.name("unstable-value")
        if outputs & gradient_names:
            d.name("unstable-gradient")


def gradient_does_not_flow(d: Diagnosis) -> None:
    """6. A None or zero gradient where one must flow, an error that a None raised further on, or a term
    silently missing: the source says where, and which of the three causes it is."""
    none_outputs = any(_has_none_gradient(d, v) or _has_zero_gradient(d, v) for v in d.wrong)
    none_errors = [d.student(v).error for v in d.failing if v.kind == Verdict.ERROR and d.student(v) is not None
                   and d.student(v).error is not None and _NONE_ERROR.search(d.student(v).error.message)]
    if (none_outputs or none_errors) and not (d.found.keys() & {"unwatched-tensor", "no-gradient",
                                                                 "missing-stop-gradient"}):
        for pitfall in ("tape-outside-context", "unwatched-tensor", "gradient-cut"):
            where = d.located(pitfall)
            if where is None or (pitfall == "gradient-cut" and _only_expected_stop_gradients(d)):
                continue
            text = None
            if none_errors and not none_outputs:  # the symptom is downstream: say it is the consequence
                text = (f"{describe(pitfall).what}; the {none_errors[0].type} your code raises "
                        f"(\"{headline(none_errors[0])[:160]}\") is its consequence: a gradient that is None "
                        "reached an operation that needs a tensor")
            d.name(pitfall, text=text, where=where)
            break
    if d.wrong and d.located("tape-outside-context") and not d.found:
        d.name("tape-outside-context", where=d.located("tape-outside-context"))


def learning_goal_missed(d: Diagnosis) -> None:
    """7. The exercise is about writing the gradient with @tf.custom_gradient, and the source has none."""
    static = d.evidence.static
    if d.evidence.exercise.requires_custom_gradient and static is not None and getattr(static, "defined", False) \
            and not static.uses_custom_gradient:
        d.name("no-custom-gradient")


RULES = (errors_with_a_cause, out_of_reach_at_scale, matches_a_mistake_model, gradients_in_another_order,
         wrong_for_tensors_right_for_variables,
         wrong_only_when_large, gradient_does_not_flow, learning_goal_missed)


# --------------------------------------------------------------------------- evidence helpers

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


def _only_expected_stop_gradients(d: Diagnosis) -> bool:
    """Where tf.stop_gradient is the point of the exercise (td_loss), only other cuts count as evidence."""
    cuts = [f for f in d.findings if f.pitfall == "gradient-cut"]
    return d.evidence.exercise.stop_gradient_expected and all("stop_gradient" in f.code for f in cuts)


def _student_outputs(d: Diagnosis, verdict: CaseVerdict):
    outcome = d.student(verdict)
    return outcome.outputs if outcome and outcome.outputs else {}


def _has_none_gradient(d: Diagnosis, verdict: CaseVerdict) -> bool:
    outputs = _student_outputs(d, verdict)
    reference = d.evidence.reference[d.index(verdict)].outputs
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and outputs[output.name].is_none and not reference[output.name].is_none
               for output in d.evidence.exercise.outputs)


def _has_zero_gradient(d: Diagnosis, verdict: CaseVerdict) -> bool:
    outputs = _student_outputs(d, verdict)
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and not outputs[output.name].is_none and not np.any(outputs[output.name].array)
               for output in d.evidence.exercise.outputs)


def _matches_mistake(d: Diagnosis, index: int, k: int) -> bool:
    """The student's outputs on case ``index`` are those of mistake model ``k``."""
    exercise = d.evidence.exercise
    return agree(exercise, d.evidence.cases[index], d.evidence.student[index], d.evidence.mistakes[k][index],
                 exercise.mistakes[k].outputs)


def _informative(d: Diagnosis, index: int, k: int) -> bool:
    """Mistake model ``k`` gives other numbers than the reference on case ``index``: the case can tell it."""
    return tells_apart(d.evidence.exercise, d.evidence.cases[index], k, d.evidence.mistakes[k][index],
                       d.evidence.reference[index])


def tells_apart(exercise: Exercise, case: Case, k: int, mistake: TaskOutcome | None,
                reference: TaskOutcome | None) -> bool:
    """Whether ``case`` tells mistake model ``k`` from the reference: it ran, and its numbers differ."""
    return (mistake is not None and mistake.status == RunStatus.OK
            and not agree(exercise, case, mistake, reference, exercise.mistakes[k].outputs))


def agree(exercise: Exercise, case: Case, first: TaskOutcome | None, second: TaskOutcome | None,
          compared: tuple[str, ...] | None) -> bool:
    """Two outcomes give the same outputs (``compared`` ones, or all) within the case's tolerance."""
    if first is None or second is None or first.status != RunStatus.OK or second.status != RunStatus.OK:
        return False
    rtol, atol = exercise.tolerance(case)
    for output in exercise.outputs:
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
