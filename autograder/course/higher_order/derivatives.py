"""``derivatives(f, x)``: the first and second derivative of a scalar function, with nested tapes."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, kind
from autograder.course.probing import require_pair, require_scalar, tensor
from autograder.model.course import Exercise, Output, Scope

# name -> the formula shown in feedback; `scalar_function` builds the function itself in the child
FUNCTIONS = {
    "cube": "f(v) = v**3",
    "sin": "f(v) = sin(v)",
    "exp_sin": "f(v) = exp(2 v) * sin(v)",
    "log1p_square": "f(v) = log(1 + v**2)",
    "linear": "f(v) = 4 v + 1 (linear: second derivative identically zero)",
    "sin_exp": "f(v) = sin(exp(v))",
    "tanh_square": "f(v) = tanh(v) * v**2",
}


def scalar_function(name: str):
    import tensorflow as tf

    return {
        "cube": lambda v: v ** 3,
        "sin": lambda v: tf.sin(v),
        "exp_sin": lambda v: tf.exp(2.0 * v) * tf.sin(v),
        "log1p_square": lambda v: tf.math.log1p(v * v),
        "linear": lambda v: 4.0 * v + 1.0,
        "sin_exp": lambda v: tf.sin(tf.exp(v)),
        "tanh_square": lambda v: tf.tanh(v) * v ** 2,
    }[name]


REASON = ("derivatives: (dy_dx, d2y_dx2) of a scalar f at a scalar Tensor or tf.Variable x, float32 or float64, "
          "as x's dtype; None and zeros alike for the linear f's second derivative")


def make_cases(rng: np.random.Generator):
    def one(id_, f, x, dtype, variable, public=False):
        where = f"x = {float(x):.4g}" if public else "x"  # a hidden case's x is never shown
        tags = ("variable",) if variable else ("tensor",)
        return case(id_, f"{dtype} {kind(variable)} {where}, {FUNCTIONS[f]}", dtype,
                    tags=tags + (("degenerate",) if f == "linear" else ()), public=public, reason=REASON,
                    args=dict(f=f, x=array(x, dtype), variable=variable))

    r32 = float(np.round(rng.uniform(-1.2, 1.2), 4))
    r64 = float(rng.uniform(-2.0, 2.0))
    lin = float(rng.uniform(-5.0, 5.0))
    return [
        one("f32-cube-tensor", "cube", 3.0, "float32", False, public=True),
        one("f32-cube-variable", "cube", 3.0, "float32", True, public=True),
        one("f32-sin-zero", "sin", 0.0, "float32", False),
        one("f64-exp-sin-tensor", "exp_sin", 0.7, "float64", False),
        one("f64-exp-sin-variable", "exp_sin", 0.7, "float64", True),
        one("f64-cube-negative", "cube", -2.0, "float64", False),
        one("f32-log1p-tensor", "log1p_square", 0.5, "float32", False),
        one("f32-linear-tensor", "linear", 3.0, "float32", False),
        one("f64-linear-variable", "linear", lin, "float64", True),
        one("f32-random-tensor", "sin_exp", r32, "float32", False),
        one("f32-random-variable", "sin_exp", r32, "float32", True),
        one("f64-random-tensor", "tanh_square", r64, "float64", False),
        one("f64-random-variable", "tanh_square", r64, "float64", True),
    ]


def probe(derivatives, args):
    x = tensor(args["x"], args["variable"])
    result = derivatives(scalar_function(args["f"]), x)
    dy_dx, d2y_dx2 = require_pair(result, "derivatives(f, x)")
    # None travels to the parent as None: a None first derivative is the unwatched-Tensor signal, a None second
    # derivative the tape-outside-context / gradient-cut signal (and correct where the reference is zero).
    return {"dy_dx": require_scalar(dy_dx, "dy_dx (the first item returned)", like=x, allow_none=True),
            "d2y_dx2": require_scalar(d2y_dx2, "d2y_dx2 (the second item returned)", like=x, allow_none=True)}


EXERCISE = Exercise(
    id="derivatives",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    scope=Scope(dtypes=("float32", "float64"), variables=True, degenerate=True),
    outputs=(
        Output("dy_dx", "dy/dx", check_dtype=True, gradient=True),
        Output("d2y_dx2", "d2y/dx2", check_dtype=True, gradient=True, none_means_zero=True),
    ),
    # The typical mistakes (inner gradient after the outer block, an unwatched Tensor, `.numpy()` on dy_dx) all
    # give the same numbers, a correct dy/dx and a None d2y/dx2, so a mistake model cannot tell them apart: they
    # are told apart by the Tensor / Variable case pairs and by the static reading of the source.
    hints={
        "tape-outside-context": "call `dy_dx = inner.gradient(y, x)` inside the `with tf.GradientTape() as outer:` "
                                "block (indented under it), then `outer.gradient(dy_dx, x)` after it",
        "unwatched-tensor": "call `outer.watch(x)` and `inner.watch(x)`: each tape that differentiates with respect "
                            "to x must watch it (watching a Variable is harmless)",
        "non-persistent-tape": "use two nested tapes, each asked for one gradient: `inner` for dy/dx (inside the "
                               "outer block) and `outer` for d2y/dx2; or one tape created with `persistent=True`",
        "gradient-cut": "keep dy_dx a tensor produced by `inner.gradient`: no `.numpy()`, `float()` or "
                        "`tf.constant(...)` around it, or the outer tape loses its dependence on x",
    },
)
