"""``robust_jacobian(f, x)``: as ``jacobian``, also for an ``f`` the pfor vectorizer cannot convert."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.jacobian import probe as probe_jacobian
from autograder.course.jacobians.shared import (JACOBIAN, constant_case, float64_case, jacobian_mistakes, nonsymmetric,
                                              pair, tensor_case)
from autograder.model.course import Exercise


REASON = ("robust_jacobian: as jacobian, also for an f whose gradient the pfor vectorizer cannot convert "
          "(experimental_use_pfor=False)")


def make_cases(rng: np.random.Generator):
    m, n = int(rng.integers(2, 4)), int(rng.integers(4, 6))
    k = int(rng.integers(5, 7))
    return [
        case("f32-running-product", "float32 Tensor x = [1, 2, 3], f = running_product (a dynamic-size "
                                    "tf.TensorArray in a tf.function: pfor cannot vectorize its gradient)",
             tags=("tensor", "pfor"), public=True, reason=REASON,
             args=dict(f="running_product", x=array([1.0, 2.0, 3.0], "float32"))),
        case("f32-pair", "float32 Tensor x = [1, 2], f(x) = (x0 x1, sin x0)", tags=("tensor",), public=True,
             reason=REASON, args=dict(f="pair", x=array([1.0, 2.0], "float32"))),
        # pfor fails otherwise than with running_product's ValueError: a fallback that catches only ValueError fails
        case("f32-numpy-gradient", "float32 Tensor x = [1, -0.5, 2], f(x) = A g(x) with A = [[1, 2, 0], [0, -1, 3]], "
                                   "g(x) = x^3 with a custom gradient that calls `.numpy()` (pfor: AttributeError)",
             tags=("tensor", "pfor"), public=True, reason=REASON,
             args=dict(f="numpy_gradient", A=array([[1, 2, 0], [0, -1, 3]], "float32"),
                       x=array([1.0, -0.5, 2.0], "float32"))),
        case("f32-python-if-gradient", "float32 Tensor x = [0.5, 1, -1], f(x) = A g(x) with A = [[1, 0, 2], "
                                       "[-1, 1, 0]], g(x) = sin(x) with a custom gradient that has a Python `if` on a "
                                       "tensor (pfor: OperatorNotAllowedInGraphError)",
             tags=("tensor", "pfor"), public=True, reason=REASON,
             args=dict(f="python_if_gradient", A=array([[1, 0, 2], [-1, 1, 0]], "float32"),
                       x=array([0.5, 1.0, -1.0], "float32"))),
        # float32 like the public case: one trace of running_product (and of its gradient) serves all three
        *pair("f32-running-product", f"x of shape ({k},), f = running_product (pfor cannot vectorize it)", REASON,
              tags=("pfor",), f="running_product", x=uniform(rng, (k,), 0.5, 1.5, "float32")),
        *tensor_case("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", REASON,
                     f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        case("f32-square", "float32 Tensor x of shape (4,), f(x) = tanh(A x) with a non-symmetric A of shape (4, 4)",
             tags=("tensor",), reason=REASON,
             args=dict(f="tanh_linear", A=nonsymmetric(rng, 4, "float32"), x=uniform(rng, (4,), -1, 1, "float32"))),
        case("f32-numpy-gradient-random", f"float32 Tensor x of shape ({n},), f(x) = A g(x) with A of shape ({m}, "
                                          f"{n}), g(x) = x^3 with a custom gradient that calls `.numpy()`",
             tags=("tensor", "pfor"), reason=REASON,
             args=dict(f="numpy_gradient", A=uniform(rng, (m, n), -1, 1, "float32"),
                       x=uniform(rng, (n,), -1.5, 1.5, "float32"))),
        case("f32-python-if-gradient-random", f"float32 Tensor x of shape ({n},), f(x) = A g(x) with A of shape ({m}, "
                                              f"{n}), g(x) = sin(x) with a custom gradient that has a Python `if`",
             tags=("tensor", "pfor"), reason=REASON,
             args=dict(f="python_if_gradient", A=uniform(rng, (m, n), -1, 1, "float32"),
                       x=uniform(rng, (n,), -1.5, 1.5, "float32"))),
        constant_case("f32-constant", "robust_jacobian", "an f that does not depend on x, f(x) = ones(2)",
                      f="constant", m=2, x=array([1.0, 2.0, 3.0], "float32")),
        float64_case("f64-tanh", "robust_jacobian", "x of shape (3,), f(x) = tanh(A x)",
                     f="tanh_linear", A=uniform(rng, (2, 3), -1, 1, "float64"), x=uniform(rng, (3,), -1, 1, "float64")),
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
        "pfor-unsupported": "the default `tape.jacobian` vectorizes the m backward passes with pfor, which traces "
                            "them in a graph: it cannot convert the gradient of a dynamic-size tf.TensorArray "
                            "(ValueError), nor run a gradient written in eager Python (`.numpy()`: AttributeError; a "
                            "Python `if` on a tensor: OperatorNotAllowedInGraphError); call `tape.jacobian(y, x, "
                            "experimental_use_pfor=False)` on a tape created with `tf.GradientTape(persistent=True)`, "
                            "eagerly (no `tf.function` around it), and no fallback that catches only some errors",
        "non-persistent-tape": "`experimental_use_pfor=False` runs one `tape.gradient` per row of J, so in eager "
                               "mode the tape is used m times, and TensorFlow raises `RuntimeError: GradientTape "
                               "must be created with persistent=True`: create it with "
                               "`tf.GradientTape(persistent=True)`",
    },
)
