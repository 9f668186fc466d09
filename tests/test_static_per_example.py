"""The static reading of per_example_gradients: a model called in a loop is located, correct styles stay silent.

No TensorFlow here: the module only parses source. Whether a loop goes over the examples is for the numbers
to say (the probe counts the model's calls, tests/submissions/jacobians/); this is only where.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograder.judge.static import analyze
from autograder.load.cells import Cell, SubmissionSource


def source(text: str) -> SubmissionSource:
    body = textwrap.dedent(text).lstrip("\n")
    return SubmissionSource(Path("submission.py"), "python", cells=[Cell(index=1, source=body, code=body)])


def found(text: str, pitfall: str = "per-example-loop"):
    report = analyze(source(text), "per_example_gradients", strict=True)
    assert report.defined
    return [f for f in report.findings if f.pitfall == pitfall]


LOOPS = {  # name -> (code, the line of the model call the finding points at, words its message must hold)
    "for": ("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            rows = []
            for i in range(x.shape[0]):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i:i + 1], model(x[i:i + 1]))
                rows.append(tape.gradient(loss, model.trainable_variables))
            return [tf.stack(c) for c in zip(*rows)]
        """, 6, "`for` loop on line 4"),
    "while": ("""
        import tensorflow as tf
        def per_example_gradients(net, loss_fn, x, y):
            i, rows = 0, []
            while i < len(x):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i][None], net.call(x[i][None]))
                rows.append(tape.gradient(loss, net.trainable_variables))
                i += 1
            return [tf.stack(c) for c in zip(*rows)]
        """, 6, "`while` loop on line 4"),
    "comprehension of a nested function": ("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            def one(i):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i:i + 1], model(x[i:i + 1]))
                return tape.gradient(loss, model.trainable_variables)
            rows = [one(i) for i in range(len(x))]
            return [tf.stack(c) for c in zip(*rows)]
        """, 5, "comprehension on line 7"),
    "comprehension of a helper handed the model": ("""
        import tensorflow as tf
        def grad_one(model, loss_fn, xi, yi):
            with tf.GradientTape() as tape:
                loss = loss_fn(yi[None], model(xi[None]))
            return tape.gradient(loss, model.trainable_variables)
        def per_example_gradients(model, loss_fn, x, y):
            rows = [grad_one(model, loss_fn, xi, yi) for xi, yi in zip(x, y)]
            return [tf.stack(c) for c in zip(*rows)]
        """, 7, "comprehension on line 7"),
    "map_fn of a lambda": ("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            def grads(xi, yi):
                with tf.GradientTape() as tape:
                    loss = loss_fn(yi[None], model(xi[None]))
                return tape.gradient(loss, model.trainable_variables)
            sig = [tf.TensorSpec(v.shape, v.dtype) for v in model.trainable_variables]
            return tf.map_fn(lambda e: grads(*e), (x, y), fn_output_signature=sig)
        """, 5, "`map_fn` calls once per element (line 8)"),
    "while_loop body": ("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            arrays = [tf.TensorArray(v.dtype, size=x.shape[0]) for v in model.trainable_variables]
            def body(i, arrays):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i:i + 1], model(x[i:i + 1]))
                grads = tape.gradient(loss, model.trainable_variables)
                return i + 1, [a.write(i, g) for a, g in zip(arrays, grads)]
            _, arrays = tf.while_loop(lambda i, a: i < x.shape[0], body, (0, arrays))
            return [a.stack() for a in arrays]
        """, 6, "`while_loop` calls once per element (line 9)"),
    "a loop in a helper that takes the model": ("""
        import tensorflow as tf
        def loop_over(model, loss_fn, x, y):
            out = []
            for i in range(len(x)):
                with tf.GradientTape() as tape:
                    out.append(tape.gradient(loss_fn(y[i:i+1], model(x[i:i+1])), model.trainable_variables))
            return out
        def per_example_gradients(model, loss_fn, x, y):
            return [tf.stack(c) for c in zip(*loop_over(model, loss_fn, x, y))]
        """, 6, "`for` loop on line 4"),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_model_called_in_a_loop_is_located_at_the_call(name):
    text, line, words = LOOPS[name]
    findings = found(text)
    assert [f.line for f in findings][:1] == [line], findings
    assert words in findings[0].message and "tape.jacobian" in findings[0].message, findings[0].message


CORRECT = {
    "jacobian": """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            with tf.GradientTape() as tape:
                losses = loss_fn(y, model(x))
            return tape.jacobian(losses, model.trainable_variables)
        """,
    "vectorized_map": """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            def one(e):
                with tf.GradientTape() as tape:
                    loss = loss_fn(e[1][None], model(e[0][None]))
                return tape.gradient(loss, model.trainable_variables)
            return tf.vectorized_map(one, (x, y))
        """,
    "a loop over the variables": """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            with tf.GradientTape(persistent=True) as tape:
                losses = loss_fn(y, model(x))
            return [tape.jacobian(losses, v) for v in model.trainable_variables]
        """,
    "a loop over the variables that calls the model on the batch": """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            rows = []
            for v in model.trainable_variables:
                with tf.GradientTape() as tape:
                    losses = loss_fn(y, model(x))
                rows.append(tape.jacobian(losses, v))
            return rows
        """,
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_styles_have_no_tape_finding(name):
    """A loop over the variables that calls the model on the whole batch is located too (this reading cannot
    tell what a loop goes over), but names nothing: the probe counts that each call saw the whole batch."""
    report = analyze(source(CORRECT[name]), "per_example_gradients", strict=True)
    assert [f for f in report.findings if f.pitfall in ("tape-outside-context", "non-persistent-tape")] == []
    if name != "a loop over the variables that calls the model on the batch":
        assert [f for f in report.findings if f.pitfall == "per-example-loop"] == []


def test_the_forward_pass_before_the_tape_is_outside_its_context():
    findings = found("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            predictions = model(x)
            with tf.GradientTape() as tape:
                losses = loss_fn(y, predictions)
            return tape.jacobian(losses, model.trainable_variables)
        """, "tape-outside-context")
    assert [f.line for f in findings] == [3] and "before" in findings[0].message, findings


def test_a_shape_check_before_the_tape_is_no_finding():
    assert found("""
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            k = model(x[:1]).shape[-1]
            with tf.GradientTape() as tape:
                losses = loss_fn(y, model(x))
            return tape.jacobian(losses, model.trainable_variables)
        """, "tape-outside-context") == []


def test_a_gradient_in_a_comprehensions_iterable_runs_once():
    """`[... for g in tape.gradient(...)]` calls gradient once; `[tape.gradient(l, v) for v in vs]` once per v."""
    once = """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(loss_fn(y, model(x)))
            return [tf.stack([g] * x.shape[0]) for g in tape.gradient(loss, model.trainable_variables)]
        """
    repeated = """
        import tensorflow as tf
        def per_example_gradients(model, loss_fn, x, y):
            with tf.GradientTape() as tape:
                losses = loss_fn(y, model(x))
            return [tape.jacobian(losses, v) for v in model.trainable_variables]
        """
    assert found(once, "non-persistent-tape") == []
    assert [f.line for f in found(repeated, "non-persistent-tape")] == [5]
