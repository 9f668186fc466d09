"""``fixed_point(f, theta, x0, iters)``: ``iters`` iterations x <- f(x, theta), and the implicit gradient at the
returned x: u = g + (df/dx)ᵀ u iterated with vector-Jacobian products, then θ̄ = (df/dθ)ᵀ u.

Every f is a contraction in x (spectral norm of df/dx at most 0.9, tests/test_implicit_cases.py bounds it) whose
df/dx is not symmetric, so that a Jacobian-vector product where the vector-Jacobian product is due gives other
numbers. The cases with few iterations (1 to 6) return an x that is not yet the fixed point: there the gradient
through the iterations (unrolled) differs from the implicit one, as the contract says; with hundreds of
iterations they agree. n = 100,000 tells a df/dx that is formed (40 GB).
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case
from autograder.course.implicit.callables import FIXED_POINT_FUNCTIONS, fixed_point_function
from autograder.course.implicit.shared import (NO_GRADIENT_LOOK, RESULT, RESULT_SAMPLE, SCALE_N, THETA_GRADIENT,
                                               weighted_theta_gradient)
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Look, Mistake

REASON = ("fixed_point: iters iterations of a contraction f (spectral norm of df/dx at most 0.9) from x0, n up to "
          "100,000, m up to 100, iters from 1 to 500, and the implicit gradient at the returned x")


def _spectral(matrix: np.ndarray) -> float:
    return float(np.linalg.svd(matrix, compute_uv=False)[0])


def _orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random orthogonal matrix: every singular value 1 (so that the contraction acts in every direction), and
    not symmetric."""
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


def _deq(rng, n, m, rho):
    return dict(f="deq", W=array(_orthogonal(rng, n), "float32"), U=array(rng.normal(size=(n, m)) / np.sqrt(m), "float32"),
                c=array(0.5 * rng.normal(size=n), "float32"), rho=array(rho, "float32"),
                theta=array(rng.normal(size=m), "float32"), x0=array(np.zeros(n), "float32"))


def _affine(rng, n, m, rho):
    matrix = rng.normal(size=(n, n))
    return dict(f="affine", M=array(rho * matrix / _spectral(matrix), "float32"),
                B=array(rng.normal(size=(n, m)), "float32"), c=array(rng.normal(size=n), "float32"),
                theta=array(rng.normal(size=m), "float32"), x0=array(rng.normal(size=n), "float32"))


def _chain(rng, n, m):
    """df/dx = diag(a sech²) + diag(c) P diag(sech²) (P a cyclic shift): spectral norm at most max a + max c = 0.85."""
    return dict(f="chain", a=array(rng.uniform(0.2, 0.55, size=n), "float32"),
                cc=array(rng.uniform(0.1, 0.3, size=n), "float32"), b=array(rng.normal(size=n), "float32"),
                theta=array(rng.normal(size=m), "float32"), x0=array(rng.normal(size=n), "float32"))


def make_cases(rng: np.random.Generator):
    def one(id_, data, iters, public=False, tags=(), weight=1.0, time_limit=20.0, generator=None):
        n, m = len(data["x0"]), len(data["theta"])
        weights = (generator or rng).uniform(-2.0, 2.0, size=n)
        args = dict(data, iters=int(iters), upstream=array(weights, "float32"))
        reached = "x near the fixed point" if iters >= 50 else "few iterations (x is not the fixed point yet)"
        description = (f"float32 Tensors x0 of shape ({n},) and theta of shape ({m},), "
                       f"{FIXED_POINT_FUNCTIONS[data['f']]}, iters = {iters}, {reached}, loss = sum(w * x) with "
                       "weights w")
        return case(id_, description, "float32", tags=("upstream", *tags), public=public, weight=weight,
                    time_limit=time_limit, reason=REASON, args=args)

    def fixed(seed):
        return np.random.default_rng(seed)

    deq_6 = _deq(fixed(601), 6, 3, 0.8)
    n1, n2, n3, n4 = (int(n) for n in rng.integers(8, 26, size=4))
    return [
        # public: one case per kind of graded check (near the fixed point and not; one iteration; m > n;
        # a df/dx that depends on x and one that does not; n = 100,000)
        one("deq-6-iters-200", deq_6, 200, public=True, generator=fixed(602)),
        one("deq-6-iters-3", deq_6, 3, public=True, generator=fixed(603)),
        one("affine-5-iters-1", _affine(fixed(501), 5, 2, 0.9), 1, public=True, generator=fixed(502)),
        one("deq-4-m-40-iters-150", _deq(fixed(401), 4, 40, 0.9), 150, public=True, generator=fixed(402)),
        one("chain-20-iters-2", _chain(fixed(2001), 20, 4), 2, public=True, generator=fixed(2002)),
        one("chain-scale-iters-60", _chain(fixed(100_001), SCALE_N, 10), 60, public=True, tags=("scale",),
            weight=2.0, time_limit=40.0, generator=fixed(100_002)),
        # hidden: other sizes, contractions and iterations
        one("deq-random-few", _deq(rng, n1, int(rng.integers(2, 9)), float(rng.uniform(0.7, 0.9))),
            int(rng.integers(1, 5))),
        one("deq-random-many", _deq(rng, n2, int(rng.integers(2, 9)), float(rng.uniform(0.6, 0.9))),
            int(rng.integers(150, 401))),
        one("affine-random-few", _affine(rng, n3, int(rng.integers(2, 6)), float(rng.uniform(0.7, 0.9))),
            int(rng.integers(1, 5))),
        one("chain-random-few", _chain(rng, n4, int(rng.integers(2, 6))), int(rng.integers(1, 5))),
        one("deq-random-m-100", _deq(rng, 10, 100, float(rng.uniform(0.6, 0.9))), int(rng.integers(150, 301))),
        one("chain-scale-random-few", _chain(rng, SCALE_N, 10), int(rng.integers(2, 6)), tags=("scale",),
            weight=2.0, time_limit=40.0),
    ]


def probe(fixed_point, args):
    x0 = tensor(args["x0"])
    f = fixed_point_function(args)
    return weighted_theta_gradient(lambda theta: fixed_point(f, theta, x0, int(args["iters"])), args["theta"],
                                   args["upstream"], x0, "the returned x", "the shape of x0")


ADJOINT = ("in grad_fn, with a persistent tape that watches the returned x and theta around `fx = f(x, theta)`, "
           "iterate `u = g + tape.gradient(fx, x, output_gradients=u)` from u = g until it stops changing, then "
           "return `tape.gradient(fx, theta, output_gradients=u)`")

EXERCISE = Exercise(
    id="fixed_point",
    params=("f", "theta", "x0", "iters"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(RESULT, RESULT_SAMPLE, THETA_GRADIENT),
    materialized_pitfall="materialized-jacobian",
    mistakes=(
        Mistake("unrolled-solver", "fp_unrolled",
                "your gradient is the one through the iterations (TensorFlow differentiates the loop x <- f(x, theta), "
                "unrolled): after few iterations x is not yet the fixed point and that gradient is not the implicit "
                "one; the tape also keeps every iteration in memory",
                "run the iterations inside a `@tf.custom_gradient` function of theta and write grad_fn yourself: "
                + ADJOINT),
        Mistake("one-step-gradient", "fp_one_step",
                "your grad_fn returns (df/dθ)ᵀ g, the gradient through the last iteration only: the inverse "
                "(I - df/dx)⁻ᵀ of the theorem is left out, which is right only where df/dx = 0",
                "first solve u = g + (df/dx)ᵀ u by iterating it with vector-Jacobian products, then return "
                "(df/dθ)ᵀ u: " + ADJOINT),
        Mistake("adjoint-not-transposed", "fp_not_transposed",
                "your adjoint iteration uses (df/dx) u, a Jacobian-vector product (forward mode, "
                "`ForwardAccumulator`), where the theorem needs (df/dx)ᵀ u, a vector-Jacobian product: right only "
                "for a symmetric df/dx",
                "take (df/dx)ᵀ u in reverse mode: `tape.gradient(fx, x, output_gradients=u)`"),
        Mistake("sign-error", "fp_sign",
                "your gradient is exactly the negative of the implicit one: for a fixed point x = f(x, θ) the "
                "theorem has no minus, θ̄ = (df/dθ)ᵀ u with u = g + (df/dx)ᵀ u",
                "return `tape.gradient(fx, theta, output_gradients=u)` without a minus"),
        Mistake("ignores-upstream", "fp_ignores_upstream",
                "your adjoint iteration starts from ones instead of the upstream gradient g: right only for "
                "loss = sum(x)",
                "iterate u = g + (df/dx)ᵀ u from u = g, with g grad_fn's argument"),
        Mistake("wrong-value", "fp_partials_at_previous",
                "your grad_fn takes the partial derivatives at the iterate before the returned one (f's input in "
                "the last iteration), not at the returned x",
                "evaluate `fx = f(x, theta)` in grad_fn at the x that the function returns",
                look=Look(("@grad_fn",), "this uses partial derivatives taken at the iterate before the returned x",
                          look_for="the `f(...)` call in grad_fn that the partial derivatives come from")),
        Mistake("wrong-value", "fp_adjoint_iters",
                "your adjoint iteration runs `iters` times, as many as the forward one, instead of until it "
                "stops changing: with few iterations u is far from the solution of u = g + (df/dx)ᵀ u",
                "iterate until a step changes u by at most 1e-6 of its norm (at most 1,000 steps), whatever iters is",
                look=Look((r"@loop output_gradients\s*=", r"@loop \.gradient\("),
                          "this adjoint step runs `iters` times, then stops whether or not u has converged",
                          look_for="the loop in grad_fn that updates u")),
        Mistake("wrong-value", "fp_one_iteration_more",
                "your loop runs iters + 1 iterations (a `range(iters + 1)`, or one more call of f after it)",
                "run exactly `iters` iterations: `for _ in range(iters): x = f(x, theta)`", outputs=("x",)),
        Mistake("no-gradient", "fp_no_gradient",
                "no gradient reaches theta from your result (it is None): the iterations run outside what any tape "
                "records (`tf.stop_gradient`, NumPy), and no `@tf.custom_gradient` gives the result one",
                "return x from a `@tf.custom_gradient` function of theta: " + ADJOINT, look=NO_GRADIENT_LOOK),
    ),
    hints={
        "materialized-jacobian": "never form df/dx (no `tape.jacobian`, no loop over unit vectors: at n = 100,000 it "
                                 "holds 10^10 numbers): each step of the adjoint iteration needs only the "
                                 "vector-Jacobian product `tape.gradient(fx, x, output_gradients=u)`",
        "unwatched-tensor": "in grad_fn, call `tape.watch(x)` and `tape.watch(theta)` (both are Tensors) before "
                            "`fx = f(x, theta)`",
        "non-persistent-tape": "create grad_fn's tape with `persistent=True`: it gives one vector-Jacobian product "
                               "per adjoint step, and the last one for theta",
    },
)
