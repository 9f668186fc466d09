"""``newton_step(f, x)``: one Newton step x - H^-1 grad f, with the Hessian from nested tapes."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case
from autograder.course.probing import require_like, tensor
from autograder.model.course import Exercise, Look, Mistake, Output, Scope

FUNCTIONS = {
    "quadratic": "f(x) = 0.5 x^T A x - b^T x",
    "exp_quadratic": "f(x) = sum(exp(x)) + 0.5 x^T A x - b^T x",
    "exp_ridge": "f(x) = sum(exp(x) - 2 x) + sum(x**2)",
    "logsumexp_ridge": "f(x) = logsumexp(B x) + 0.5 lam |x|^2",
}


def newton_function(args):
    import tensorflow as tf

    name = args["f"]
    if name == "exp_ridge":
        return lambda x: tf.reduce_sum(tf.exp(x) - 2.0 * x) + tf.reduce_sum(x ** 2)
    if name == "logsumexp_ridge":
        matrix, lam = tf.constant(args["B"]), float(args["lam"])
        return lambda x: tf.reduce_logsumexp(tf.linalg.matvec(matrix, x)) + 0.5 * lam * tf.reduce_sum(x * x)
    matrix, b = tf.constant(args["A"]), tf.constant(args["b"])

    def quadratic(x):
        return 0.5 * tf.reduce_sum(x * tf.linalg.matvec(matrix, x)) - tf.reduce_sum(b * x)
    if name == "quadratic":
        return quadratic
    return lambda x: tf.reduce_sum(tf.exp(x)) + quadratic(x)


REASON = "newton_step: x - H(x)^-1 grad f(x) for f: (n,) -> scalar, x an (n,) float64 Tensor, n at most 50"


def make_cases(rng: np.random.Generator):
    def one(id_, f, x, public=False, **params):
        n = len(x)
        args = dict(f=f, x=array(x, "float64"), A=None, b=None, B=None, lam=None)
        args.update({k: (array(v, "float64") if k != "lam" else float(v)) for k, v in params.items()})
        extra = "" if "A" not in params or n <= 2 else f" with a random positive definite ({n}, {n}) A"
        if f == "quadratic":
            extra += " (one step lands on the minimum)"
        if f == "logsumexp_ridge":
            extra = f" with a random {params['B'].shape} B and a ridge lam"
        return case(id_, f"float64 Tensor x of shape ({n},), {FUNCTIONS[f]}{extra}", "float64",
                    public=public, reason=REASON, args=args)

    def spd(n):
        m = rng.normal(size=(n, n))
        return m @ m.T + n * np.eye(n)

    n_mid = int(rng.integers(5, 12))
    return [
        one("quadratic-2", "quadratic", [10.0, -7.0], public=True, A=[[3.0, 1.0], [1.0, 2.0]], b=[1.0, 1.0]),
        one("exp-ridge-3", "exp_ridge", [0.0, 0.0, 0.0], public=True),
        one("quadratic-random", "quadratic", rng.normal(size=n_mid), A=spd(n_mid), b=rng.normal(size=n_mid)),
        one("exp-quadratic-1", "exp_quadratic", rng.normal(size=1), A=spd(1), b=rng.normal(size=1)),
        one("exp-quadratic-50", "exp_quadratic", rng.normal(size=50), A=spd(50), b=rng.normal(size=50)),
        one("logsumexp-ridge", "logsumexp_ridge", rng.normal(size=6), B=rng.normal(size=(8, 6)), lam=0.5),
        # Each case costs a pfor `tape.jacobian` (0.1 s): a mid-size exp-quadratic and a random exp-ridge would
        # only repeat quadratic-random / exp-quadratic-50 and the public exp-ridge-3 (every mistake model here
        # gives other values on all of them).
    ]


def probe(newton_step, args):
    x = tensor(args["x"])
    return {"x_new": require_like(newton_step(newton_function(args), x), "the new x", like=x)}


EXERCISE = Exercise(
    id="newton_step",
    params=("f", "x"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    scope=Scope(dtypes=("float64",)),
    outputs=(Output("x_new", "the new x", check_dtype=True),),
    mistakes=(
        Mistake("wrong-value", "newton_multiplied",
                "the step multiplies the gradient by the Hessian (x - H g) instead of solving H s = g",
                "solve for the step: `s = tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]`, then return `x - s`",
                look=Look((r"matvec\(|matmul\(|@",), "this multiplies by the Hessian instead of solving H s = g")),
        Mistake("wrong-value", "newton_sign",
                "the step has the wrong sign: x + H^-1 g climbs instead of descending",
                "return `x - s` where `s` solves H s = g",
                look=Look((r"return\s+\w+\s*\+", "@return"), "the step is added: x + H^-1 g climbs")),
        Mistake("wrong-value", "newton_gradient_step",
                "the step is a plain gradient step x - g: the Hessian is not used",
                "compute H = `outer.jacobian(g, x)` and return `x - tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]`",
                look=Look(("@return",), "this step uses the gradient alone")),
        Mistake("summed-gradient", "newton_summed",
                "the Hessian is `outer.gradient(g, x)`: for the vector g it returns the gradient of sum(g), the row "
                "sums of H (shape (n,)), and the step divides by them element by element",
                "compute the full Hessian with `H = outer.jacobian(g, x)` and solve H s = g"),
    ),
    hints={
        "tape-outside-context": "compute `g = inner.gradient(y, x)` inside the outer tape's `with` block, then "
                                "`H = outer.jacobian(g, x)`",
    },
)
