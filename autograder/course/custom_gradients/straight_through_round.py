"""``straight_through_round(x)``: round forward, pass the upstream gradient through unchanged backward."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.custom_gradients.elementwise import GRADIENT, VALUE, probe_elementwise
from autograder.model.course import Exercise, Look, Mistake

FORWARD = "straight_through_round: forward tf.round(x) (halves to even)"
BACKWARD = "straight_through_round: backward, the upstream gradient passed through unchanged"


def make_cases(rng: np.random.Generator):
    def no_ties(shape, low, high, dtype):
        x = uniform(rng, shape, low, high, dtype)
        return np.where(np.abs(x - np.floor(x) - 0.5) < 0.05, x + 0.2, x).astype(x.dtype)
    return [
        case("f32-small", "float32 Tensor x = [-1.7, -0.4, 0.3, 0.8, 2.2], loss = sum(y)", public=True,
             reason=FORWARD, args=dict(x=array([-1.7, -0.4, 0.3, 0.8, 2.2], "float32"), upstream=None)),
        case("f32-ties", "float32 Tensor x = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5] (ties: tf.round rounds half to "
             "even), loss = sum(y)", public=True, reason=FORWARD,
             args=dict(x=array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], "float32"), upstream=None)),
        case("f32-weighted", "float32 Tensor x = [0.2, 1.6, -2.4], weighted loss sum(w * y) with w = [2, -1, 0.5]",
             tags=("upstream",), public=True, reason=BACKWARD,
             args=dict(x=array([0.2, 1.6, -2.4], "float32"), upstream=array([2.0, -1.0, 0.5], "float32"))),
        case("f32-upstream", "float32 Tensor x of shape (4, 3), weighted loss sum(w * y)", tags=("upstream",),
             reason=BACKWARD,
             args=dict(x=no_ties((4, 3), -5, 5, "float32"), upstream=uniform(rng, (4, 3), -2, 2, "float32"))),
        case("f32-vector", "float32 Tensor x of shape (6,), weighted loss sum(w * y)", tags=("upstream",),
             reason=BACKWARD,
             args=dict(x=no_ties((6,), -10, 10, "float32"), upstream=uniform(rng, (6,), -3, 3, "float32"))),
        case("f32-large", "float32 Tensor x with large values, loss = sum(y)", tags=("large",), reason=FORWARD,
             args=dict(x=array([1e6 + 0.3, -12345.7, 3e7], "float32"), upstream=None)),
        advisory("f64-variable", "a float64 tf.Variable x of shape (6,) (the contract promises a float32 Tensor)",
                 "float64", tags=("variable", "upstream"),
                 advice="your straight_through_round does not keep a float64 tf.Variable's dtype; "
                        "`tf.convert_to_tensor(x)` and no hard-coded dtype make it work for any input",
                 args=dict(x=no_ties((6,), -10, 10, "float64"), variable=True,
                           upstream=uniform(rng, (6,), -3, 3, "float64"))),
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
                "no gradient flows back through your function (it is None), as with plain `tf.round`, which has "
                "none",
                "pass the upstream gradient through unchanged: `@tf.custom_gradient` with "
                "`grad_fn = lambda upstream: upstream`, or `x + tf.stop_gradient(tf.round(x) - x)`"),
        Mistake("ignores-upstream", "round_ignores_upstream",
                "your grad_fn returns ones instead of the upstream gradient",
                "the straight-through estimator passes the upstream gradient on: `return upstream`"),
        Mistake("wrong-value", "round_half_up",
                "the forward value rounds halves up (`tf.floor(x + 0.5)`), where `tf.round` rounds half to even "
                "(0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0)",
                "compute the forward value with `tf.round(x)`", outputs=("value",),
                look=Look((r"floor\(|\+\s*0?\.5\b",), "this rounds halves up; `tf.round` rounds half to even")),
    ),
)
