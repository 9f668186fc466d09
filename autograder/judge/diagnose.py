"""The rules that name a pitfall: from the verdicts, the mistake models' numbers and the static reading.

A pitfall is named only when the numbers say something is wrong (static evidence alone never costs points,
except a missing ``@tf.custom_gradient``), so a correct solution written differently is never accused.
Each rule is a short function over the evidence; ``diagnose`` applies them in order and the first
explanation of a pitfall wins.
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from autograder.judge.cases import STOPPED, CaseVerdict, Verdict
from autograder.judge.compare import matches
from autograder.judge.diagnosis import Diagnosis
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.frames import frame_place
from autograder.judge.pfor import pfor_unsupported
from autograder.judge.static.findings import Finding
from autograder.judge.signals import (fails_only_for_tensors, has_non_finite_output, has_none_gradient,
                                      has_zero_gradient, informative, matches_mistake, only_expected_stop_gradients,
                                      out_of_memory, student_outputs, variable_twins)
from autograder.model.pitfalls import Look, describe
from autograder.model.results import Explanation


# What TensorFlow says when `tape.watch` is given a Keras 3 variable (not a tf.Variable): "Passed in object
# <Variable path=dense/kernel, ...> of type 'Variable', not tf.Tensor or tf.Variable or ExtensionType." (older:
# "... should be tf.Tensor or tf.Variable")
_KERAS_WATCH_ERROR = re.compile(r"Passed in object.*(should be|not) tf\.Tensor or tf\.Variable", re.DOTALL)
_PERSISTENT_ERROR = re.compile(r"non-persistent|persistent=True", re.IGNORECASE)
_RANK_ERROR = re.compile(r"rank >= 2|must be rank 2|must be at least rank|have rank 2|Expected rank 2", re.IGNORECASE)
# What TensorFlow and Python say when an operation meets a None where a tensor should be (a gradient that
# did not flow): "Attempt to convert a value (None)", "None values not supported", "'NoneType' object ..."
_NONE_ERROR = re.compile(r"\(None\)|None values|NoneType|\bNone\b is not|got None|of None")


def diagnose(evidence: ExerciseEvidence, verdicts: list[CaseVerdict]) -> list[Explanation]:
    """Every pitfall the evidence supports, each with its explanation, in the order the rules name them."""
    return list(run_rules(evidence, verdicts).found.values())


def run_rules(evidence: ExerciseEvidence, verdicts: list[CaseVerdict]) -> Diagnosis:
    """The rules applied in order: what they named (``found``) and which mistake models matched (``through``)."""
    diagnosis = Diagnosis(evidence, verdicts)
    for rule in RULES:
        rule(diagnosis)
    return diagnosis


# --------------------------------------------------------------------------- the rules, in order

def errors_with_a_cause(d: Diagnosis) -> None:
    """1. An error whose message says what happened: a second gradient on a tape, pfor that cannot convert."""
    errors = [d.student(v).error for v in d.failing if v.kind == Verdict.ERROR
              and d.student(v) is not None and d.student(v).error]
    if any(_PERSISTENT_ERROR.search(e.message) for e in errors):
        d.name("non-persistent-tape", where=d.located("non-persistent-tape"))
    public = [d.student(v).error for v in d.failing if v.kind == Verdict.ERROR and v.case.public
              and d.student(v) is not None and d.student(v).error]
    if any(_KERAS_WATCH_ERROR.search(e.message) for e in public):  # a public case's message: the student sees it
        d.name("watched-keras-variable")
    rank = next((e for e in errors if _RANK_ERROR.search(e.message)), None)
    if rank is not None and d.located("summed-gradient"):  # a vector where a matrix must be: a summed Hessian
        d.name("summed-gradient", where=d.located("summed-gradient"),
               text=(f"{describe('summed-gradient').what}; {d.raises(rank)} is its consequence: a vector reached "
                     "an operation that needs a matrix"))
    pfor_unsupported(d)


# Pitfalls whose finding names a line that, when a case raises right there, is the cause (`tf.reduce_sum(...,
# axis=[1, 2, 3])` raises for (batch, d) inputs: fixed axes that only one rank has).
RAISED_ON_ITS_LINE = ("wrong-norm-axis",)


def raised_where_the_code_shows_a_pitfall(d: Diagnosis) -> None:
    """1b. A case raised on the very line where the static reading saw a pitfall."""
    for pitfall in RAISED_ON_ITS_LINE:
        finding = d.finding(pitfall)
        if finding is None:
            continue
        for verdict in d.failing:
            outcome = d.student(verdict)
            error = outcome.error if outcome is not None and verdict.kind == Verdict.ERROR else None
            if error is not None and error.frames and _same_place(d, error.frames[-1], finding):
                d.name(pitfall, at=finding, consequence=f"{d.raises(error)} on that line is its consequence")
                break


def _same_place(d: Diagnosis, frame: tuple, finding: Finding) -> bool:
    """Whether a traceback frame ("<cell [7]>", line) is the finding's place (cell, line)."""
    return frame_place(frame, d.evidence.source) == (finding.cell, finding.line)


def out_of_reach_at_scale(d: Diagnosis) -> None:
    """2. Right for small inputs, out of time or memory at n = 100,000: a materialised matrix."""
    exercise = d.evidence.exercise
    scale = [v for v in d.verdicts if v.case.has("scale")]
    stopped = [v for v in scale if v.kind in STOPPED or out_of_memory(d, v)]
    # a scale case not run because an earlier one stopped the process says nothing against it
    if exercise.materialized_pitfall and stopped and all(v in stopped or v.kind == Verdict.NOT_RUN for v in scale) \
            and any(v.passed for v in d.verdicts if not v.case.has("scale")):
        d.name(exercise.materialized_pitfall)


# Pitfalls whose numbers a mistake model cannot tell apart: a term that never reaches the tape looks the same
# whether it was computed outside the tape's block or cut by `.numpy()` or `tf.stop_gradient` inside it; a
# gradient that is None looks the same whether an op has none (plain tf.round) or a cut stops it. The model
# names the first; the source, when it shows only the other, names that one.
SAME_NUMBERS = {"tape-outside-context": ("gradient-cut",), "no-gradient": ("gradient-cut",)}


def matches_a_mistake_model(d: Diagnosis) -> None:
    """3. On every case the student got wrong, the student's numbers are exactly a mistake model's, and at
    least one of those cases tells the mistake from the reference (elsewhere matching it says nothing)."""
    for k, mistake in enumerate(d.evidence.exercise.mistakes):
        if not matched(d, k):
            continue
        if mistake.through:
            d.through.add(mistake.through)
        seen = d.finding(mistake.pitfall)
        if mistake.pitfall == "tape-outside-context" and seen is None and fails_only_for_tensors(d):
            # A term that never reaches the tape looks the same in numbers whether it was computed outside the
            # tape or taken with respect to a Tensor no tape watched: the Variable twins (rule 4) tell which.
            continue
        alike = next((d.finding(p) for p in SAME_NUMBERS.get(mistake.pitfall, ()) if d.finding(p)), None)
        if seen is None and alike is not None and not (alike.pitfall == "gradient-cut"
                                                       and only_expected_stop_gradients(d)):
            d.name(alike.pitfall, at=alike)
            continue
        if mistake.look is not None and mistake.pitfall not in d.found:
            d.looks[mistake.pitfall] = mistake.look
        d.name(mistake.pitfall, text=mistake.explanation, fix=mistake.fix, at=seen)


def matched(d: Diagnosis, k: int) -> bool:
    """Whether mistake model ``k`` explains every case the student got wrong, and tells one of them apart; and
    on no case the student got right does it give other numbers than the student's (a squeezed Jacobian is the
    summed gradient where f has one output, and right where the summed gradient is wrong)."""
    covered = [v for v in d.wrong if d.evidence.mistakes[k][d.index(v)] is not None]
    return bool(covered) and all(matches_mistake(d, d.index(v), k) for v in covered) \
        and any(informative(d, d.index(v), k) for v in covered) \
        and not any(informative(d, d.index(v), k) and not matches_mistake(d, d.index(v), k)
                    for v in d.verdicts if v.passed)


def wrong_where_only_one_value_is_right(d: Diagnosis) -> None:
    """3b. An output the exercise fixes entirely (clip_gradient_norm's forward is x itself) is wrong: whatever
    the numbers, that is the output's pitfall."""
    graded = [v for v in d.verdicts if v.case.graded]
    for name, pitfall in d.evidence.exercise.output_pitfalls.items():
        wrong = [v for v in d.wrong if name in v.failed_outputs and v.case.graded]
        if wrong:
            label = d.evidence.exercise.output(name).label
            d.name(pitfall, at=d.finding(pitfall),
                   consequence=f"{label} differs from the reference on {len(wrong)} of {len(graded)} cases")


def gradients_in_another_order(d: Diagnosis) -> None:
    """3b. Every gradient is right, but the list is not in the order of the variables it belongs to (element k
    must be the gradient with respect to variable k): on every case the student got wrong, the student's
    gradient outputs are the reference's in another order."""
    if d.found or not d.wrong or not all(_permuted(d, v) for v in d.wrong):
        return
    d.looks["wrong-value"] = Look((r"sorted\(|reversed\(|\[::-1\]|\.reverse\(",), "this changes the order of the "
                                  "variables", look_for="the list of variables you differentiate with respect to: it "
                                  "must be the one you were given, in its order")
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
    student = student_outputs(d, verdict)
    names = [name for name in outputs if name in reference]
    if len(names) < 2 or any(student.get(name) is None for name in names):
        return False
    rtol, atol = d.evidence.exercise.tolerance(verdict.case)
    fits = {(mine, theirs): matches(student[mine], reference[theirs], outputs[theirs], rtol, atol)
            for mine in names for theirs in names}
    return any(order != tuple(names) and all(fits[(mine, theirs)] for mine, theirs in zip(names, order))
               for order in itertools.permutations(names))


def wrong_for_tensors_right_for_variables(d: Diagnosis) -> None:
    """4. None (or an error on the None, or the inf / NaN of a division by the zeros that replaced it) for
    Tensors, right for the same data as Variables: no tape.watch."""
    if fails_only_for_tensors(d) and all(
            (tensor.kind == Verdict.WRONG and (has_none_gradient(d, tensor) or has_non_finite_output(d, tensor)))
            or tensor.kind == Verdict.ERROR for tensor, _ in variable_twins(d.verdicts)):
        d.name("unwatched-tensor")


def nan_where_the_reference_is_zero(d: Diagnosis) -> None:
    """5. NaN exactly where the reference is 0, on a case with an all-zero row: the 0 / 0 of a norm's gradient
    (or of a row scaled by its largest magnitude), whatever else the submission gets wrong."""
    for verdict in (v for v in d.wrong if v.case.has("zero")):
        mine, reference = student_outputs(d, verdict), d.evidence.reference[d.index(verdict)].outputs
        for name in verdict.failed_outputs:
            got, want = mine.get(name), reference.get(name)
            if got is None or want is None or got.is_none or want.is_none or got.array.shape != want.array.shape:
                continue
            nan = np.isnan(got.array) & ~np.isnan(want.array)
            if np.any(nan) and np.all(want.array[nan] == 0):
                d.name("nan-at-zero")
                return


def wrong_only_when_large(d: Diagnosis) -> None:
    """6. Wrong only at large magnitudes: an overflow, in the value or in the gradient.

    Where grad_fn divides by the value (``Exercise.gradient_uses_value``), a gradient that fails only where the
    value fails is the value's mistake; and a mistake model that already named the cause is not second-guessed.
    """
    exercise = d.evidence.exercise
    if d.wrong and all(v.case.has("large") for v in d.failing) and not (exercise.gradient_uses_value and d.found):
        gradient_names = {o.name for o in exercise.outputs if o.gradient}
        outputs = {name for v in d.wrong for name in v.failed_outputs}
        if exercise.gradient_uses_value:
            gradient_alone = [v for v in d.wrong if not set(v.failed_outputs) - gradient_names]
            outputs = (outputs - gradient_names) | {name for v in gradient_alone for name in v.failed_outputs}
        if outputs - gradient_names:
            d.name("unstable-value")
        if outputs & gradient_names:
            d.name("unstable-gradient")


def gradient_does_not_flow(d: Diagnosis) -> None:
    """7. A None or zero gradient where one must flow, an error that a None raised further on, or a term
    silently missing: the source says where, and which of the three causes it is."""
    none_outputs = any(has_none_gradient(d, v) or has_zero_gradient(d, v) for v in d.wrong)
    none_errors = [d.student(v).error for v in d.failing if v.kind == Verdict.ERROR and d.student(v) is not None
                   and d.student(v).error is not None and _NONE_ERROR.search(d.student(v).error.message)]
    if (none_outputs or none_errors) and not (d.found.keys() & {"unwatched-tensor", "no-gradient",
                                                                 "missing-stop-gradient"}):
        for pitfall in ("tape-outside-context", "unwatched-tensor", "gradient-cut"):
            finding = d.finding(pitfall)
            if finding is None or (pitfall == "gradient-cut" and only_expected_stop_gradients(d)):
                continue
            consequence = ""
            if none_errors and not none_outputs:  # the symptom is downstream: say it is the consequence
                consequence = (f"{d.raises(none_errors[0])} is its consequence: a gradient that is None reached "
                               "an operation that needs a tensor")
            d.name(pitfall, at=finding, consequence=consequence)
            break
    if d.wrong and d.located("tape-outside-context") and not d.found:
        d.name("tape-outside-context", at=d.finding("tape-outside-context"))


def learning_goal_missed(d: Diagnosis) -> None:
    """8. The exercise is about writing the gradient with @tf.custom_gradient, and the source has none."""
    static = d.evidence.static
    if d.evidence.exercise.requires_custom_gradient and static is not None and getattr(static, "defined", False) \
            and not static.uses_custom_gradient and "no-gradient" not in d.found:  # that one says it already
        d.name("no-custom-gradient")


RULES = (errors_with_a_cause, raised_where_the_code_shows_a_pitfall, out_of_reach_at_scale, matches_a_mistake_model,
         gradients_in_another_order, wrong_where_only_one_value_is_right, wrong_for_tensors_right_for_variables,
         nan_where_the_reference_is_zero,
         wrong_only_when_large, gradient_does_not_flow, learning_goal_missed)
