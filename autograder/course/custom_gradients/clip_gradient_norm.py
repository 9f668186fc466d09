"""``clip_gradient_norm(x, max_norm)``: identity forward, the upstream gradient clipped to an L2 norm backward."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE
from autograder.course.probing import weighted_gradient
from autograder.model.course import Exercise, Mistake


def make_cases(rng: np.random.Generator):
    big = uniform(rng, (5,), -4, 4, "float32")
    return [
        case("f32-clipped", "float32 Tensor x of shape (5,), upstream with norm above max_norm = 1.0",
             tags=("upstream",), public=True,
             args=dict(x=array([1, -2, 3, 0.5, 0], "float32"), upstream=array([3, 4, 0, 0, 0], "float32"),
                       max_norm=1.0)),
        case("f32-unclipped", "float32 Tensor x of shape (5,), upstream with norm below max_norm = 10.0",
             tags=("upstream",),
             args=dict(x=uniform(rng, (5,), -3, 3, "float32"), upstream=big, max_norm=10.0)),
        case("f64-matrix", "float64 Variable x of shape (3, 4), max_norm = 0.5 over the whole tensor", "float64",
             tags=("variable", "upstream"),
             args=dict(x=uniform(rng, (3, 4), -3, 3, "float64"), variable=True,
                       upstream=uniform(rng, (3, 4), -2, 2, "float64"), max_norm=0.5)),
        case("f32-large", "float32 Tensor x with large values (1e4), upstream norm 50, max_norm = 2.0",
             tags=("upstream", "large"),
             args=dict(x=array([1e4, -2e4, 3e4], "float32"), upstream=array([30, 40, 0], "float32"), max_norm=2.0)),
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
                "use `tf.clip_by_norm(upstream, max_norm)`, which rescales the whole tensor"),
    ),
)
