"""``jvp(f, x, v)``: J(x) v without forming J (forward mode; it must work for n = m = 100,000)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.functions import vector_function
from autograder.course.jacobians.shared import SCALE_N, nonsymmetric, pair, result, tensor_case
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Mistake, Output

JVP = Output("jvp", "J v", none_means_zero=True, gradient=True)


def make_cases(rng: np.random.Generator):
    m, n = int(rng.integers(3, 5)), int(rng.integers(6, 8))
    int(rng.integers(3, 5))  # drawn as before, so the cases after it keep their values
    scale_x = rng.normal(size=SCALE_N)
    scale_v = rng.normal(size=SCALE_N)
    return [
        case("f32-pair3", "float32 Tensor x = [1, 2], v = [1, 0], f(x) = (x0 x1, sin x0, x1^2)", tags=("tensor",),
             public=True, args=dict(f="pair3", x=array([1.0, 2.0], "float32"), v=array([1.0, 0.0], "float32"))),
        case("f32-linear", "float32 Tensor x of shape (3,), f(x) = A x with A of shape (2, 3)", tags=("tensor",),
             public=True, args=dict(f="linear", A=array([[1, 2, 3], [4, 5, 6]], "float32"),
                                    x=array([1.0, 1.0, 1.0], "float32"), v=array([1.0, -1.0, 2.0], "float32"))),
        *tensor_case("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", "float32",
                     f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32"),
                     v=uniform(rng, (n,), -1, 1, "float32")),
        *pair("f64-square", "x of shape (5,), f(x) = tanh(A x) with a non-symmetric A of shape (5, 5)", "float64",
              tags=("square",), f="tanh_linear", A=nonsymmetric(rng, 5, "float64"),
              x=uniform(rng, (5,), -1, 1, "float64"), v=uniform(rng, (5,), -1, 1, "float64")),
        # (A tall f64 case and a second square one only repeated the public f32-pair3 (tall) and f64-square;
        # in forward mode each new function and shape costs TensorFlow a trace of every op's JVP, 0.05-0.15 s.)
        case("f64-constant", "float64 Tensor x of shape (2,), f(x) = ones(3) does not depend on x (zeros or None)",
             "float64", tags=("tensor",),
             args=dict(f="constant", m=3, x=array([1.0, 2.0], "float64"), v=array([1.0, 1.0], "float64"))),
        case("f64-scale", f"float64 Tensor x of shape ({SCALE_N:,},), f(x) = sin(x) * x, n = m = {SCALE_N:,} "
                          "(J would need 80 GB)", "float64", tags=("tensor", "scale"), time_limit=30.0,
             args=dict(f="sin_times_x", x=scale_x, v=scale_v)),
    ]


def probe(function, args):
    f = vector_function(args)
    x = tensor(args["x"], args.get("variable", False))
    v = tensor(args["v"])
    return {"jvp": result(function(f, x, v), "the returned J v", x)}


EXERCISE = Exercise(
    id="jvp",
    params=("f", "x", "v"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(JVP,),
    materialized_pitfall="materialized-jacobian",
    mistakes=(
        Mistake("transposed", "jvp_as_vjp",
                "your result is J^T v, a vector-Jacobian product (`tape.gradient(y, x, output_gradients=v)`), not "
                "J v; it only has the right shape when n == m, and fails for non-square J",
                "use forward mode: `with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc: y = f(x)`, "
                "then `acc.jvp(y)` (or the double-vjp trick)",
                cases=lambda case: case.has("square") and not case.has("scale")),
        Mistake("summed-gradient", "jvp_gradient_times_v",
                "your result is `tape.gradient(y, x) * v`: the column sums of J (the gradient of sum(y)) times v, "
                "which equals J v only for elementwise f",
                "use forward mode: `tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` and `acc.jvp(y)`"),
    ),
    hints={
        "materialized-jacobian": "at n = m = 100,000 the Jacobian has 10^10 entries (80 GB in float64); compute J v "
                                 "directly with `tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` and "
                                 "`acc.jvp(y)`, at the cost of about one evaluation of f",
    },
)
