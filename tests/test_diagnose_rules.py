"""The judge's rules on hand-made evidence: each rule names its pitfall from numbers and reading, nothing runs.

An exercise is described as the course describes one (autograder.model.course); outcomes are what a child
would have reported; the static reading is a FunctionReport as autograder.judge.static makes one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from autograder.judge.evaluate import ExerciseEvidence, evaluate_exercise
from autograder.judge.static import Finding, FunctionReport
from autograder.load.cells import Cell, SubmissionSource
from autograder.model.course import Case, Exercise, Mistake, Output
from autograder.model.outcomes import ErrorInfo, TaskOutcome, Value
from autograder.model.results import Status

OUTPUTS = (Output("value", "the value", check_dtype=True), Output("gradient", "the gradient", gradient=True))
CODE = "def f(x):\n    y = x.numpy()\n    return y\n"
SOURCE = SubmissionSource(Path("s.ipynb"), "notebook", cells=[Cell(5, CODE, CODE)])


def case(id_: str, *tags: str, x=1.0, variable: bool = False) -> Case:
    return Case(id_, f"case {id_}", {"x": np.array(x), **({"variable": True} if variable else {})},
                tags=frozenset(tags))


def ok(value, gradient, dtype="float32") -> TaskOutcome:
    wrap = (lambda a: Value(None, "NoneType") if a is None else Value(np.asarray(a, float), "EagerTensor", dtype))
    return TaskOutcome("ok", {"value": wrap(value), "gradient": wrap(gradient)})


def raised(type_: str, message: str = "") -> TaskOutcome:
    return TaskOutcome("error", error=ErrorInfo(type_, message))


def exercise(*mistakes: Mistake, **options) -> Exercise:
    return Exercise("f", ("x",), 2.0, make_cases=lambda rng: [], probe=lambda fn, args: {}, outputs=OUTPUTS,
                    mistakes=mistakes, **options)


def report(*findings: Finding, custom_gradient: bool = True) -> FunctionReport:
    return FunctionReport("f", True, 5, 1, custom_gradient, False, False, findings)


def judge(ex: Exercise, cases, student, reference, mistakes=(), static=None, defined=("x",)):
    return evaluate_exercise(ExerciseEvidence(
        exercise=ex, cases=list(cases), student=list(student), reference=list(reference),
        mistakes=[list(m) for m in mistakes] or [[None] * len(cases) for _ in ex.mistakes],
        static=static or report(), defined=list(defined) if defined is not None else None, load_errors=[],
        source=SOURCE))


RIGHT = ok(2.0, 3.0)


def test_all_cases_right_is_full_marks_and_no_pitfall():
    result = judge(exercise(), [case("a"), case("b")], [RIGHT, RIGHT], [RIGHT, RIGHT])
    assert (result.status, result.score, result.pitfalls, result.summary) == (Status.PASSED, 2.0, [],
                                                                              "All 2 cases passed.")


def test_a_second_gradient_on_a_tape_is_named_from_tensorflows_message():
    message = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
    result = judge(exercise(), [case("a")], [raised("RuntimeError", message)], [RIGHT])
    assert result.status == Status.ERROR and result.pitfalls == ["non-persistent-tape"]


def test_pfor_is_named_only_when_the_pfor_cases_alone_fail_with_its_error():
    cases = [case("a", "pfor"), case("b")]
    pfor = raised("ValueError", "Encountered an exception while vectorizing the jacobian computation")
    assert judge(exercise(), cases, [pfor, RIGHT], [RIGHT, RIGHT]).pitfalls == ["pfor-unsupported"]
    assert "pfor-unsupported" not in judge(exercise(), cases, [pfor, raised("ValueError")], [RIGHT, RIGHT]).pitfalls


def test_out_of_memory_at_scale_and_right_when_small_is_a_materialised_matrix():
    ex = exercise(materialized_pitfall="materialized-hessian")
    memory = TaskOutcome("memory", message="memory limit of 2 GiB exceeded")
    result = judge(ex, [case("small"), case("big", "scale")], [RIGHT, memory], [RIGHT, RIGHT])
    assert result.status == Status.PARTIAL and result.pitfalls == ["materialized-hessian"]
    assert judge(ex, [case("small"), case("big", "scale")], [raised("E"), memory], [RIGHT, RIGHT]).pitfalls == []


def test_a_mistake_model_is_named_when_it_explains_every_wrong_case_and_tells_one_apart():
    model = Mistake("ignores-upstream", "f_ignores_upstream", "your grad_fn drops upstream", "multiply by it")
    wrong = ok(2.0, 1.0)
    cases = [case("sum"), case("weighted")]
    # On "sum" the model is right (it equals the reference); on "weighted" it differs, as the student does.
    result = judge(exercise(model), cases, [RIGHT, wrong], [RIGHT, RIGHT], mistakes=[[RIGHT, wrong]])
    assert result.pitfalls == ["ignores-upstream"]
    assert result.explanations[0].text == "your grad_fn drops upstream" and result.explanations[0].fix == "multiply by it"
    other = judge(exercise(model), cases, [RIGHT, ok(2.0, 7.0)], [RIGHT, RIGHT], mistakes=[[RIGHT, wrong]])
    assert other.pitfalls == ["wrong-value"]  # numbers that match no model: the generic pitfall
    uninformative = judge(exercise(model), cases, [RIGHT, wrong], [RIGHT, RIGHT], mistakes=[[RIGHT, RIGHT]])
    assert "ignores-upstream" not in uninformative.pitfalls


def test_none_for_tensors_and_right_for_the_same_variables_is_an_unwatched_tensor():
    cases = [case("t", "tensor", x=2.0), case("v", "variable", x=2.0, variable=True)]
    result = judge(exercise(), cases, [ok(2.0, None), RIGHT], [RIGHT, RIGHT])
    assert result.pitfalls == ["unwatched-tensor"] and result.status == Status.PARTIAL
    other_data = [case("t", "tensor", x=2.0), case("v", "variable", x=5.0, variable=True)]
    assert "unwatched-tensor" not in judge(exercise(), other_data, [ok(2.0, None), RIGHT], [RIGHT, RIGHT]).pitfalls


def test_wrong_only_at_large_inputs_is_an_overflow_of_what_is_wrong():
    cases = [case("small"), case("big", "large")]
    value = judge(exercise(), cases, [RIGHT, ok(np.inf, 3.0)], [RIGHT, RIGHT])
    assert value.pitfalls == ["unstable-value"]
    gradient = judge(exercise(), cases, [RIGHT, ok(2.0, np.nan)], [RIGHT, RIGHT])
    assert gradient.pitfalls == ["unstable-gradient"]


def test_a_gradient_that_does_not_flow_is_located_by_the_static_reading():
    cut = Finding("gradient-cut", "`x.numpy()` on line 2 turns the tensor into a NumPy array", 5, 2, "y = x.numpy()")
    result = judge(exercise(), [case("a")], [ok(2.0, None)], [RIGHT], static=report(cut))
    assert result.pitfalls == ["gradient-cut"]
    where = result.explanations[0].where
    assert (where.place, where.cell, where.line, where.code) == ("cell [5], line 2", 5, 2, "y = x.numpy()")
    assert where.excerpt == ((1, "def f(x):"), (2, "    y = x.numpy()"), (3, "    return y"))
    tape = Finding("tape-outside-context", "the gradient is taken after the block", 5, 3, "return y")
    both = judge(exercise(), [case("a")], [ok(2.0, None)], [RIGHT], static=report(cut, tape))
    assert both.pitfalls == ["tape-outside-context"]  # the tape's finding explains the None first
    assert judge(exercise(), [case("a")], [ok(2.0, None)], [RIGHT]).pitfalls == ["wrong-value"]  # no reading: no place


def test_a_stop_gradient_that_is_the_point_of_the_exercise_is_no_evidence_of_a_cut():
    stop = Finding("gradient-cut", "`tf.stop_gradient(t)` blocks the gradient", 5, 2, "t = tf.stop_gradient(t)")
    intended = exercise(stop_gradient_expected=True)
    assert judge(intended, [case("a")], [ok(2.0, 0.0)], [RIGHT], static=report(stop)).pitfalls == ["wrong-value"]
    assert judge(exercise(), [case("a")], [ok(2.0, 0.0)], [RIGHT], static=report(stop)).pitfalls == ["gradient-cut"]


def test_right_numbers_without_custom_gradient_keep_half_the_points():
    ex = exercise(requires_custom_gradient=True)
    result = judge(ex, [case("a")], [RIGHT], [RIGHT], static=report(custom_gradient=False))
    assert (result.status, result.score, result.pitfalls) == (Status.PARTIAL, 1.0, ["no-custom-gradient"])


def test_statuses_when_nothing_passes():
    cases = [case("a"), case("b")]
    stub = raised("NotImplementedError")
    not_implemented = judge(exercise(), cases, [stub, stub], [RIGHT, RIGHT])
    assert (not_implemented.status, not_implemented.pitfalls) == (Status.NOT_IMPLEMENTED, ["not-implemented"])
    slow = TaskOutcome("timeout", message="timeout after 20 s in f")
    assert judge(exercise(), cases, [slow, TaskOutcome("not-run")], [RIGHT, RIGHT]).status == Status.TIMEOUT
    assert judge(exercise(), cases, [raised("KeyError"), slow], [RIGHT, RIGHT]).status == Status.FAILED
    assert judge(exercise(), cases, [raised("KeyError"), stub], [RIGHT, RIGHT]).status == Status.ERROR
    assert judge(exercise(), cases, [ok(0.0, 3.0), raised("KeyError")], [RIGHT, RIGHT]).status == Status.FAILED


def test_a_missing_function_and_a_signature_that_differs():
    missing = judge(exercise(), [case("a")], [None], [RIGHT], defined=None)
    assert missing.status == Status.MISSING and "`def f(x):`" in missing.summary
    renamed = judge(exercise(), [case("a")], [RIGHT], [RIGHT], defined=("t",))
    assert renamed.status == Status.PASSED and renamed.notes == [
        "`f` takes (t) but the exercise asks for `f(x)`."]


def test_feedback_shows_two_failing_cases_and_counts_the_rest_hidden_ones_without_values():
    cases = [Case(f"c{i}", f"case {i}", {"x": np.array(1.0)}, public=i == 0) for i in range(4)]
    result = judge(exercise(), cases, [ok(5.0, 3.0)] * 4, [RIGHT] * 4)
    assert [c.case_id for c in result.cases] == ["c0", "c1"] and result.more_failing == 2
    assert "5" in result.cases[0].message and "obtained" not in result.cases[1].message


def test_an_error_that_a_none_raised_further_on_is_named_at_its_cause():
    unwatched = Finding("unwatched-tensor", "`tape.gradient(...)` on line 2 differentiates with respect to `y`, which "
                        "`tape` never watches", 5, 2, "g = tape.gradient(s, y)")
    none = raised("ValueError", "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>)")
    result = judge(exercise(), [case("a"), case("b")], [none, none], [RIGHT, RIGHT], static=report(unwatched))
    assert result.pitfalls == ["unwatched-tensor"] and result.status == Status.ERROR
    text = result.explanations[0].text
    assert "is its consequence" in text and "Attempt to convert a value (None)" in text
    assert result.explanations[0].where.line == 2
    other = raised("ValueError", "Shapes (2,) and (3,) are incompatible")
    assert judge(exercise(), [case("a")], [other], [RIGHT], static=report(unwatched)).pitfalls == []


def test_advice_costs_nothing_and_comes_once_the_graded_cases_pass():
    from autograder.model.course import ADVISORY

    beyond = Case("f64", "a float64 x", {"x": np.array(1.0)}, dtype="float64", kind=ADVISORY,
                  advice="your f does not keep float64")
    result = judge(exercise(), [case("a"), beyond], [RIGHT, raised("TypeError", "float32 expected")], [RIGHT, RIGHT])
    assert (result.status, result.score, result.pitfalls, result.cases_total) == (Status.PASSED, 2.0, [], 1)
    assert [(a.case_id, a.text, a.happened) for a in result.advice] == [
        ("f64", "your f does not keep float64", "raised TypeError: float32 expected")]
    wrong = judge(exercise(), [case("a"), beyond], [ok(9.0, 3.0), raised("TypeError", "x")], [RIGHT, RIGHT])
    assert wrong.advice == [] and wrong.cases_total == 1


def test_an_errors_headline_is_what_went_wrong():
    from autograder.judge.cases import headline

    traced = ErrorInfo("ValueError", 'in user code:\n\n    File "<cell 3>", line 5, in f  *\n        return '
                       "tf.reshape(y, [3])\n\n    ValueError: Cannot reshape a tensor with 2 elements to shape [3]\n")
    assert headline(traced) == "Cannot reshape a tensor with 2 elements to shape [3]"
    assert "output limit" in headline(ErrorInfo("OSError", "[Errno 27] File too large"))
    assert headline(ErrorInfo("KeyError", "'x'\nmore")) == "'x'"
