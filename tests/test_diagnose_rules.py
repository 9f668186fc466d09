"""The judge's rules on hand-made evidence: each rule names its pitfall from numbers and reading, nothing runs.

An exercise is described as the course describes one (autograder.model.course); outcomes are what a child
would have reported; the static reading is a FunctionReport as autograder.judge.static makes one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from autograder.judge.evaluate import evaluate_exercise
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.static import Finding, FunctionReport
from autograder.load.cells import Cell, SubmissionSource
from autograder.model.course import Case, Exercise, Mistake, Output
from autograder.model.outcomes import ErrorInfo, TaskOutcome, Value
from autograder.model.results import Status

OUTPUTS = (Output("value", "the value", check_dtype=True), Output("gradient", "the gradient", gradient=True))
CODE = "def f(x):\n    y = x.numpy()\n    return y\n"
SOURCE = SubmissionSource(Path("s.ipynb"), "notebook", cells=[Cell(5, CODE, CODE)])


def case(id_: str, *tags: str, x=1.0, variable: bool = False, public: bool = False) -> Case:
    return Case(id_, f"case {id_}", {"x": np.array(x), **({"variable": True} if variable else {})},
                tags=frozenset(tags), public=public)


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
    result = judge(exercise(), [case("a", public=True)], [raised("RuntimeError", message)], [RIGHT])
    assert result.status == Status.ERROR and result.pitfalls == ["non-persistent-tape"]
    # The same words from a hidden case name nothing: a hidden error's message is its code's choice.
    assert judge(exercise(), [case("a")], [raised("RuntimeError", message)], [RIGHT]).pitfalls == []


def test_pfor_is_named_only_when_the_pfor_cases_alone_fail_with_its_error():
    cases = [case("a", "pfor", public=True), case("b")]
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


def test_inf_or_nan_for_tensors_and_right_for_the_same_variables_is_an_unwatched_tensor():
    """A None turned into zeros (`unconnected_gradients=ZERO`), then divided by: inf / NaN for the Tensor, right for
    the Variable. The numbers are also a tape-outside-context model's; the twins decide, not the model."""
    outside = Mistake("tape-outside-context", "zero_products", "the outer tape never recorded it", "move it inside")
    cases = [case("t", "tensor", x=2.0), case("v", "variable", x=2.0, variable=True)]
    nan = ok(float("nan"), 3.0)
    result = judge(exercise(outside), cases, [nan, RIGHT], [RIGHT, RIGHT], mistakes=[[nan, nan]])
    assert result.pitfalls == ["unwatched-tensor"]
    # Wrong for both: not a watch; the model's numbers, and the source shows a cut, not a block left too early.
    cut = report(Finding("gradient-cut", "`.numpy()` cuts it", 5, 2, "y = x.numpy()"))
    result = judge(exercise(outside), cases, [nan, nan], [RIGHT, RIGHT], mistakes=[[nan, nan]], static=cut)
    assert result.pitfalls == ["gradient-cut"]


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


def test_a_failed_allocation_at_scale_in_a_students_kernel_is_a_materialised_matrix_too():
    """The public checks run in the student's process: a MemoryError there is an error, not the sandbox's memory
    verdict, and must name the same pitfall."""
    ex = exercise(materialized_pitfall="materialized-hessian")
    too_large = raised("MemoryError", "an (100000, 100000) tensor (40 GB in float32) could not be built")
    result = judge(ex, [case("small"), case("big", "scale")], [RIGHT, too_large], [RIGHT, RIGHT])
    assert result.status == Status.PARTIAL and result.pitfalls == ["materialized-hessian"]
    assert judge(ex, [case("small"), case("big", "scale")], [RIGHT, raised("KeyError")], [RIGHT, RIGHT]).pitfalls == []


def test_autographs_not_implemented_error_is_an_error_of_written_code_not_the_stub():
    traced = raised("NotImplementedError", "in user code:\n\n    File \"<cell 4>\", line 9, in step  *\n"
                                           "NotImplementedError: break and return statements which depend on a "
                                           "TF condition are not supported in Python for loops.")
    result = judge(exercise(), [case("a")], [traced], [RIGHT])
    assert (result.status, result.pitfalls) == (Status.ERROR, [])
    # a hidden case: one of the fixed kinds (an error), never the stub's "raises NotImplementedError"
    assert result.cases[0].message.startswith("an error (it raised")
    assert "break and return statements" not in result.cases[0].message
    public = judge(exercise(), [case("a", public=True)], [traced], [RIGHT])
    assert (public.status, public.pitfalls) == (Status.ERROR, []) and "break and return" in public.cases[0].message


def test_statuses_when_nothing_passes():
    cases = [case("a", public=True), case("b")]
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
    public = Case("a", "case a", {"x": np.array(1.0)}, public=True)
    result = judge(exercise(), [public, case("b")], [none, none], [RIGHT, RIGHT], static=report(unwatched))
    assert result.pitfalls == ["unwatched-tensor"] and result.status == Status.ERROR
    assert result.cases[1].message.endswith(
        "the public case above fails the same way: its feedback shows the details")
    text = result.explanations[0].text
    assert "is its consequence" in text and "Attempt to convert a value (None)" in text
    assert result.explanations[0].where.line == 2
    # Raised on hidden cases only: their messages are the student's code's choice, so they name nothing.
    hidden = judge(exercise(), [case("a"), case("b")], [none, none], [RIGHT, RIGHT], static=report(unwatched))
    assert hidden.pitfalls == [] and not hidden.explanations
    other = raised("ValueError", "Shapes (2,) and (3,) are incompatible")
    assert judge(exercise(), [case("a")], [other], [RIGHT], static=report(unwatched)).pitfalls == []


def test_advice_costs_nothing_and_comes_once_the_graded_cases_pass():
    from autograder.model.course import ADVISORY

    beyond = Case("f64", "a float64 x", {"x": np.array(1.0)}, dtype="float64", kind=ADVISORY,
                  advice="your f does not keep float64")
    result = judge(exercise(), [case("a"), beyond], [RIGHT, raised("TypeError", "float32 expected")], [RIGHT, RIGHT])
    assert (result.status, result.score, result.pitfalls, result.cases_total) == (Status.PASSED, 2.0, [], 1)
    assert [(a.case_id, a.text, a.happened) for a in result.advice] == [
        ("f64", "your f does not keep float64", "an error (it raised, or its process stopped)")]  # hidden: a kind
    wrong = judge(exercise(), [case("a"), beyond], [ok(9.0, 3.0), raised("TypeError", "x")], [RIGHT, RIGHT])
    assert wrong.advice == [] and wrong.cases_total == 1


def test_an_errors_headline_is_what_went_wrong():
    from autograder.judge.cases import headline

    traced = ErrorInfo("ValueError", 'in user code:\n\n    File "<cell 3>", line 5, in f  *\n        return '
                       "tf.reshape(y, [3])\n\n    ValueError: Cannot reshape a tensor with 2 elements to shape [3]\n")
    assert headline(traced) == "Cannot reshape a tensor with 2 elements to shape [3]"
    assert "output limit" in headline(ErrorInfo("OSError", "[Errno 27] File too large"))
    assert headline(ErrorInfo("KeyError", "'x'\nmore")) == "'x'"


def test_nan_where_the_reference_is_zero_on_a_zero_row_case_is_nan_at_zero():
    # A zero row: the reference's value and gradient are 0 there; the student's gradient is NaN there only.
    cases = [case("plain"), case("zero", "zero")]
    zero_row = ok([0.0, 3.0], [[0.0, 0.0], [0.6, 0.8]])
    nan_row = ok([0.0, 3.0], [[np.nan, np.nan], [0.6, 0.8]])
    assert judge(exercise(), cases, [RIGHT, nan_row], [RIGHT, zero_row]).pitfalls == ["nan-at-zero"]
    # NaN where the reference is not 0 is something else; so is a NaN on a case without a zero row.
    everywhere = ok([0.0, 3.0], [[np.nan, np.nan], [np.nan, 0.8]])
    assert judge(exercise(), cases, [RIGHT, everywhere], [RIGHT, zero_row]).pitfalls == ["wrong-value"]
    untagged = [case("plain"), case("zero")]
    assert judge(exercise(), untagged, [RIGHT, nan_row], [RIGHT, zero_row]).pitfalls == ["wrong-value"]


def test_a_gradient_that_fails_only_with_its_value_is_the_values_mistake_where_grad_fn_divides_by_it():
    cases = [case("small"), case("big", "large"), case("tiny", "large")]
    both = [RIGHT, ok(np.inf, 0.0), ok(0.0, 9.0)]
    assert judge(exercise(), cases, both, [RIGHT] * 3).pitfalls == ["unstable-value", "unstable-gradient"]
    assert judge(exercise(gradient_uses_value=True), cases, both, [RIGHT] * 3).pitfalls == ["unstable-value"]
    gradient_alone = [RIGHT, ok(np.inf, 0.0), ok(2.0, 9.0)]  # tiny: the value is right and the gradient is not
    assert judge(exercise(gradient_uses_value=True), cases, gradient_alone, [RIGHT] * 3).pitfalls == [
        "unstable-value", "unstable-gradient"]
    model = Mistake("wrong-value", "f_threshold", "a threshold guard", "guard 0 only", cases=lambda c: c.has("large"))
    tiny_wrong = ok(2.0, 0.0)
    named = judge(exercise(model, gradient_uses_value=True), cases, [RIGHT, RIGHT, tiny_wrong], [RIGHT] * 3,
                  mistakes=[[None, RIGHT, tiny_wrong]])
    assert named.pitfalls == ["wrong-value"] and "a threshold guard" in named.explanations[0].text


def test_a_relative_output_holds_every_element_to_its_own_size():
    from autograder.judge.compare import compare

    norm = Output("value", "the norm of each row", relative=True)
    expected = Value(np.array([5e30, 5e-30, 0.0, 3.0]), "EagerTensor", "float32")
    assert compare(Value(np.array([5.001e30, 5.001e-30, 0.0, 3.001]), "EagerTensor", "float32"), expected, norm,
                   2e-3, 1e-5).ok
    underflow = compare(Value(np.array([5e30, 0.0, 0.0, 3.0]), "EagerTensor", "float32"), expected, norm, 2e-3, 1e-5)
    assert not underflow.ok and "1 / 4 elements differ" in underflow.message
    epsilon = compare(Value(np.array([5e30, 5e-30, 1e-6, 3.0]), "EagerTensor", "float32"), expected, norm, 2e-3, 1e-5)
    assert not epsilon.ok  # an exact 0 is held to 0
    plain = Output("value", "the value")
    assert compare(Value(np.array([5e30, 0.0, 1e-6, 3.0]), "EagerTensor", "float32"), expected, plain, 2e-3, 1e-5).ok


METHOD_OUTPUTS = (Output("value", "the value"), Output("batched", "whether the model ran on the batch", exact=True,
                                                       method=True))


def method(value, batched) -> TaskOutcome:
    return TaskOutcome("ok", {"value": Value(np.asarray(value, float), "EagerTensor", "float32"),
                              "batched": Value(np.asarray(float(batched)), "bool", "bool")})


def test_right_numbers_by_the_wrong_method_keep_their_cases_capped_at_half():
    """Output.method (per_example_gradients's `batched`): a case wrong only there keeps its points, and the
    exercise keeps at most half; the mistake model that compares that output alone names the pitfall."""
    loop = Mistake("per-example-loop", "loop", "a loop", "one Jacobian", outputs=("batched",))
    ex = Exercise("f", ("x",), 2.0, make_cases=lambda rng: [], probe=lambda fn, args: {}, outputs=METHOD_OUTPUTS,
                  mistakes=(loop,))
    cases = [case(c) for c in "abcd"]
    reference = [method(1.0, True)] * 4
    mistakes = [[method(1.0, False)] * 4]
    right_by_loop = judge(ex, cases, [method(1.0, False)] * 4, reference, mistakes)
    assert (right_by_loop.status, right_by_loop.score, right_by_loop.pitfalls) == (Status.PARTIAL, 1.0,
                                                                                   ["per-example-loop"])
    assert "capped at half" in right_by_loop.summary
    one_wrong = judge(ex, cases, [method(5.0, False)] + [method(1.0, False)] * 3, reference, mistakes)
    assert one_wrong.score == 1.0  # 3 of 4 cases keep their points (1.5), capped at 1
    three_wrong = judge(ex, cases, [method(5.0, False)] * 3 + [method(1.0, False)], reference, mistakes)
    assert three_wrong.score == 0.5 and three_wrong.pitfalls == ["per-example-loop"]
    right = judge(ex, cases, reference, reference, mistakes)
    assert (right.status, right.score, right.pitfalls) == (Status.PASSED, 2.0, [])


def test_right_gradients_in_another_order_are_said_to_be_in_another_order():
    outputs = tuple(Output(f"grad_{k}", f"gradient {k}", gradient=True, none_means_zero=True) for k in range(3))
    ex = Exercise("f", ("x",), 2.0, make_cases=lambda rng: [], probe=lambda fn, args: {}, outputs=outputs)

    def grads(*arrays) -> TaskOutcome:
        return TaskOutcome("ok", {f"grad_{k}": Value(np.asarray(a, float), "EagerTensor", "float32")
                                  for k, a in enumerate(arrays)})

    first, second, third = [[1.0, 2.0]], [[3.0], [4.0]], [[5.0, 6.0]]
    reference = [grads(first, second, third)]
    swapped = judge(ex, [case("a")], [grads(third, second, first)], reference)
    assert swapped.pitfalls == ["wrong-value"] and "not in the order" in swapped.explanations[0].text
    wrong = judge(ex, [case("a")], [grads(third, second, [[0.0, 6.0]])], reference)
    assert wrong.pitfalls == ["wrong-value"] and not wrong.explanations
