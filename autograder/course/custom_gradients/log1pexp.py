"""``log1pexp(x)``: log(1 + e^x) with a hand-written, stable gradient (``@tf.custom_gradient``)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE, probe_elementwise
from autograder.model.course import Exercise, Mistake, Scope

VALUE_AND_GRADIENT = "log1pexp: value log(1 + e^x), gradient upstream * sigmoid(x), any shape"
FINITE = "log1pexp: value and gradient finite for every finite x (exactly 1.0 at x = 100 in float32)"


def make_cases(rng: np.random.Generator):
    edges32 = [100.0, 1000.0, -1000.0, 88.0, 89.0, -100.0, 0.0, 30.0, -30.0]
    edges64 = [100.0, 710.0, 1000.0, -1000.0, -745.0, 0.0, 40.0]
    shape = tuple(int(n) for n in rng.integers(2, 5, size=2))
    return [
        case("f32-small", "float32 Tensor x = [-3, -1, 0, 1, 3], loss = sum(y)", public=True,
             reason=VALUE_AND_GRADIENT, args=dict(x=array([-3, -1, 0, 1, 3], "float32"), upstream=None)),
        case("f32-large", "float32 Tensor x = [100, 1000, -1000, 88, 89, -100, 0, 30, -30], loss = sum(y)",
             tags=("large",), public=True, reason=FINITE, args=dict(x=array(edges32, "float32"), upstream=None)),
        case("f32-weighted", "float32 Tensor x = [-2, 0.5, 3], weighted loss sum(w * y) with w = [1, -2, 0.5]",
             tags=("upstream",), public=True, reason=VALUE_AND_GRADIENT,
             args=dict(x=array([-2.0, 0.5, 3.0], "float32"), upstream=array([1.0, -2.0, 0.5], "float32"))),
        case("f64-large", "float64 Tensor x with large values", "float64", tags=("large",),
             reason="log1pexp: float32 or float64; " + FINITE, args=dict(x=array(edges64, "float64"), upstream=None)),
        case("f32-upstream", f"float32 Tensor x of shape {shape}, weighted loss sum(w * y)", tags=("upstream",),
             reason=VALUE_AND_GRADIENT,
             args=dict(x=uniform(rng, shape, -6, 6, "float32"), upstream=uniform(rng, shape, -2, 2, "float32"))),
        case("f64-upstream", f"float64 Tensor x of shape {shape}, weighted loss sum(w * y)", "float64",
             tags=("upstream",), reason="log1pexp: float32 or float64; " + VALUE_AND_GRADIENT,
             args=dict(x=uniform(rng, shape, -20, 20, "float64"), upstream=uniform(rng, shape, -2, 2, "float64"))),
        case("f32-3d", "float32 Tensor x of shape (2, 3, 2), loss = sum(y)", reason=VALUE_AND_GRADIENT,
             args=dict(x=uniform(rng, (2, 3, 2), -50, 50, "float32"), upstream=None)),
        advisory("f32-variable", f"a float32 tf.Variable x of shape {shape} (the contract promises a Tensor)",
                 tags=("variable", "upstream"), advice="your log1pexp does not work on a tf.Variable input; "
                 "`tf.convert_to_tensor(x)` first makes it work on both",
                 args=dict(x=uniform(rng, shape, -6, 6, "float32"), variable=True,
                           upstream=uniform(rng, shape, -2, 2, "float32"))),
    ]


EXERCISE = Exercise(
    id="log1pexp",
    params=("x",),
    points=2.0,
    make_cases=make_cases,
    probe=probe_elementwise,
    outputs=(VALUE, GRADIENT),
    requires_custom_gradient=True,
    scope=Scope(dtypes=("float32", "float64")),
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
