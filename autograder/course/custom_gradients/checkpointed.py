"""``checkpointed(f)``: the same function and gradients, with f run again on the backward pass."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.probing import require_tensor, tensor
from autograder.model.course import ContractError, Exercise, Mistake, Output


def make_cases(rng: np.random.Generator):
    same = ("checkpointed: g(x) == f(x) with the same gradients (x and the variables f reads), f run again on "
            "the backward pass (tf.recompute_grad)")
    return [
        case("f32-variable-f", "float32 x = [1, -2, 0.5, 3], f(x) = tanh(w * x) * x reads a tf.Variable "
             "w = [0.5, -1, 2, 0.1]", public=True, reason=same,
             args=dict(x=array([1.0, -2.0, 0.5, 3.0], "float32"), w=array([0.5, -1.0, 2.0, 0.1], "float32"),
                       form="variable", upstream=None)),
        case("f32-matrix-f", "float32 x of shape (3, 5), f(x) = sin(x @ W) reads a tf.Variable W, weighted loss",
             tags=("upstream",), reason=same,
             args=dict(x=uniform(rng, (3, 5), -1, 1, "float32"), w=uniform(rng, (5, 2), -1, 1, "float32"),
                       form="matmul", upstream=uniform(rng, (3, 2), -2, 2, "float32"))),
        case("f32-pure-f", "float32 x of shape (6,), f(x) = x ** 3 - exp(-x) with no variables", reason=same,
             args=dict(x=uniform(rng, (6,), -2, 2, "float32"), w=None, form="pure", upstream=None)),
        advisory("f64-matrix-f", "float64 x and W (the contract's inputs are float32)", "float64", tags=("upstream",),
                 advice="your checkpointed function does not keep float64 inputs in float64; "
                        "`tf.recompute_grad(f)` works for any dtype",
                 args=dict(x=uniform(rng, (3, 5), -1, 1, "float64"), w=uniform(rng, (5, 2), -1, 1, "float64"),
                           form="matmul", upstream=uniform(rng, (3, 2), -2, 2, "float64"))),
    ]


def probe(checkpointed, args):
    import tensorflow as tf

    calls = [0]
    w = None if args["w"] is None else tf.Variable(args["w"], name="w")

    def f(x):
        calls[0] += 1
        if args["form"] == "variable":
            return tf.tanh(w * x) * x
        if args["form"] == "matmul":
            return tf.sin(tf.matmul(x, w))
        return x ** 3 - tf.exp(-x)

    g = checkpointed(f)
    if not callable(g):
        raise ContractError(f"checkpointed(f) must return a function, got a {type(g).__name__}")
    x = tensor(args["x"])
    sources = [x] if w is None else [x, w]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = require_tensor(g(x), "g(x)", like=x)
        weights = tf.ones_like(y) if args["upstream"] is None else tf.constant(args["upstream"], dtype=y.dtype)
        loss = tf.reduce_sum(weights * y)
    forward_calls = calls[0]
    gradients = tape.gradient(loss, sources)
    outputs = {"value": y, "grad_x": gradients[0], "recomputed": calls[0] > forward_calls}
    if w is not None:
        outputs["grad_w"] = gradients[1]
    return outputs


EXERCISE = Exercise(
    id="checkpointed",
    params=("f",),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(
        Output("value", "g(x)", check_dtype=True),
        Output("grad_x", "the gradient with respect to x", gradient=True),
        Output("grad_w", "the gradient with respect to the variable f reads", gradient=True),
        Output("recomputed", "whether f runs again during the backward pass", exact=True),
    ),
    mistakes=(
        Mistake("not-recomputed", "checkpoint_identity",
                "f is returned as it is, so its intermediates are kept and it never runs again on the backward pass",
                "return `tf.recompute_grad(f)`"),
    ),
)
