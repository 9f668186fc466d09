"""``straight_through_round(x)``: round forward, pass the upstream gradient through unchanged backward."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE, probe_elementwise
from autograder.model.course import Exercise, Mistake


def make_cases(rng: np.random.Generator):
    def no_ties(shape, low, high, dtype):
        x = uniform(rng, shape, low, high, dtype)
        return np.where(np.abs(x - np.floor(x) - 0.5) < 0.05, x + 0.2, x).astype(x.dtype)
    return [
        case("f32-small", "float32 Tensor x = [-1.7, -0.4, 0.3, 0.8, 2.2], loss = sum(y)", public=True,
             args=dict(x=array([-1.7, -0.4, 0.3, 0.8, 2.2], "float32"), upstream=None)),
        case("f32-upstream", "float32 Tensor x of shape (4, 3), weighted loss sum(w * y)", tags=("upstream",),
             args=dict(x=no_ties((4, 3), -5, 5, "float32"), upstream=uniform(rng, (4, 3), -2, 2, "float32"))),
        case("f64-variable", "float64 Variable x of shape (6,), weighted loss sum(w * y)", "float64",
             tags=("variable", "upstream"),
             args=dict(x=no_ties((6,), -10, 10, "float64"), variable=True,
                       upstream=uniform(rng, (6,), -3, 3, "float64"))),
        case("f32-large", "float32 Tensor x with large values, loss = sum(y)", tags=("large",),
             args=dict(x=array([1e6 + 0.3, -12345.7, 3e7], "float32"), upstream=None)),
    ]


EXERCISE = Exercise(
    id="straight_through_round",
    params=("x",),
    points=2.0,
    make_cases=make_cases,
    probe=probe_elementwise,
    outputs=(VALUE, GRADIENT),
    mistakes=(
        Mistake("no-gradient", "round_plain",
                "plain `tf.round` has no gradient, so nothing flows back",
                "pass the upstream gradient through unchanged: `@tf.custom_gradient` with "
                "`grad_fn = lambda upstream: upstream`, or `x + tf.stop_gradient(tf.round(x) - x)`"),
        Mistake("ignores-upstream", "round_ignores_upstream",
                "your grad_fn returns ones instead of the upstream gradient",
                "the straight-through estimator passes the upstream gradient on: `return upstream`"),
    ),
)
