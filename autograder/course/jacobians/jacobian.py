"""``jacobian(f, x)``: the full Jacobian J[i, j] = dy_i / dx_j of f: (n,) -> (m,)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.functions import vector_function
from autograder.course.jacobians.shared import (JACOBIAN, constant_case, float64_case, jacobian_mistakes, nonsymmetric,
                                              pair, result, tensor_case)
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Look, Mistake


REASON = "jacobian: J of shape (m, n) with J[i, j] = dy_i/dx_j, for f: (n,) -> (m,) and an (n,) Tensor x"


def make_cases(rng: np.random.Generator):
    m, n = int(rng.integers(3, 5)), int(rng.integers(5, 8))
    nw = int(rng.integers(3, 5))
    n1 = int(rng.integers(3, 6))
    return [
        case("f32-pair", "float32 Tensor x = [1, 2], f(x) = (x0 x1, sin x0)", tags=("tensor",), public=True,
             reason=REASON, args=dict(f="pair", x=array([1.0, 2.0], "float32"))),
        case("f32-linear", "float32 Tensor x = [0.5, -1, 2], f(x) = A x with A = [[1, 2, 3], [4, 5, 6]]",
             tags=("tensor",), public=True, reason=REASON,
             args=dict(f="linear", A=array([[1, 2, 3], [4, 5, 6]], "float32"), x=array([0.5, -1.0, 2.0], "float32"))),
        *tensor_case("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", REASON,
                     f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        *pair("f32-square", "x of shape (5,), f(x) = tanh(A x) with a non-symmetric A of shape (5, 5)", REASON,
              f="tanh_linear", A=nonsymmetric(rng, 5, "float32"), x=uniform(rng, (5,), -1, 1, "float32")),
        case("f32-wide", f"float32 Tensor x of shape ({nw},), f(x) = (sin(x) x0, x[1:] x[:-1], sum(x^3)) "
                         f"of shape ({2 * nw},)", tags=("tensor",), reason=REASON,
             args=dict(f="wide", x=uniform(rng, (nw,), -2, 2, "float32"))),
        # one output (m = 1): J is (1, n), a row; a squeeze makes it (n,)
        case("f32-one-output", "float32 Tensor x = [0.5, -1, 2], f(x) = tanh(A x) with A = [[1, -2, 0.5]] (one "
                               "output, m = 1: J has shape (1, 3))", tags=("tensor",), public=True, reason=REASON,
             args=dict(f="tanh_linear", A=array([[1.0, -2.0, 0.5]], "float32"), x=array([0.5, -1.0, 2.0], "float32"))),
        case("f32-one-output-random", f"float32 Tensor x of shape ({n1},), f(x) = tanh(A x) with A of shape (1, {n1}) "
                                      "(one output)", tags=("tensor",), reason=REASON,
             args=dict(f="tanh_linear", A=uniform(rng, (1, n1), -1, 1, "float32"), x=uniform(rng, (n1,), -1, 1,
                                                                                             "float32"))),
        constant_case("f32-constant", "jacobian", "an f that does not depend on x, f(x) = ones(3)",
                      f="constant", m=3, x=array([1.0, 2.0], "float32")),
        float64_case("f64-square", "jacobian", "x of shape (4,), f(x) = tanh(A x)",
                     f="tanh_linear", A=nonsymmetric(rng, 4, "float64"), x=uniform(rng, (4,), -1, 1, "float64")),
    ]


def probe(function, args):
    f = vector_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"jacobian": result(function(f, x), "the returned Jacobian", x)}


EXERCISE = Exercise(
    id="jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(JACOBIAN,),
    mistakes=(*jacobian_mistakes("use `tape.jacobian(y, x)`, which returns the full (m, n) matrix"),
              Mistake("wrong-value", "jacobian_squeezed",
                      "your Jacobian is squeezed (`tf.squeeze`): for an f with one output (m = 1) J is (1, n), and "
                      "the squeeze drops its row axis, (n,)", "return J with its shape (m, n) whatever m is: drop the "
                      "`tf.squeeze` (`tape.jacobian(y, x)` already has that shape)",
                      look=Look((r"squeeze\(",), "this drops the axis of size 1"))),
)
