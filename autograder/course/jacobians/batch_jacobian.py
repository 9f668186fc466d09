"""``batch_jacobian(f, x)``: the per-example Jacobians (batch, m, n) of an f that maps each example alone."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.functions import batch_function
from autograder.course.jacobians.shared import (UNWATCHED_FIX, constant_case, float64_case,
                                              nonsymmetric, pair, result, tensor_case)
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Look, Mistake, Output

BATCH_JACOBIAN = Output("batch_jacobian", "the per-example Jacobians", none_means_zero=True, gradient=True)


REASON = ("batch_jacobian: the per-example Jacobians, shape (batch, m, n), of an f mapping each example of a "
          "(batch, n) Tensor independently to (batch, m)")


def make_cases(rng: np.random.Generator):
    b, n, m = int(rng.integers(4, 8)), int(rng.integers(4, 6)), int(rng.integers(2, 4))
    b1, n1 = int(rng.integers(3, 6)), int(rng.integers(2, 5))
    return [
        case("f32-matmul", "float32 Tensor x of shape (4, 3), f(x) = x @ W with W = [[1, -1], [0.5, 2], [-0.5, 1]]",
             tags=("tensor",), public=True, reason=REASON,
             args=dict(f="matmul", W=array([[1, -1], [0.5, 2], [-0.5, 1]], "float32"),
                       x=array(np.arange(12).reshape(4, 3) / 10.0, "float32"))),
        *tensor_case("f32-tanh", f"x of shape ({b}, {n}), f(x) = tanh(x @ W) with W of shape ({n}, {m})", REASON,
                     f="tanh_matmul", W=uniform(rng, (n, m), -1, 1, "float32"), x=uniform(rng, (b, n), -1, 1, "float32")),
        *pair("f32-square", "x of shape (3, 4), f(x) = tanh(x @ W) with a non-symmetric W of shape (4, 4)", REASON,
              f="tanh_matmul", W=nonsymmetric(rng, 4, "float32"), x=uniform(rng, (3, 4), -1, 1, "float32")),
        case("f32-mixing", "float32 Tensor x of shape (5, 3), f(x) = (x * x[:, :1], sum(x^2, axis=1)) of shape (5, 4)",
             tags=("tensor",), reason=REASON, args=dict(f="mixing", x=uniform(rng, (5, 3), -2, 2, "float32"))),
        case("f32-elementwise", "float32 Tensor x of shape (1, 3) (a batch of one), f(x) = sin(x) * x",
             tags=("tensor",), reason=REASON, args=dict(f="elementwise", x=uniform(rng, (1, 3), -2, 2, "float32"))),
        # axes of size 1, as the contract allows them: a batch of one (the hidden case above) and one output
        # (m = 1); a squeeze drops them
        case("f32-batch-of-one", "float32 Tensor x = [[0.5, -1]] of shape (1, 2) (a batch of one), f(x) = sin(x) * x",
             tags=("tensor",), public=True, reason=REASON,
             args=dict(f="elementwise", x=array([[0.5, -1.0]], "float32"))),
        case("f32-one-output", "float32 Tensor x of shape (3, 2), f(x) = tanh(x @ W) with W = [[1], [-0.5]] (one "
                               "output, m = 1: the result has shape (3, 1, 2))", tags=("tensor",), public=True,
             reason=REASON,
             args=dict(f="tanh_matmul", W=array([[1.0], [-0.5]], "float32"),
                       x=array([[0.5, 1.0], [-1.0, 0.25], [2.0, -0.5]], "float32"))),
        case("f32-one-output-random", f"float32 Tensor x of shape ({b1}, {n1}), f(x) = tanh(x @ W) with W of shape "
                                      f"({n1}, 1) (one output)", tags=("tensor",), reason=REASON,
             args=dict(f="tanh_matmul", W=uniform(rng, (n1, 1), -1, 1, "float32"),
                       x=uniform(rng, (b1, n1), -1, 1, "float32"))),
        constant_case("f32-constant", "batch_jacobian", "an f that does not depend on x, f(x) = ones((3, 4))",
                      f="constant", m=4, x=array(np.zeros((3, 2)), "float32")),
        float64_case("f64-mixing", "batch_jacobian", "x of shape (5, 3), f(x) = (x * x[:, :1], sum(x^2, axis=1))",
                     f="mixing", x=uniform(rng, (5, 3), -2, 2, "float64")),
    ]


def probe(function, args):
    f = batch_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"batch_jacobian": result(function(f, x), "the returned per-example Jacobians", x)}


EXERCISE = Exercise(
    id="batch_jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(BATCH_JACOBIAN,),
    mistakes=(
        Mistake("full-jacobian", "batch_full",
                "your result is `tape.jacobian(y, x)`, shape (batch, m, batch, n): the derivative of every example's "
                "output with respect to every example's input, mostly zeros",
                "use `tape.batch_jacobian(y, x)`, which returns only the per-example blocks, shape (batch, m, n)"),
        Mistake("transposed", "batch_transposed",
                "each per-example block is transposed, shape (batch, n, m) instead of (batch, m, n)",
                "out[b, i, j] is dy_{b,i} / dx_{b,j}: `tape.batch_jacobian(y, x)` already has this orientation; "
                "drop the `tf.transpose`",
                look=Look((r"transpose\(|einsum\(|perm\s*=",), "this puts the inputs' axis before the outputs'")),
        Mistake("unwatched-tensor", "batch_unwatched",
                "your result is zero for tf.Tensor inputs and right for tf.Variable inputs: the tape does not watch "
                "x (a tape only watches Variables by itself), and `batch_jacobian` returns zeros for a source it "
                "never saw", UNWATCHED_FIX),
        Mistake("wrong-value", "batch_squeezed",
                "your per-example Jacobians are squeezed (`tf.squeeze`): an axis of size 1 (a batch of one, or one "
                "output, m = 1) is dropped, where the result is (batch, m, n) whatever batch and m are",
                "drop the `tf.squeeze`: `tape.batch_jacobian(y, x)` already has the shape (batch, m, n)",
                look=Look((r"squeeze\(",), "this drops the axes of size 1")),
        Mistake("summed-gradient", "batch_summed",
                "your result is `tape.gradient(y, x)`: for the (batch, m) output y it is the gradient of sum(y), "
                "shape (batch, n), the per-example column sums, not the per-example Jacobians",
                "use `tape.batch_jacobian(y, x)`, which returns (batch, m, n)"),
    ),
)
