"""``robust_jacobian(f, x)``: as ``jacobian``, also for an ``f`` the pfor vectorizer cannot convert."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.jacobian import probe as probe_jacobian
from autograder.course.jacobians.shared import JACOBIAN, jacobian_mistakes, nonsymmetric, pair, tensor_case
from autograder.model.course import Exercise


def make_cases(rng: np.random.Generator):
    m, n = int(rng.integers(2, 4)), int(rng.integers(4, 6))
    k = int(rng.integers(5, 7))
    return [
        case("f32-running-product", "float32 Tensor x = [1, 2, 3], f = running_product (a dynamic-size "
                                    "tf.TensorArray in a tf.function: pfor cannot vectorize its gradient)",
             tags=("tensor", "pfor"), public=True, args=dict(f="running_product", x=array([1.0, 2.0, 3.0], "float32"))),
        case("f32-pair", "float32 Tensor x = [1, 2], f(x) = (x0 x1, sin x0)", tags=("tensor",), public=True,
             args=dict(f="pair", x=array([1.0, 2.0], "float32"))),
        # float32 like the public case: one trace of running_product (and of its gradient) serves all three
        *pair("f32-running-product", f"x of shape ({k},), f = running_product (pfor cannot vectorize it)",
              "float32", tags=("pfor",), f="running_product", x=uniform(rng, (k,), 0.5, 1.5, "float32")),
        *tensor_case("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", "float32",
                     f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        case("f64-square", "float64 Tensor x of shape (4,), f(x) = tanh(A x) with a non-symmetric A of shape (4, 4)",
             "float64", tags=("tensor",), args=dict(f="tanh_linear", A=nonsymmetric(rng, 4, "float64"),
                                                  x=uniform(rng, (4,), -1, 1, "float64"))),
        case("f64-constant", "float64 Tensor x of shape (3,), f(x) = ones(2) does not depend on x (zeros or None)",
             "float64", tags=("tensor",), args=dict(f="constant", m=2, x=array([1.0, 2.0, 3.0], "float64"))),
    ]


EXERCISE = Exercise(
    id="robust_jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe_jacobian,
    outputs=(JACOBIAN,),
    mistakes=jacobian_mistakes("use `tape.jacobian(y, x, experimental_use_pfor=False)` on a persistent tape, "
                                "which returns the full (m, n) matrix"),
    hints={
        "pfor-unsupported": "the default `tape.jacobian` vectorizes the m backward passes with pfor, which cannot "
                            "convert the gradient of a dynamic-size tf.TensorArray (`TensorListResize`); call "
                            "`tape.jacobian(y, x, experimental_use_pfor=False)` on a tape created with "
                            "`tf.GradientTape(persistent=True)`",
        "non-persistent-tape": "`experimental_use_pfor=False` runs one `tape.gradient` per row of J, so in eager "
                               "mode the tape is used m times: create it with `tf.GradientTape(persistent=True)`",
    },
)
