"""``log1pexp(x)``: log(1 + e^x) with a hand-written, stable gradient (``@tf.custom_gradient``)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE, probe_elementwise
from autograder.model.course import Exercise, Mistake


def make_cases(rng: np.random.Generator):
    edges32 = [100.0, 1000.0, -1000.0, 88.0, 89.0, -100.0, 0.0, 30.0, -30.0]
    edges64 = [100.0, 710.0, 1000.0, -1000.0, -745.0, 0.0, 40.0]
    shape = tuple(int(n) for n in rng.integers(2, 5, size=2))
    return [
        case("f32-small", "float32 Tensor x = [-3, -1, 0, 1, 3], loss = sum(y)", args=dict(
            x=array([-3, -1, 0, 1, 3], "float32"), upstream=None), public=True),
        case("f32-large", "float32 Tensor x with large values (x = 100, 1000, -1000, 88, 89, ...)", tags=("large",),
             args=dict(x=array(edges32, "float32"), upstream=None)),
        case("f64-large", "float64 Tensor x with large values (x = 710, 1000, -1000, -745, ...)", "float64",
             tags=("large",), args=dict(x=array(edges64, "float64"), upstream=None)),
        case("f32-upstream", f"float32 Tensor x of shape {shape}, weighted loss sum(w * y)", tags=("upstream",),
             args=dict(x=uniform(rng, shape, -6, 6, "float32"), upstream=uniform(rng, shape, -2, 2, "float32"))),
        case("f64-variable", f"float64 Variable x of shape {shape}, weighted loss sum(w * y)", "float64",
             tags=("variable", "upstream"),
             args=dict(x=uniform(rng, shape, -20, 20, "float64"), variable=True,
                       upstream=uniform(rng, shape, -2, 2, "float64"))),
        case("f32-3d", "float32 Tensor x of shape (2, 3, 2), loss = sum(y)",
             args=dict(x=uniform(rng, (2, 3, 2), -50, 50, "float32"), upstream=None)),
    ]


EXERCISE = Exercise(
    id="log1pexp",
    params=("x",),
    points=2.0,
    make_cases=make_cases,
    probe=probe_elementwise,
    outputs=(VALUE, GRADIENT),
    requires_custom_gradient=True,
    mistakes=(
        Mistake("ignores-upstream", "log1pexp_ignores_upstream",
                "your grad_fn returns sigmoid(x) without the upstream gradient",
                "return `upstream * tf.sigmoid(x)` from grad_fn: the chain rule multiplies by the gradient "
                "that arrives from the loss"),
        Mistake("unstable-gradient", "log1pexp_naive",
                "the value and the gradient are computed from exp(x), which overflows for large x",
                "compute the value as `tf.maximum(x, 0) + tf.math.log1p(tf.exp(-tf.abs(x)))` and the gradient "
                "as `upstream * tf.sigmoid(x)`"),
    ),
    hints={
        "unstable-value": "exp(x) overflows float32 for x > 88.7 (float64: x > 709.8); use "
                          "`tf.maximum(x, 0) + tf.math.log1p(tf.exp(-tf.abs(x)))`, which never exponentiates a "
                          "positive number",
        "unstable-gradient": "e^x / (1 + e^x) is inf / inf = NaN for large x; write the gradient as "
                             "`upstream * tf.sigmoid(x)`, which is exactly 1.0 there",
        "no-custom-gradient": "decorate log1pexp with `@tf.custom_gradient` and return `(value, grad_fn)`; "
                              "the exercise is about writing the gradient yourself",
    },
)
