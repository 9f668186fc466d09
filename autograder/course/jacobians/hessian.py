"""``hessian(f, x)``: the full Hessian (n, n) of f: (n,) -> scalar, as the Jacobian of the gradient."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.jacobians.functions import scalar_function
from autograder.course.jacobians.shared import UNWATCHED_EXPLANATION, nonsymmetric, pair, result, tensor_case
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Mistake, Output

HESSIAN = Output("hessian", "the Hessian", none_means_zero=True, gradient=True)


def make_cases(rng: np.random.Generator):
    n = int(rng.integers(4, 7))
    return [
        case("f32-quadratic-2", "float32 Tensor x = [1, -1], f(x) = 0.5 x^T A x with A = [[2, 1], [3, 4]]",
             tags=("tensor",), public=True,
             args=dict(f="quadratic", A=array([[2, 1], [3, 4]], "float32"), x=array([1.0, -1.0], "float32"))),
        case("f32-cubic", "float32 Tensor x = [1, 2], f(x) = x0^2 x1", tags=("tensor",), public=True,
             args=dict(f="cubic_pair", x=array([1.0, 2.0], "float32"))),
        *tensor_case("f32-quadratic", f"x of shape ({n},), f(x) = 0.5 x^T A x with a non-symmetric A", "float32",
                     f="quadratic", A=nonsymmetric(rng, n, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        *pair("f64-sin-coupled", "x of shape (5,), f(x) = sum(sin(x[:-1] x[1:])) + sum(x^3) / 6", "float64",
              f="sin_coupled", x=uniform(rng, (5,), -1.5, 1.5, "float64")),
        # (A Rosenbrock and a logsumexp case, f64 and random too, only repeated f64-sin-coupled: every mistake
        # model and pitfall is told on the cases above, and each case costs a pfor `outer.jacobian`, 0.09 s.)
        case("f64-n1", "float64 Tensor x of shape (1,), f(x) = exp(x0)", "float64", tags=("tensor",),
             args=dict(f="exp0", x=array([0.5], "float64"))),
        case("f32-linear", "float32 Tensor x of shape (3,), f(x) = sum(3 x) is linear (zeros or None)",
             tags=("tensor",), args=dict(f="linear", x=array([1.0, 2.0, 3.0], "float32"))),
    ]


def probe(function, args):
    f = scalar_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"hessian": result(function(f, x), "the returned Hessian", x)}


EXERCISE = Exercise(
    id="hessian",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(HESSIAN,),
    mistakes=(
        Mistake("summed-gradient", "hessian_summed",
                "your result is `outer.gradient(g, x)`: for the vector g = grad f it returns the gradient of sum(g), "
                "the row sums of H (shape (n,)), not the Hessian",
                "use `outer.jacobian(g, x)` for the full (n, n) matrix"),
        Mistake("unwatched-tensor", "hessian_unwatched", UNWATCHED_EXPLANATION,
                "call `tape.watch(x)` in BOTH tapes: `outer.watch(x)` and `inner.watch(x)`"),
    ),
    hints={
        "tape-outside-context": "call `g = inner.gradient(y, x)` INSIDE the `with tf.GradientTape() as outer:` "
                                "block (after the inner block has closed), then `outer.jacobian(g, x)` outside it",
        "non-persistent-tape": "a non-persistent tape answers one `gradient`/`jacobian` call; compute all rows at "
                               "once with `outer.jacobian(g, x)`, or create the outer tape with `persistent=True` "
                               "when you call `outer.gradient` once per row",
        "unwatched-tensor": "call `tape.watch(x)` in BOTH tapes: `outer.watch(x)` and `inner.watch(x)`",
    },
)
