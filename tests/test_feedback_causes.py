"""Feedback that points at the real cause, on hand-made evidence (nothing runs): headline, place and fix from one
finding; the cause the code shows among pitfalls with the same numbers; an output the exercise fixes entirely;
and another of the student's exercises, called by this one, as the cause of its failure.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from autograder.judge.evaluate import evaluate_exercise, evaluate_exercises
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.static import Finding, FunctionReport, Reached
from autograder.load.cells import Cell, SubmissionSource
from autograder.model.course import Case, Exercise, Mistake, Output
from autograder.model.outcomes import ErrorInfo, TaskOutcome, Value
from autograder.model.results import Explanation, ExerciseResult, Status, Where

OUTPUTS = (Output("value", "the value", check_dtype=True), Output("gradient", "the gradient", gradient=True))
CODE = "\n".join(f"line {n}" for n in range(1, 41)) + "\n"
SOURCE = SubmissionSource(Path("s.py"), "python", cells=[Cell(1, CODE, CODE)])
# The first case is public: what the code raises there is its own words on public data (the rules read it);
# the second is hidden, read by its kind only (autograder/judge/hidden.py).
CASES = [Case("a", "case a", {"x": np.array(1.0)}, public=True), Case("b", "case b", {"x": np.array(2.0)})]


def ok(value, gradient) -> TaskOutcome:
    wrap = (lambda a: Value(None, "NoneType") if a is None else Value(np.asarray(a, float), "EagerTensor", "float32"))
    return TaskOutcome("ok", {"value": wrap(value), "gradient": wrap(gradient)})


def raised(type_: str, message: str, *functions: str) -> TaskOutcome:
    frames = tuple(("<submission>", 10 + n, name, "") for n, name in enumerate(functions))
    return TaskOutcome("error", error=ErrorInfo(type_, message, frames=frames))


RIGHT = ok(2.0, 3.0)


def exercise(id_="f", *mistakes: Mistake, **options) -> Exercise:
    return Exercise(id_, ("x",), 2.0, make_cases=lambda rng: [], probe=lambda fn, args: {}, outputs=OUTPUTS,
                    mistakes=mistakes, **options)


def evidence(ex: Exercise, student, *findings: Finding, mistakes=(), reaches=(), others=None, reference=None):
    return ExerciseEvidence(
        exercise=ex, cases=CASES, student=list(student), reference=list(reference or [RIGHT, RIGHT]),
        mistakes=[list(m) for m in mistakes] or [[None, None] for _ in ex.mistakes],
        static=FunctionReport(ex.id, True, None, 1, True, False, False, tuple(findings), reaches=tuple(reaches)),
        defined=["x"], load_errors=[], source=SOURCE, others=others or {})


LOSS_AFTER = Finding(
    "tape-outside-context", "`loss = a + b` is computed after the `with tf.GradientTape() as tape:` block ends "
    "(lines 3-5), so `tape` never records it and `tape.gradient(...)` on line 7 cannot differentiate through it",
    None, 6, "loss = a + b", (3, 5, 7),
    headline="`loss = a + b` is computed after the `with` block of `tape`, the tape that must differentiate it, "
             "so `tape` never records it",
    fix="move `loss = a + b` (line 6) into the `with tf.GradientTape() as tape:` block (indented under it); keep "
        "`tape.gradient(...)` after the block")


def test_headline_where_and_fix_come_from_the_one_finding_that_locates_the_pitfall():
    """A mistake model's words say "call gradient_penalty inside the block"; the finding says the loss line is
    after the block: the finding's words win, all three about line 6."""
    model = Mistake("tape-outside-context", "m", "the penalty was computed outside the block",
                    "call `gradient_penalty(...)` inside the `with` block")
    wrong = ok(2.0, 1.0)
    result = evaluate_exercise(evidence(exercise("f", model), [wrong, wrong], LOSS_AFTER,
                                        mistakes=[[wrong, wrong]]))
    (explanation,) = result.explanations
    assert explanation.text == LOSS_AFTER.headline and explanation.fix == LOSS_AFTER.fix
    assert (explanation.where.line, explanation.where.code) == (6, "loss = a + b")
    assert "gradient_penalty" not in explanation.fix and "after" in explanation.where.detail
    # A finding that does not know its cause lends its place only: the model's words stay.
    bare = Finding("tape-outside-context", "seen here", None, 6, "loss = a + b")
    plain = evaluate_exercise(evidence(exercise("f", model), [wrong, wrong], bare, mistakes=[[wrong, wrong]]))
    assert plain.explanations[0].text == model.explanation and plain.explanations[0].where.line == 6


def test_a_downstream_error_is_said_after_the_cause_the_finding_names():
    before = Finding("tape-outside-context", "`s = c(i)` is computed before the `with ...` block begins", None, 4,
                     "s = c(i)", headline="`s = c(i)` is computed before the `with` block of `tape`",
                     fix="move `s = c(i)` (line 4) into the block")
    none = raised("ValueError", "Attempt to convert a value (None) with an unsupported type", "f")
    (explanation,) = evaluate_exercise(evidence(exercise(), [none, none], before)).explanations
    assert explanation.text.startswith("`s = c(i)` is computed before the `with` block of `tape`; the ValueError")
    assert "after" not in explanation.text and explanation.fix == "move `s = c(i)` (line 4) into the block"


def test_among_pitfalls_with_the_same_numbers_the_code_names_the_cause():
    """None gradients match "no gradient" (plain tf.round); a stop_gradient over the whole path gives the same."""
    model = Mistake("no-gradient", "m", "plain tf.round has no gradient", "use the straight-through form")
    none = ok(2.0, None)
    stop = Finding("gradient-cut", "wraps every path", None, 5, "return tf.stop_gradient(x + (tf.round(x) - x))",
                   headline="`tf.stop_gradient(...)` (line 5) wraps every path from `x` to the value",
                   fix="keep `x` itself outside `tf.stop_gradient(...)` on line 5", whole_path=True)
    cut = evaluate_exercise(evidence(exercise("f", model), [none, none], stop, mistakes=[[none, none]]))
    assert cut.pitfalls == ["gradient-cut"] and cut.explanations[0].fix == stop.fix
    rounded = Finding("no-gradient", "`tf.round(x)` has no gradient", None, 5, "return tf.round(x)",
                      headline="`tf.round(x)` (line 5) has no gradient", fix="pass the upstream gradient through")
    both = evaluate_exercise(evidence(exercise("f", model), [none, none], stop, rounded, mistakes=[[none, none]]))
    assert both.pitfalls == ["no-gradient"] and both.explanations[0].where.line == 5
    unseen = evaluate_exercise(evidence(exercise("f", model), [none, none], mistakes=[[none, none]]))
    assert unseen.pitfalls == ["no-gradient"] and unseen.explanations[0].text == model.explanation


def test_an_output_the_exercise_fixes_entirely_names_its_pitfall_whatever_the_numbers():
    ex = exercise("clip", output_pitfalls={"value": "clips-value"}, hints={"clips-value": "return x unchanged"})
    result = evaluate_exercise(evidence(ex, [ok(1.5, 3.0), RIGHT]))
    assert result.pitfalls == ["clips-value"] and result.explanations[0].fix == "return x unchanged"
    assert "the value differs from the reference on 1 of 2 cases" in result.explanations[0].text
    assert evaluate_exercise(evidence(ex, [ok(2.0, 9.0), RIGHT])).pitfalls == ["wrong-value"]


def test_a_case_that_raises_on_the_line_of_a_finding_names_its_pitfall():
    axes = Finding("wrong-norm-axis", "fixed axes [1, 2, 3]", None, 12, "n = tf.reduce_sum(g, axis=[1, 2, 3])",
                   headline="`tf.reduce_sum(...)` (line 12) takes the norm over the fixed axes [1, 2, 3]",
                   fix="on line 12, take one norm per example over every axis but the first")
    at_12 = TaskOutcome("error", error=ErrorInfo("InvalidArgumentError", "Invalid reduction dimension 2",
                                                 frames=(("<submission>", 12, "f", ""),)))
    result = evaluate_exercise(evidence(exercise(), [at_12, RIGHT], axes))
    assert result.pitfalls == ["wrong-norm-axis"] and result.explanations[0].fix == axes.fix
    # raised on the public case: its own words on public data, quoted
    text = result.explanations[0].text
    assert 'the InvalidArgumentError your code raises ("Invalid reduction dimension 2") on that line' in text
    # raised on the hidden case only: its type, message and line are its code's choice, and name nothing
    assert evaluate_exercise(evidence(exercise(), [RIGHT, at_12], axes)).pitfalls == []
    at_13 = TaskOutcome("error", error=ErrorInfo("InvalidArgumentError", "Invalid reduction dimension 2",
                                                 frames=(("<submission>", 13, "f", ""),)))
    assert evaluate_exercise(evidence(exercise(), [at_13, RIGHT], axes)).pitfalls == []


# --------------------------------------------------------------------------- causes across exercises

PENALTY_WHERE = Where("line 33", None, 33, "return tape.gradient(scores, points)", "tape never watches `points`")
PENALTY = ExerciseResult("penalty", 0.0, 2.0, Status.ERROR, ["unwatched-tensor"], explanations=[Explanation(
    "unwatched-tensor", "`tape.gradient(...)` differentiates with respect to `points`, which `tape` never watches",
    "call `tape.watch(points)` first thing in the block", PENALTY_WHERE)])
CALLS = Reached("penalty", None, 20, "loss = w + k * penalty(c, x)", None, 30, 36)
OWN = Finding("tape-outside-context", "the loss is after the block", None, 21, "loss = w",
              headline="`loss = w` is computed after the block", fix="move `loss = w` into the block")


def test_an_exercise_that_raises_inside_another_failing_exercise_names_that_one():
    none = raised("ValueError", "Attempt to convert a value (None)", "loss", "penalty")
    result = evaluate_exercise(evidence(exercise("loss"), [none, none], OWN, reaches=[CALLS],
                                        others={"penalty": PENALTY}))
    (explanation,) = result.explanations
    assert result.pitfalls == ["unwatched-tensor"] and result.score == 0.0  # the points stay as the contract says
    assert explanation.text.startswith("`loss` calls your `penalty` (line 20: `loss = w + k * penalty(c, x)`), "
                                       "which fails its own cases: `tape.gradient(...)` differentiates")
    assert explanation.where == PENALTY_WHERE
    assert explanation.fix == "in `penalty`, which `loss` calls: call `tape.watch(points)` first thing in the block"
    # The same error raised in its own code, or a penalty that passes: its own diagnosis.
    own = raised("ValueError", "Attempt to convert a value (None)", "loss")
    assert evaluate_exercise(evidence(exercise("loss"), [own, own], OWN, reaches=[CALLS],
                                      others={"penalty": PENALTY})).pitfalls == ["tape-outside-context"]
    passing = ExerciseResult("penalty", 2.0, 2.0, Status.PASSED)
    assert evaluate_exercise(evidence(exercise("loss"), [none, none], OWN, reaches=[CALLS],
                                      others={"penalty": passing})).pitfalls == ["tape-outside-context"]


def test_wrong_numbers_are_blamed_on_the_other_exercise_only_when_nothing_else_explains_them():
    wrong_penalty = ExerciseResult("penalty", 1.0, 2.0, Status.PARTIAL, ["wrong-norm-axis"], explanations=[
        Explanation("wrong-norm-axis", "the norm is taken over the last axis only", "take one norm per example")])
    wrong = ok(2.0, 1.0)
    result = evaluate_exercise(evidence(exercise("loss"), [wrong, RIGHT], reaches=[CALLS],
                                        others={"penalty": wrong_penalty}))
    (explanation,) = result.explanations
    assert result.pitfalls == ["wrong-norm-axis"] and "`loss` calls your `penalty`" in explanation.text
    assert (explanation.where.line, explanation.where.code) == (30, "line 30")  # its `def` line
    explained = evaluate_exercise(evidence(exercise("loss"), [wrong, RIGHT], OWN, reaches=[CALLS],
                                           others={"penalty": wrong_penalty}))
    assert explained.pitfalls == ["tape-outside-context"]
    # A mistake model that reproduces the other exercise's mistake inside this one is proof enough.
    model = Mistake("tape-outside-context", "m", "the penalty is a constant", "x", through="penalty")
    cut = ExerciseResult("penalty", 0.0, 2.0, Status.FAILED, ["gradient-cut"], explanations=[
        Explanation("gradient-cut", "`.numpy()` cuts the gradient", "drop `.numpy()`")])
    through = evaluate_exercise(evidence(exercise("loss", model), [wrong, wrong], OWN, mistakes=[[wrong, wrong]],
                                         reaches=[CALLS], others={"penalty": cut}))
    assert through.pitfalls == ["gradient-cut"] and through.explanations[0].fix.startswith("in `penalty`")


def test_a_finding_inside_the_other_exercise_makes_it_the_cause():
    wrong = ok(2.0, None)
    inside = Finding("gradient-cut", "`y.numpy()` cuts", None, 33, "y = tf.constant(y.numpy())",
                     headline="`y.numpy()` (line 33) turns a tensor into a NumPy array", fix="drop `.numpy()`")
    cut = ExerciseResult("penalty", 0.0, 2.0, Status.FAILED, ["gradient-cut"], explanations=[
        Explanation("gradient-cut", "`y.numpy()` (line 33) turns a tensor into a NumPy array", "drop `.numpy()`")])
    result = evaluate_exercise(evidence(exercise("loss"), [wrong, wrong], inside, reaches=[CALLS],
                                        others={"penalty": cut}))
    assert result.pitfalls == ["gradient-cut"] and result.explanations[0].text.startswith("`loss` calls your")


def test_the_exercises_are_judged_together_and_a_stub_called_by_another_is_named():
    stub = raised("NotImplementedError", "", "loss", "penalty")
    penalty = evidence(exercise("penalty"), [raised("NotImplementedError", "", "penalty")] * 2)
    loss = evidence(exercise("loss"), [stub, stub], reaches=[CALLS])
    first, second = evaluate_exercises([penalty, loss])
    assert (first.status, second.status) == (Status.NOT_IMPLEMENTED, Status.NOT_IMPLEMENTED)
    assert second.summary == "`loss` calls your `penalty`, which still raises NotImplementedError: implement " \
                             "`penalty` first."
    none = raised("ValueError", "Attempt to convert a value (None)", "loss", "penalty")
    broken = evidence(exercise("penalty"), [none, none], Finding(
        "unwatched-tensor", "never watched", None, 33, "g = t.gradient(s, p)", headline="`p` is never watched",
        fix="watch `p`"))
    results = evaluate_exercises([evidence(exercise("loss"), [none, none], OWN, reaches=[CALLS]), broken])
    assert results[0].pitfalls == ["unwatched-tensor"] and results[0].explanations[0].fix == \
        "in `penalty`, which `loss` calls: watch `p`"  # the callee judged after it, as well
