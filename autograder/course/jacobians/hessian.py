"""``hessian(f, x)``: the full Hessian (n, n) of f: (n,) -> scalar, as the Jacobian of the gradient."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.jacobians.functions import scalar_function
from autograder.course.jacobians.shared import UNWATCHED_EXPLANATION, float64_case, nonsymmetric, pair, result, tensor_case
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Mistake, Output

HESSIAN = Output("hessian", "the Hessian", none_means_zero=True, gradient=True)


REASON = "hessian: the full Hessian (n, n) of f: (n,) -> scalar at an (n,) Tensor x, the Jacobian of the gradient"


def make_cases(rng: np.random.Generator):
    n = int(rng.integers(4, 7))
    return [
        case("f32-quadratic-2", "float32 Tensor x = [1, -1], f(x) = 0.5 x^T A x with A = [[2, 1], [3, 4]]",
             tags=("tensor",), public=True, reason=REASON,
             args=dict(f="quadratic", A=array([[2, 1], [3, 4]], "float32"), x=array([1.0, -1.0], "float32"))),
        case("f32-cubic", "float32 Tensor x = [1, 2], f(x) = x0^2 x1", tags=("tensor",), public=True, reason=REASON,
             args=dict(f="cubic_pair", x=array([1.0, 2.0], "float32"))),
        *tensor_case("f32-quadratic", f"x of shape ({n},), f(x) = 0.5 x^T A x with a non-symmetric A", REASON,
                     f="quadratic", A=nonsymmetric(rng, n, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        *pair("f32-sin-coupled", "x of shape (5,), f(x) = sum(sin(x[:-1] x[1:])) + sum(x^3) / 6", REASON,
              f="sin_coupled", x=uniform(rng, (5,), -1.5, 1.5, "float32")),
        # an axis of size 1 (n = 1: H is (1, 1)), public so that a squeeze fails where students see it
        case("f32-n1", "float32 Tensor x = [0.5] of shape (1,), f(x) = exp(x0)", tags=("tensor",), public=True,
             reason=REASON,
             args=dict(f="exp0", x=array([0.5], "float32"))),
        advisory("f32-linear", "a linear f(x) = sum(3 x), whose Hessian is zero (the contract grades no linear f "
                               "here)", tags=("tensor", "degenerate"),
                 advice="your hessian does not give zeros (or None) for a linear f: the inner gradient is then a "
                        "constant and `outer.jacobian` returns None; pass "
                        "`unconnected_gradients=tf.UnconnectedGradients.ZERO` to both calls to get zeros",
                 args=dict(f="linear", x=array([1.0, 2.0, 3.0], "float32"))),
        float64_case("f64-sin-coupled", "hessian", "x of shape (5,), f(x) = sum(sin(x[:-1] x[1:])) + sum(x^3) / 6",
                     f="sin_coupled", x=uniform(rng, (5,), -1.5, 1.5, "float64")),
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
