"""``jvp(f, x, v)``: J(x) v without forming J (forward mode; it must work for n = m = 100,000)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.functions import vector_function
from autograder.course.jacobians.shared import (SCALE_N, constant_case, float64_case, nonsymmetric, pair, result,
                                              tensor_case)
from autograder.course.probing import raise_if_too_large, tensor
from autograder.model.course import Exercise, Look, Mistake, Output

JVP = Output("jvp", "J v", none_means_zero=True, gradient=True)


REASON = ("jvp: J(x) v of shape (m,) for f: (n,) -> (m,), x and v (n,) Tensors, without forming J; it must work "
          "for n = m = 100,000")


def make_cases(rng: np.random.Generator):
    m, n = int(rng.integers(3, 5)), int(rng.integers(6, 8))
    int(rng.integers(3, 5))  # drawn as before, so the cases after it keep their values
    scale_x = rng.normal(size=SCALE_N).astype(np.float32)
    scale_v = rng.normal(size=SCALE_N).astype(np.float32)
    return [
        case("f32-pair3", "float32 Tensor x = [1, 2], v = [1, 0], f(x) = (x0 x1, sin x0, x1^2)", tags=("tensor",),
             public=True, reason=REASON,
             args=dict(f="pair3", x=array([1.0, 2.0], "float32"), v=array([1.0, 0.0], "float32"))),
        case("f32-linear", "float32 Tensor x = [1, 1, 1], v = [1, -1, 2], f(x) = A x with A = [[1, 2, 3], [4, 5, 6]]",
             tags=("tensor",), public=True, reason=REASON,
             args=dict(f="linear", A=array([[1, 2, 3], [4, 5, 6]], "float32"),
                       x=array([1.0, 1.0, 1.0], "float32"), v=array([1.0, -1.0, 2.0], "float32"))),
        case("f32-square-2", "float32 Tensor x = [1, 2], v = [1, -1], f(x) = (x0 x1, sin x0 + 2 x1) (a square, "
             "non-symmetric J)", tags=("tensor", "square"), public=True, reason=REASON,
             args=dict(f="square2", x=array([1.0, 2.0], "float32"), v=array([1.0, -1.0], "float32"))),
        *tensor_case("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", REASON,
                     f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32"),
                     v=uniform(rng, (n,), -1, 1, "float32")),
        *pair("f32-square", "x of shape (5,), f(x) = tanh(A x) with a non-symmetric A of shape (5, 5)", REASON,
              tags=("square",), f="tanh_linear", A=nonsymmetric(rng, 5, "float32"),
              x=uniform(rng, (5,), -1, 1, "float32"), v=uniform(rng, (5,), -1, 1, "float32")),
        constant_case("f32-constant", "jvp", "an f that does not depend on x, f(x) = ones(3)",
                      f="constant", m=3, x=array([1.0, 2.0], "float32"), v=array([1.0, 1.0], "float32")),
        float64_case("f64-square", "jvp", "x of shape (4,), f(x) = tanh(A x)", f="tanh_linear",
                     A=nonsymmetric(rng, 4, "float64"), x=uniform(rng, (4,), -1, 1, "float64"),
                     v=uniform(rng, (4,), -1, 1, "float64")),
        case("f32-scale", f"float32 Tensor x of shape ({SCALE_N:,},), f(x) = sin(x) * x, n = m = {SCALE_N:,} "
                          "(J would need 40 GB)", tags=("tensor", "scale"), time_limit=30.0, reason=REASON,
             args=dict(f="sin_times_x", x=scale_x, v=scale_v)),
    ]


def probe(function, args):
    f = vector_function(args)
    x = tensor(args["x"], args.get("variable", False))
    v = tensor(args["v"])
    try:
        returned = function(f, x, v)
    except Exception as error:  # noqa: BLE001
        raise_if_too_large(error, len(args["x"]), np.asarray(args["x"]).dtype)
        raise
    return {"jvp": result(returned, "the returned J v", x)}


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
                cases=lambda case: case.has("square") and not case.has("scale"),
                look=Look((r"output_gradients", r"partial\(\s*\w+\.gradient", "@return"),
                          "this is a vector-Jacobian product, J^T v")),
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
