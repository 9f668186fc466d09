"""``root_solve(F, theta, x0, iters)``: ``iters`` Newton steps on an elementwise F(x, theta) = 0, and the implicit
gradient -u (dF/dtheta) / (dF/dx) at the returned root.

Every graded case converges to float32 precision within ``iters`` (tests/test_implicit_cases.py checks it), so
that differentiating through the Newton steps gives the same numbers and costs no points (the contract's line);
an advisory case that has not converged tells it apart and gives advice. ``linear`` F is exact after one step:
the cases with ``iters = 1`` tell a loop that runs one step too few.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case
from autograder.course.implicit.callables import ROOT_FUNCTIONS, root_function
from autograder.course.implicit.shared import (NO_GRADIENT_LOOK, RESULT, RESULT_SAMPLE, SCALE_N, THETA_GRADIENT,
                                               THETA_GRADIENT_SAMPLE, weighted_theta_gradient)
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Look, Mistake

REASON = ("root_solve: iters Newton steps from x0 on an elementwise F(x, theta) with dF/dx away from 0, converged "
          "within iters, n up to 100,000, and the gradient -u dF/dtheta / dF/dx at the returned x")


def _kepler(rng, n, dtype="float32"):
    theta = rng.uniform(-3.0, 3.0, size=n)
    return dict(F="kepler", e=float(np.round(rng.uniform(0.3, 0.7), 2)), theta=array(theta, dtype),
                x0=array(theta, dtype))


def _cubic(rng, n, start=0.0):
    return dict(F="cubic", c=array(rng.uniform(-3.0, 3.0, size=n), "float32"),
                theta=array(rng.uniform(-1.0, 1.0, size=n), "float32"), x0=array(np.full(n, start), "float32"))


def _sqrt(rng, n):
    theta = rng.uniform(0.5, 4.0, size=n)
    return dict(F="sqrt", theta=array(theta, "float32"), x0=array(1.0 + theta / 2.0, "float32"))


def _linear(rng, n):
    return dict(F="linear", a=array(rng.uniform(1.0, 3.0, size=n) * rng.choice([-1.0, 1.0], size=n), "float32"),
                theta=array(rng.uniform(-2.0, 2.0, size=n), "float32"), x0=array(rng.normal(size=n), "float32"))


def _fixed(seed: int) -> np.random.Generator:
    """The generator of a public case: the same data whatever the grading seed."""
    return np.random.default_rng(seed)


def make_cases(rng: np.random.Generator):
    def one(id_, data, iters, public=False, tags=(), weight=1.0, time_limit=20.0, advice=None, upstream=None):
        n = len(data["theta"])
        dtype = str(data["theta"].dtype)
        weights = upstream if upstream is not None else rng.uniform(-2.0, 2.0, size=n)
        args = dict(data, iters=int(iters), upstream=array(weights, dtype))
        description = (f"{dtype} Tensors theta, x0 of shape ({n},), {ROOT_FUNCTIONS[data['F']]}, iters = {iters}, "
                       f"loss = sum(w * x) with weights w")
        if advice:
            return advisory(id_, description, dtype, tags=tags, time_limit=time_limit, advice=advice, args=args)
        return case(id_, description, dtype, tags=("upstream", *tags), public=public, weight=weight,
                    time_limit=time_limit, reason=REASON, args=args)

    def public_weights(seed, n):
        return _fixed(seed).uniform(-2.0, 2.0, size=n)

    n1, n2, n3, n4 = (int(n) for n in rng.integers(5, 40, size=4))
    return [
        # public: one case per kind of graded check (each F; iters = 1, where one Newton step is exact; n = 100,000)
        one("kepler-8", _kepler(_fixed(801), 8), 12, public=True, upstream=public_weights(802, 8)),
        one("cubic-6", _cubic(_fixed(601), 6), 25, public=True, upstream=public_weights(602, 6)),
        one("linear-5-iters-1", _linear(_fixed(501), 5), 1, public=True, upstream=public_weights(502, 5)),
        one("sqrt-scale", _sqrt(_fixed(100_001), SCALE_N), 8, public=True, tags=("scale",), weight=2.0,
            time_limit=30.0, upstream=public_weights(100_002, SCALE_N)),
        # hidden: other sizes, parameters and weights
        one("kepler-random", _kepler(rng, n1), int(rng.integers(12, 31))),
        one("cubic-random", _cubic(rng, n2), int(rng.integers(25, 51))),
        one("sqrt-random", _sqrt(rng, n3), int(rng.integers(8, 21))),
        one("linear-random-iters-1", _linear(rng, n4), 1),
        one("kepler-scale", _kepler(rng, SCALE_N), 15, tags=("scale",), weight=2.0, time_limit=30.0),
        # beyond the line, for nothing
        one("cubic-6-not-converged", _cubic(_fixed(601), 6, start=3.0), 2,
            advice="your root_solve's gradient is not the implicit function theorem's where Newton has not converged "
                   "(2 steps from x0 = 3, beyond what the contract grades): it differentiates through the Newton steps "
                   "(unrolled-solver), which gives the implicit gradient only once they converge and keeps every "
                   "step in the tape's memory; return x from a `@tf.custom_gradient` function whose grad_fn returns "
                   "`-upstream * dF_dtheta / dF_dx` at the returned x"),
        one("kepler-8-float64", _kepler(_fixed(801), 8, "float64"), 12,
            advice="your root_solve does not keep float64 inputs in float64 (a hard-coded dtype or a float32 "
                   "constant?)"),
    ]


def probe(root_solve, args):
    x0 = tensor(args["x0"])
    F = root_function(args)
    return weighted_theta_gradient(lambda theta: root_solve(F, theta, x0, int(args["iters"])), args["theta"],
                                   args["upstream"], x0, "the returned x", "the shape of x0")


FORMULA = ("in grad_fn, with a persistent tape that watches the returned x and theta, `y = F(x, theta)`, return "
           "`-upstream * tape.gradient(y, theta) / tape.gradient(y, x)`")

EXERCISE = Exercise(
    id="root_solve",
    params=("F", "theta", "x0", "iters"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(RESULT, RESULT_SAMPLE, THETA_GRADIENT, THETA_GRADIENT_SAMPLE),
    materialized_pitfall="materialized-jacobian",
    mistakes=(
        Mistake("no-gradient", "root_no_gradient",
                "no gradient reaches theta from your result (it is None): the Newton steps run outside what any tape "
                "records (a `tf.stop_gradient`, NumPy), and no `@tf.custom_gradient` gives the result one",
                "return x from a `@tf.custom_gradient` function of theta whose grad_fn gives the implicit gradient: "
                + FORMULA, look=NO_GRADIENT_LOOK),
        Mistake("sign-error", "root_sign",
                "your gradient is exactly the negative of the implicit one: the theorem's minus sign is missing "
                "(dx/dtheta = -(dF/dtheta) / (dF/dx), from differentiating F(x(theta), theta) = 0)",
                "return `-upstream * dF_dtheta / dF_dx`"),
        Mistake("ignores-upstream", "root_ignores_upstream",
                "your grad_fn returns -dF/dtheta / dF/dx without the upstream gradient: right only for loss = sum(x)",
                "multiply by grad_fn's argument: `-upstream * dF_dtheta / dF_dx`"),
        Mistake("wrong-value", "root_inverted_ratio",
                "your gradient divides the other way round: -(dF/dx) / (dF/dtheta) instead of "
                "-(dF/dtheta) / (dF/dx)",
                "the theorem divides by dF/dx: `-upstream * dF_dtheta / dF_dx`",
                look=Look(("@grad_fn",), "this divides dF/dx by dF/dtheta", look_for="the division in grad_fn")),
        Mistake("wrong-value", "root_partials_at_start",
                "your grad_fn takes the partial derivatives at x0, the start, instead of at the returned root",
                "evaluate `F(x, theta)` in grad_fn at the x that the function returns (after the Newton steps)",
                look=Look((r"\bF\(\s*x0\b", "@grad_fn"), "the partial derivatives here are taken at x0, not at the root",
                          look_for="the `F(...)` call in grad_fn that the partial derivatives come from")),
        Mistake("wrong-value", "root_one_step_fewer",
                "your loop runs iters - 1 Newton steps (with iters = 1 it returns x0)",
                "run exactly `iters` steps: `for _ in range(iters):`", outputs=("x",),
                look=Look((r"range\(\s*1\s*,|range\([^)]*-\s*1\s*\)", r"range\(", r"\bwhile\b"),
                          "this loop runs iters - 1 Newton steps", look_for="the loop of Newton steps")),
    ),
    hints={
        "materialized-jacobian": "F is elementwise, so dF/dx is diagonal: take it as `tape.gradient(y, x)` (the "
                                 "gradient of sum(F) is the diagonal), never as `tape.jacobian(y, x)`, which forms "
                                 "an (n, n) matrix: 40 GB at n = 100,000",
        "unwatched-tensor": "in grad_fn, call `tape.watch(x)` and `tape.watch(theta)` (both are Tensors) before "
                            "`y = F(x, theta)`, and take both partials from that tape (`persistent=True`)",
        "non-persistent-tape": "take both partials in grad_fn from one tape created with `persistent=True` (or from "
                               "two tapes)",
    },
)
