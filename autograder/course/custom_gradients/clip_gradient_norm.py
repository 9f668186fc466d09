"""``clip_gradient_norm(x, max_norm)``: identity forward, the upstream gradient clipped to an L2 norm backward."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE
from autograder.course.probing import weighted_gradient
from autograder.model.course import Exercise, Look, Mistake


IDENTITY = "clip_gradient_norm: forward identity"
CLIPPED = "clip_gradient_norm: backward the upstream gradient clipped to L2 norm max_norm over the whole tensor"


def make_cases(rng: np.random.Generator):
    big = uniform(rng, (5,), -4, 4, "float32")
    return [
        case("f32-clipped", "float32 Tensor x = [1, -2, 3, 0.5, 0], upstream [3, 4, 0, 0, 0] (norm 5), max_norm = 1.0",
             tags=("upstream",), public=True, reason=CLIPPED,
             args=dict(x=array([1, -2, 3, 0.5, 0], "float32"), upstream=array([3, 4, 0, 0, 0], "float32"),
                       max_norm=1.0)),
        case("f32-unclipped", "float32 Tensor x of shape (5,), upstream with a norm below max_norm",
             tags=("upstream",), reason=IDENTITY + "; " + CLIPPED,
             args=dict(x=uniform(rng, (5,), -3, 3, "float32"), upstream=big, max_norm=10.0)),
        case("f32-matrix", "float32 Tensor x of shape (3, 4), clipped over the whole tensor",
             tags=("upstream",), reason=CLIPPED,
             args=dict(x=uniform(rng, (3, 4), -3, 3, "float32"), upstream=uniform(rng, (3, 4), -2, 2, "float32"),
                       max_norm=0.5)),
        case("f32-large", "float32 Tensor x with large values, upstream clipped",
             tags=("upstream", "large"), reason=IDENTITY + "; " + CLIPPED,
             args=dict(x=array([1e4, -2e4, 3e4], "float32"), upstream=array([30, 40, 0], "float32"), max_norm=2.0)),
        advisory("f64-variable", "a float64 tf.Variable x of shape (3, 4) (the contract promises a float32 Tensor)",
                 "float64", tags=("variable", "upstream"),
                 advice="your clip_gradient_norm does not keep a float64 tf.Variable's dtype; "
                        "`tf.convert_to_tensor(x)` and no hard-coded dtype make it work for any input",
                 args=dict(x=uniform(rng, (3, 4), -3, 3, "float64"), variable=True,
                           upstream=uniform(rng, (3, 4), -2, 2, "float64"), max_norm=0.5)),
    ]


def probe(function, args):
    value, gradient = weighted_gradient(function, args, lambda fn, x: fn(x, float(args["max_norm"])),
                                        args.get("upstream"))
    return {"value": value, "gradient": gradient}


EXERCISE = Exercise(
    id="clip_gradient_norm",
    params=("x", "max_norm"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(VALUE, GRADIENT),
    mistakes=(
        Mistake("clips-value", "clip_value_too",
                "the forward value is clipped too, so the layer is no longer the identity",
                "return `tf.identity(x)` as the value and clip only in grad_fn: "
                "`tf.clip_by_norm(upstream, max_norm)`",
                outputs=("value",)),  # whatever the gradient does, a clipped forward value is this mistake
        Mistake("ignores-upstream", "clip_ignores_upstream",
                "your grad_fn clips a tensor of ones instead of the upstream gradient",
                "clip the gradient that arrives: `tf.clip_by_norm(upstream, max_norm)`"),
        Mistake("wrong-value", "clip_per_element",
                "the gradient is clipped element by element (`tf.clip_by_value`), not by its L2 norm",
                "use `tf.clip_by_norm(upstream, max_norm)`, which rescales the whole tensor",
                look=Look((r"clip_by_value\(", "@grad_fn"),
                          "this clips each element on its own, not the L2 norm of the whole tensor")),
    ),
    # The forward must be the identity: any other value, however it was changed, is `clips-value`.
    output_pitfalls={"value": "clips-value"},
    hints={"clips-value": "return the input unchanged as the value (`tf.identity(x)`) and clip only in grad_fn: "
                          "`tf.clip_by_norm(upstream, max_norm)`"},
)
