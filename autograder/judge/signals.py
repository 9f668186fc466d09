"""What the rules of ``judge.diagnose`` read in the evidence: Tensor / Variable twins, None or zero or non-finite
gradients, out-of-memory cases, and whether a case tells a mistake model from the reference. Kept apart from the
rules so that each rule reads as what it concludes, and these as what they measure.
"""
from __future__ import annotations


import numpy as np

from autograder.judge.diagnosis import Diagnosis
from autograder.judge.cases import CaseVerdict, Verdict
from autograder.judge.compare import compare, matches
from autograder.model.course import Case, Exercise
from autograder.model.outcomes import RunStatus, TaskOutcome



def variable_twins(verdicts: list[CaseVerdict]) -> list[tuple[CaseVerdict, CaseVerdict]]:
    """(Tensor case, Variable case) pairs on the same data: they tell a missing tape.watch."""
    variables = [v for v in verdicts if v.case.has("variable")]
    pairs = []
    for tensor in (v for v in verdicts if v.case.has("tensor")):
        twin = next((v for v in variables if same_data(tensor.case.args, v.case.args)), None)
        if twin is not None:
            pairs.append((tensor, twin))
    return pairs


def fails_only_for_tensors(d: Diagnosis) -> bool:
    """Tensor / Variable twins on the same data, and every Tensor one fails where its Variable one passes."""
    twins = variable_twins(d.verdicts)
    return bool(twins) and all(not tensor.passed and variable.passed for tensor, variable in twins)


def same_data(a, b) -> bool:
    keys = (set(a) | set(b)) - {"variable"}
    try:
        return all(np.array_equal(np.asarray(a.get(k), dtype=object), np.asarray(b.get(k), dtype=object))
                   for k in keys)
    except (TypeError, ValueError):
        return False


def out_of_memory(d: Diagnosis, verdict: CaseVerdict) -> bool:
    """An allocation that failed, reported as an error: in a student's own kernel (the public checks), where no
    sandbox turns it into a memory verdict."""
    outcome = d.student(verdict)
    return (verdict.kind == Verdict.ERROR and outcome is not None and outcome.error is not None
            and outcome.error.type in ("MemoryError", "ResourceExhaustedError"))


def only_expected_stop_gradients(d: Diagnosis) -> bool:
    """Where tf.stop_gradient is the point of the exercise (td_loss), only other cuts count as evidence."""
    cuts = [f for f in d.findings if f.pitfall == "gradient-cut"]
    return d.evidence.exercise.stop_gradient_expected and all("stop_gradient" in f.code for f in cuts)


def student_outputs(d: Diagnosis, verdict: CaseVerdict):
    outcome = d.student(verdict)
    return outcome.outputs if outcome and outcome.outputs else {}


def has_none_gradient(d: Diagnosis, verdict: CaseVerdict) -> bool:
    outputs = student_outputs(d, verdict)
    reference = d.evidence.reference[d.index(verdict)].outputs
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and outputs[output.name].is_none and not reference[output.name].is_none
               for output in d.evidence.exercise.outputs)


def has_zero_gradient(d: Diagnosis, verdict: CaseVerdict) -> bool:
    outputs = student_outputs(d, verdict)
    return any(output.gradient and output.name in verdict.failed_outputs and outputs.get(output.name) is not None
               and not outputs[output.name].is_none and not np.any(outputs[output.name].array)
               for output in d.evidence.exercise.outputs)


def has_non_finite_output(d: Diagnosis, verdict: CaseVerdict) -> bool:
    """inf or NaN in a failed output where the reference is finite."""
    outputs, reference = student_outputs(d, verdict), d.evidence.reference[d.index(verdict)].outputs
    for name in verdict.failed_outputs:
        mine, theirs = outputs.get(name), reference.get(name)
        if mine is not None and theirs is not None and not mine.is_none and not theirs.is_none \
                and np.all(np.isfinite(theirs.array)) and not np.all(np.isfinite(mine.array)):
            return True
    return False


def matches_mistake(d: Diagnosis, index: int, k: int) -> bool:
    """The student's outputs on case ``index`` are those of mistake model ``k``."""
    exercise = d.evidence.exercise
    return agree(exercise, d.evidence.cases[index], d.evidence.student[index], d.evidence.mistakes[k][index],
                 exercise.mistakes[k].outputs)


def informative(d: Diagnosis, index: int, k: int) -> bool:
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
