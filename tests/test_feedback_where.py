"""Every named mistake points at its line, and an error is shown by its cause (nothing runs: hand-made evidence and
sources, the static reading for real).

- ``judge.static.lines``: the line a mistake's look names (a pattern that one line matches, or a role: the `def`,
  the last `return`, the returned value's line, what grad_fn returns), comments and docstrings left out;
- ``judge.frames``: a traceback frame as the child names it ("<cell [7]>", "<submission>") is a place in the
  submission; the old pattern `<cell (\\d+)>` matched no frame the kit writes;
- ``judge.pointing``: where no check located a named pitfall, the public case's traceback or the look places it, or
  the feedback says what to look for;
- ``judge.messages``: TensorFlow's sentence, not a tensor's repr, trimmed from the middle.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from autograder.judge.evaluate import evaluate_exercise
from autograder.judge.evidence import ExerciseEvidence
from autograder.judge.frames import deepest_place, frame_place
from autograder.judge.messages import headline, trimmed, without_values
from autograder.judge.static import FunctionReport
from autograder.judge.static.lines import locate
from autograder.load.cells import Cell, SubmissionSource
from autograder.model.course import Case, Exercise, Look, Mistake, Output
from autograder.model.outcomes import ErrorInfo, TaskOutcome, Value
from autograder.model.pitfalls import CATALOGUE
from autograder.report.feedback_text import feedback_text


def python(code: str) -> SubmissionSource:
    return SubmissionSource(Path("s.py"), "python", cells=[Cell(1, code, code)])


def notebook(*cells: str) -> SubmissionSource:
    return SubmissionSource(Path("s.ipynb"), "notebook", cells=[Cell(n, c, c) for n, c in enumerate(cells, start=1)])


SAFE_NORM = '''import tensorflow as tf


@tf.custom_gradient
def safe_norm(x):
    """Scaled: upstream * x would be wrong here."""
    scale = tf.reduce_max(tf.abs(x), axis=1)  # upstream * x in a comment is no code
    norm = scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))

    def grad_fn(upstream):
        return upstream * x / norm[:, None]

    return norm, grad_fn
'''


# --------------------------------------------------------------------------- the line a look names

def test_a_pattern_that_one_line_matches_names_that_line_and_comments_or_docstrings_do_not_count():
    found = locate(python(SAFE_NORM), "safe_norm", (r"upstream\s*\*",))
    assert (found.line.cell, found.line.line, found.line.code) == (None, 11, "return upstream * x / norm[:, None]")


def test_a_pattern_that_several_lines_match_gives_the_lines_to_look_at_and_the_next_pattern_may_name_one():
    source = python(SAFE_NORM)
    several = locate(source, "safe_norm", (r"reduce_(sum|max)\(",))
    assert several.line is None and [c.line for c in several.candidates] == [7, 8]
    assert locate(source, "safe_norm", (r"reduce_(sum|max)\(", r"tf\.abs")).line.line == 7


def test_places_by_their_role():
    source = python(SAFE_NORM)
    assert locate(source, "safe_norm", ("@def",)).line.line == 5
    assert locate(source, "safe_norm", ("@return",)).line.line == 13
    assert locate(source, "safe_norm", ("@value",)).line.line == 8  # `norm = ...`, what `return norm, grad_fn` returns
    assert locate(source, "safe_norm", ("@grad_fn",)).line.line == 11
    plain = python("def f(x):\n    y = x * 2\n    z = y + 1\n    return z\n")
    assert locate(plain, "f", ("@value",)).line.line == 3 and locate(plain, "f", ("@grad_fn",)).line is None
    nested = python("import tensorflow as tf\n\ndef clip(x, m):\n    @tf.custom_gradient\n    def inner(t):\n"
                    "        return tf.clip_by_norm(t, m), lambda dy: dy\n    return inner(x)\n")
    assert locate(nested, "clip", ("@value",)).line.line == 6 and locate(nested, "clip", ("@grad_fn",)).line.line == 6


def test_a_look_reads_the_functions_the_exercise_calls_in_other_cells_with_the_cells_numbers():
    source = notebook("import tensorflow as tf", "def helper(f, x):\n    return tf.hessians(f(x), x)[0]\n",
                      "def newton(f, x):\n    H = helper(f, x)\n    return x - H[0]\n")
    found = locate(source, "newton", (r"\bhessians?\(",))
    assert (found.line.cell, found.line.line) == (2, 2)
    assert locate(source, "missing", ("@def",)).line is None


# --------------------------------------------------------------------------- frames

def test_a_frame_the_child_names_is_a_place_in_the_submission_and_only_one_that_exists():
    source = notebook("import tensorflow as tf", "def f(x):\n    return x\n")
    assert frame_place(("<cell [2]>", 2, "f", "return x"), source) == (2, 2)
    assert frame_place(("<cell 2>", 2, "f", ""), source) is None  # the pattern the kit never writes
    assert frame_place(("<cell [2]>", 9, "f", ""), source) is None  # no such line
    assert frame_place(("<cell [7]>", 1, "f", ""), source) is None  # no such cell
    assert frame_place(("<submission>", 1, "f", ""), python("x = 1\n")) == (None, 1)
    assert frame_place(("<cell [1]>", 1, "f", ""), python("x = 1\n")) is None
    error = ErrorInfo("ValueError", "no", frames=(("<cell [2]>", 2, "f", "return x"),))
    assert deepest_place(error.frames, source) == (2, 2)  # where a public case raised (a hidden case's stays unsaid)


# --------------------------------------------------------------------------- the judge points at the line

OUTPUTS = (Output("value", "the value"), Output("gradient", "the gradient", gradient=True))


def ok(value, gradient) -> TaskOutcome:
    wrap = (lambda a: Value(None, "NoneType") if a is None else Value(np.asarray(a, float), "EagerTensor", "float32"))
    return TaskOutcome("ok", {"value": wrap(value), "gradient": wrap(gradient)})


RIGHT, WRONG = ok(2.0, 3.0), ok(2.0, 1.0)
CASES = [Case("sum", "loss = sum(y)", {"x": np.array(1.0)}, public=True),
         Case("weighted", "loss = sum(w * y)", {"x": np.array(2.0)}, public=True)]


def judged(source: SubmissionSource, exercise: Exercise, student, mistakes=()):
    return evaluate_exercise(ExerciseEvidence(
        exercise=exercise, cases=CASES, student=list(student), reference=[RIGHT, RIGHT],
        mistakes=[list(m) for m in mistakes] or [[None, None] for _ in exercise.mistakes],
        static=FunctionReport(exercise.id, True, None, 1, True, False, False, ()), defined=["x"],
        load_errors=[], source=source))


def test_a_matched_mistake_points_at_the_line_its_look_names_and_the_text_shows_it():
    model = Mistake("wrong-value", "upstream_axis", "upstream multiplies along the wrong axis", "use upstream[:, None]",
                    look=Look((r"upstream\w*\s*\*", "@grad_fn"), "upstream lines up with the columns here"))
    result = judged(python(SAFE_NORM), Exercise("safe_norm", ("x",), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS,
                                                mistakes=(model,)), [RIGHT, WRONG], mistakes=[[RIGHT, WRONG]])
    where = result.explanations[0].where
    assert (where.place, where.line, where.code) == ("line 11", 11, "return upstream * x / norm[:, None]")
    assert "  Where: line 11: `return upstream * x / norm[:, None]`" in feedback_text(result)


def test_where_no_line_can_be_named_the_feedback_says_what_to_look_for():
    model = Mistake("wrong-value", "p_only", "your function returns p", "return x + p",
                    look=Look((r"no such code",), look_for="the value your function returns"))
    result = judged(python(SAFE_NORM), Exercise("safe_norm", ("x",), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS,
                                                mistakes=(model,)), [RIGHT, WRONG], mistakes=[[RIGHT, WRONG]])
    assert result.explanations[0].where is None and "  Look for: the value your function returns" in \
        feedback_text(result)


KERAS_WATCH = ("Passed in object <Variable path=sequential/dense/kernel, shape=(3, 2), dtype=float32, value=[[ "
               "1.0191553  -0.2524178 ]\n [ 0.22356641 -0.5900524 ]\n [-0.16486639  0.32693458]]> of type 'Variable', "
               "not tf.Tensor or tf.Variable or ExtensionType.")
PER_EXAMPLE = ("import tensorflow as tf\n",
               "def per_example_gradients(model, loss_fn, x, y):\n    with tf.GradientTape() as tape:\n"
               "        tape.watch(model.trainable_variables)\n        losses = loss_fn(y, model(x))\n"
               "    return tape.jacobian(losses, model.trainable_variables)\n")


def test_a_watched_keras_variable_is_named_at_the_line_the_public_case_raised_on_in_the_notebooks_numbering():
    error = ErrorInfo("ValueError", KERAS_WATCH, "builtins", frames=(("<cell [2]>", 3, "per_example_gradients",
                                                                       "tape.watch(model.trainable_variables)"),))
    raised = TaskOutcome("error", error=error)
    exercise = Exercise("per_example_gradients", ("x",), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS)
    result = judged(notebook(*PER_EXAMPLE), exercise, [raised, raised])
    assert result.pitfalls == ["watched-keras-variable"]
    text = feedback_text(result)
    assert "  Where: cell [2], line 3: `tape.watch(model.trainable_variables)`" in text, text
    assert "not tf.Tensor or tf.Variable or ExtensionType" in text and "0.2235" not in text, text  # the cause, no values
    hidden = [Case(c.id, c.description, c.args, public=False) for c in CASES]
    quiet = evaluate_exercise(ExerciseEvidence(
        exercise=exercise, cases=hidden, student=[raised, raised], reference=[RIGHT, RIGHT], mistakes=[],
        static=FunctionReport(exercise.id, True, 2, 2, True, False, False, ()), defined=["x"], load_errors=[],
        source=notebook(*PER_EXAMPLE)))
    assert quiet.pitfalls == []  # a hidden case's message is the code's own words: never read for a name


@pytest.mark.parametrize("pitfall", [p for p, entry in CATALOGUE.items() if entry.raised_on_its_line])
def test_a_pitfall_raised_on_its_line_is_placed_by_the_public_cases_traceback(pitfall):
    messages = {"non-persistent-tape": "A non-persistent GradientTape can only be used to compute one set of "
                                       "gradients (or jacobians)",
                "pfor-unsupported": "Encountered an exception while vectorizing the jacobian computation.",
                "watched-keras-variable": KERAS_WATCH}
    frame = ("<cell [2]>", 5, "per_example_gradients", "return tape.jacobian(losses, model.trainable_variables)")
    raised = TaskOutcome("error", error=ErrorInfo("ValueError", messages[pitfall], frames=(frame,)))
    cases = [Case("a", "case a", {}, public=True, tags=frozenset({"pfor"}))]
    exercise = Exercise("per_example_gradients", ("x",), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS)
    result = evaluate_exercise(ExerciseEvidence(
        exercise=exercise, cases=cases, student=[raised], reference=[RIGHT], mistakes=[],
        static=FunctionReport(exercise.id, True, 2, 2, True, False, False, ()), defined=["x"], load_errors=[],
        source=notebook(*PER_EXAMPLE)))
    assert result.pitfalls == [pitfall]
    assert result.explanations[0].where.place == "cell [2], line 5", result.explanations[0]


# --------------------------------------------------------------------------- the cause of an error

def test_tensorflows_sentence_is_shown_without_the_values_in_its_reprs():
    said = headline(ErrorInfo("ValueError", KERAS_WATCH))
    assert said == ("Passed in object <Variable path=sequential/dense/kernel, shape=(3, 2), dtype=float32, …> of type "
                    "'Variable', not tf.Tensor or tf.Variable or ExtensionType.")
    tensor = "Expected a scalar, got tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32) instead"
    assert headline(ErrorInfo("TypeError", tensor)) == ("Expected a scalar, got tf.Tensor(…, shape=(2, 2), "
                                                        "dtype=float32) instead")
    assert without_values("got array([[1, 2],\n       [3, 4]], dtype=int32)") == "got array(…)"
    op = "{{function_node __wrapped__MatMul_device_/job:localhost/replica:0/task:0/device:CPU:0}} Matrix size-" \
         "incompatible: In[0]: [2,3], In[1]: [4,5] [Op:MatMul] name: "
    assert headline(ErrorInfo("InvalidArgumentError", op)).startswith("Matrix size-incompatible: In[0]: [2,3]")
    assert headline(ErrorInfo("KeyError", "'x'\nmore")) == "'x'"


def test_a_long_message_is_trimmed_from_its_middle_so_its_end_still_shows():
    message = "Shapes differ: " + "x" * 1000 + " expected (3, 2)"
    said = headline(ErrorInfo("ValueError", message))
    assert len(said) <= 300 and said.startswith("Shapes differ: ") and said.endswith("expected (3, 2)") and "…" in said
    assert trimmed("short") == "short"


# --------------------------------------------------------------------------- round four's gaps, named

def test_a_tape_kept_as_an_attribute_and_used_after_its_block_is_found_and_a_right_one_is_not():
    from autograder.judge.static import analyze

    wrong = python("import tensorflow as tf\n\nclass HVP:\n    def __call__(self, f, x, v):\n"
                   "        with tf.GradientTape() as self.outer:\n            self.outer.watch(x)\n"
                   "            with tf.GradientTape() as self.inner:\n                self.inner.watch(x)\n"
                   "                y = f(x)\n        g = self.inner.gradient(y, x)\n"
                   "        return self.outer.gradient(tf.reduce_sum(g * v), x)\n\n"
                   "def hessian_vector_product(f, x, v):\n    return HVP()(f, x, v)\n")
    found = [f for f in analyze(wrong, "hessian_vector_product", strict=True).findings
             if f.pitfall == "tape-outside-context"]
    assert [(f.line, f.code) for f in found] == [(10, "g = self.inner.gradient(y, x)")]
    assert "`self.outer`" in found[0].headline
    right = python(wrong.cells[0].code.replace("        g = self.inner.gradient(y, x)\n        return",
                                               "            g = self.inner.gradient(y, x)\n            s = tf.reduce_sum(g * v)\n        return")
                   .replace("self.outer.gradient(tf.reduce_sum(g * v), x)", "self.outer.gradient(s, x)"))
    assert analyze(right, "hessian_vector_product", strict=True).findings == ()


def test_pfor_failures_of_every_type_name_pfor_unsupported_and_a_tf_function_is_said_to_be_the_graph():
    messages = ["'SymbolicTensor' object has no attribute 'numpy'",
                "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt ..."]
    cases = [Case("p", "pfor case", {}, public=True, tags=frozenset({"pfor"})), Case("q", "plain", {}, public=True)]
    exercise = Exercise("robust_jacobian", ("f", "x"), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS)
    eager = python("def robust_jacobian(f, x):\n    return tape.jacobian(y, x)\n")
    graph = python("import tensorflow as tf\n\n@tf.function\ndef robust_jacobian(f, x):\n    return 1\n")
    narrow = python("def robust_jacobian(f, x):\n    try:\n        return tape.jacobian(y, x)\n    except ValueError:\n"
                    "        return tape.jacobian(y, x, experimental_use_pfor=False)\n")
    for message, kind in zip(messages, ("AttributeError", "OperatorNotAllowedInGraphError")):
        raised = TaskOutcome("error", error=ErrorInfo(kind, message, frames=(("<submission>", 2, "f", ""),)))
        for source, said in ((eager, "pfor vectorizer is relied on"), (narrow, "catches only ValueError"),
                             (graph, "runs in a graph (`tf.function`")):
            result = evaluate_exercise(ExerciseEvidence(
                exercise=exercise, cases=cases, student=[raised, RIGHT], reference=[RIGHT, RIGHT], mistakes=[],
                static=FunctionReport(exercise.id, True, None, 1, True, False, False, ()), defined=["f", "x"],
                load_errors=[], source=source))
            assert result.pitfalls == ["pfor-unsupported"] and said in result.explanations[0].text, result
    assert result.explanations[0].where.line == 3  # the decorator's line


def test_a_mistake_model_that_is_wrong_where_the_student_is_right_is_not_the_students_mistake():
    """A squeezed Jacobian is the summed gradient where f has one output; where f has several, the summed
    gradient is wrong and the squeezed one right: the student who passes there did not sum."""
    summed = Mistake("summed-gradient", "summed", "you summed", "use jacobian")
    squeezed = Mistake("wrong-value", "squeezed", "you squeezed", "keep the shape")
    exercise = Exercise("jacobian", ("x",), 2.0, lambda rng: [], lambda f, a: {}, OUTPUTS, mistakes=(summed, squeezed))
    several, one = Case("several", "m = 3", {}, public=True), Case("one", "m = 1", {}, public=True)
    result = evaluate_exercise(ExerciseEvidence(
        exercise=exercise, cases=[several, one], student=[RIGHT, WRONG], reference=[RIGHT, RIGHT],
        mistakes=[[ok(2.0, 9.0), WRONG], [RIGHT, WRONG]],
        static=FunctionReport(exercise.id, True, None, 1, True, False, False, ()), defined=["x"], load_errors=[],
        source=python("def jacobian(x):\n    return x\n")))
    assert result.pitfalls == ["wrong-value"] and result.explanations[0].text == "you squeezed"
