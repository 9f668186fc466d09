"""``argmin_gradient(g, inner_solver, theta, cg_iters)``: w* = inner_solver(theta) (NumPy, outside TensorFlow: no
gradient), and the implicit gradient θ̄ = -(∂²g/∂w∂θ)ᵀ v with H v = w̄ solved by ``cg_iters`` steps of conjugate
gradients on Hessian-vector products.

The course's example: ridge and logistic regressions whose regularisation exp(theta) (one per group of
features, i mod m) is tuned through this gradient. The Hessians at w* have condition numbers from about 15 to
at most 50 (tests/test_implicit_cases.py computes them), so that CG reaches float32 precision within
``cg_iters`` and a method that is not CG (steepest descent) or no solve at all gives other numbers.
n = 100,000 tells a Hessian that is formed (40 GB).
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case
from autograder.course.implicit.callables import (ARGMIN_FUNCTIONS, argmin_objective, argmin_solver,
                                                  conjugate_gradients, hessian_product)
from autograder.course.implicit.shared import (NO_GRADIENT_LOOK, SAMPLE_STRIDE, SCALE_N, THETA_GRADIENT,
                                               weighted_theta_gradient)
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Look, Mistake, Output

REASON = ("argmin_gradient: w* = inner_solver(theta) for g strictly convex in w, Hessian condition number at most "
          "50, theta (m,) with m up to 10, n up to 100,000, cg_iters from 10 to 100 enough for CG to reach float32 "
          "precision, and the implicit gradient -(d2g/dw dtheta)^T v with H v = w̄")


def _design(rng: np.random.Generator, count: int, n: int, top: float) -> np.ndarray:
    """X (count, n) whose XᵀX / count has eigenvalues spread evenly from 0 to ``top``."""
    u, _ = np.linalg.qr(rng.normal(size=(count, n)))
    v, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (u * np.sqrt(count * np.linspace(0.0, top, n))) @ v.T


def _regression(rng, name, n, m):
    """Ridge: XᵀX/N from 0 to 8 and penalties exp(theta) from 0.2 to 0.5: condition number from about 16 to 43.
    Logistic: the loss's curvature is at most a quarter of XᵀX/N, so the penalties are smaller (0.05 to 0.1)."""
    count = 3 * n
    x = _design(rng, count, n, 8.0)
    truth = rng.normal(size=n) / np.sqrt(n)
    if name == "ridge":
        y, low, high = x @ truth + 0.5 * rng.normal(size=count), np.log(0.2), np.log(0.5)
    else:
        y, low, high = np.where(x @ truth + 0.3 * rng.normal(size=count) > 0, 1.0, -1.0), np.log(0.05), np.log(0.1)
    return dict(g=name, X=array(x, "float32"), y=array(y, "float32"), m=m,
                theta=array(rng.uniform(low, high, size=m), "float32"))


def _chain(rng, n, m):
    """H = diag(a + exp(theta[i mod m])) + c (the path's Laplacian), a from 0.1 to 8, c = 1: eigenvalues between
    min(a + exp(theta)) and max(a + exp(theta)) + 4, a condition number below 28."""
    a = rng.uniform(0.1, 8.0, size=n)
    a[rng.permutation(n)[:2]] = (0.1, 8.0)
    return dict(g="chain", a=array(a, "float32"), b=array(rng.normal(size=n), "float32"), c=1.0, m=m,
                theta=array(rng.uniform(-1.0, 0.0, size=m), "float32"))


def _size(data) -> int:
    return len(data["a"]) if data["g"] == "chain" else np.asarray(data["X"]).shape[1]


CONVERGED = 1e-8  # CG's relative residual, in float64, where its float32 run has reached float32 precision


def cg_steps(data, upstream: np.ndarray) -> int:
    """How many CG steps on H v = upstream bring the relative residual below CONVERGED (float64, at w*): the
    cases ask for that many and a few more, so that CG reaches float32 precision and its residual stays far
    from float32's underflow (where d.Hd would be 0 and a = r.r / 0). tests/test_implicit_cases.py runs CG in
    float32 on every graded case to check both."""
    product = hessian_product(data, np.asarray(data["theta"], np.float64))
    _, residuals = conjugate_gradients(product, np.asarray(upstream, np.float64), 100, CONVERGED ** 2)
    if not residuals or residuals[-1] >= CONVERGED:
        raise ValueError("argmin_gradient: a case whose CG does not converge within 100 steps")
    return len(residuals)


def make_cases(rng: np.random.Generator):
    def one(id_, data, public=False, tags=(), weight=1.0, time_limit=20.0, generator=None):
        n, m = _size(data), len(data["theta"])
        draw = generator or rng
        weights = array(draw.uniform(-2.0, 2.0, size=n), "float32")
        cg_iters = min(100, max(10, cg_steps(data, weights) + int(draw.integers(0, 4))))
        args = dict(data, cg_iters=cg_iters, upstream=weights)
        shape = "" if data["g"] == "chain" else f", X of shape {np.asarray(data['X']).shape}"
        description = (f"float32 Tensor theta of shape ({m},), w of shape ({n},), {ARGMIN_FUNCTIONS[data['g']]}"
                       f"{shape}, cg_iters = {cg_iters}, enough for CG to converge, loss = sum(w̄ * w) with "
                       "weights w̄")
        return case(id_, description, "float32", tags=("upstream", *tags), public=public, weight=weight,
                    time_limit=time_limit, reason=REASON, args=args)

    def fixed(seed):
        return np.random.default_rng(seed)

    n1, n2, n3 = (int(n) for n in rng.integers(40, 71, size=3))
    return [
        # public: one case per kind of graded check (ridge with one penalty and with groups; logistic; n = 100,000)
        one("ridge-40", _regression(fixed(401), "ridge", 40, 1), public=True, generator=fixed(402)),
        one("ridge-48-groups-3", _regression(fixed(481), "ridge", 48, 3), public=True, generator=fixed(482)),
        one("logistic-40-groups-2", _regression(fixed(4001), "logistic", 40, 2), public=True,
            generator=fixed(4002)),
        one("chain-scale", _chain(fixed(100_001), SCALE_N, 10), public=True, tags=("scale",), weight=2.0,
            time_limit=40.0, generator=fixed(100_002)),
        # hidden: other sizes, groups and data
        one("ridge-random", _regression(rng, "ridge", n1, 1)),
        one("ridge-random-groups", _regression(rng, "ridge", n2, int(rng.integers(2, 11)))),
        one("logistic-random", _regression(rng, "logistic", n3, int(rng.integers(1, 4)))),
        one("chain-random", _chain(rng, 200, int(rng.integers(2, 6)))),
        one("chain-scale-random", _chain(rng, SCALE_N, 10), tags=("scale",), weight=2.0, time_limit=40.0),
    ]


def probe(argmin_gradient, args):
    import tensorflow as tf

    g, inner_solver = argmin_objective(args), argmin_solver(args)
    like = tf.zeros([_size(args)], tf.float32)
    return weighted_theta_gradient(lambda theta: argmin_gradient(g, inner_solver, theta, int(args["cg_iters"])),
                                   args["theta"], args["upstream"], like, "the returned w", "(n,), the shape of w*")


BACKWARD = ("in grad_fn, solve H v = w̄ by `cg_iters` CG steps from v = 0 (r = w̄, d = r; each step one "
            "Hessian-vector product H d at (w*, theta)), then return `-outer.gradient(grad_w, theta, "
            "output_gradients=v)`, where `grad_w = inner.gradient(g(w, theta), w)` is computed inside `outer`'s "
            "block (nested tapes that watch w and theta)")

EXERCISE = Exercise(
    id="argmin_gradient",
    params=("g", "inner_solver", "theta", "cg_iters"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("x", "the returned w", check_dtype=True),
             Output("x_sample", f"the returned w (every {SAMPLE_STRIDE}th entry)", check_dtype=True),
             THETA_GRADIENT),
    materialized_pitfall="materialized-hessian",
    mistakes=(
        Mistake("no-gradient", "am_no_gradient",
                "no gradient reaches theta from your result (it is None): `inner_solver` runs outside TensorFlow "
                "(`tf.numpy_function` has no gradient), and no `@tf.custom_gradient` gives its result one",
                "return `inner_solver(theta)` from a function of theta decorated with `@tf.custom_gradient`; "
                + BACKWARD, look=NO_GRADIENT_LOOK),
        Mistake("one-step-gradient", "am_one_step",
                "your grad_fn applies the mixed derivative to w̄ itself: the inverse Hessian of the theorem "
                "(v = H⁻¹ w̄) is left out, which is right only where H is the identity",
                "solve H v = w̄ first: " + BACKWARD),
        Mistake("one-step-gradient", "am_hessian_times",
                "your grad_fn applies the mixed derivative to H w̄ (a Hessian-vector product) where the theorem needs "
                "H⁻¹ w̄, the solution of H v = w̄",
                "solve H v = w̄ with conjugate gradients instead of multiplying: " + BACKWARD),
        Mistake("sign-error", "am_sign",
                "your gradient is exactly the negative of the implicit one: the theorem's minus sign is missing "
                "(∇_w g(w*(θ), θ) = 0 gives dw*/dθ = -H⁻¹ ∂²g/∂w∂θ)",
                "return `-outer.gradient(grad_w, theta, output_gradients=v)`"),
        Mistake("ignores-upstream", "am_ignores_upstream",
                "your CG solves H v = 1 (a vector of ones) instead of H v = w̄, the upstream gradient: right only "
                "for loss = sum(w)",
                "start CG from r = w̄, grad_fn's argument"),
        Mistake("wrong-value", "am_steepest_descent",
                "each new CG direction is the new residual alone (d = r'): that is steepest descent, which needs "
                "far more than cg_iters steps at these condition numbers",
                "conjugate the directions: `d = r_new + (rr_new / rr) * d`",
                look=Look((r"\bd\w*\s*=\s*r\w*\s*(#.*)?$",), "the new direction is the new residual alone",
                          look_for="the line that sets the new CG direction to the new residual (`d = r`), without "
                                   "the `(rr_new / rr) * d` term")),
    ),
    hints={
        "materialized-hessian": "never form H (no `tape.jacobian`, no `tf.hessians`): each CG step needs only the "
                                "product H d, from double backprop or forward-over-backward, as in your "
                                "newton_cg_step",
        "unwatched-tensor": "call `tape.watch(w)` (and `tape.watch(theta)` on the tape of the mixed derivative) in "
                            "every tape of grad_fn: w* and theta are Tensors",
        "tape-outside-context": "compute `grad_w = inner.gradient(g(w, theta), w)` inside the `with` block of the "
                                "outer tape that differentiates it with respect to theta (and, for each H d, inside "
                                "the block of the tape that differentiates `tf.reduce_sum(grad_w * d)`)",
    },
)
