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
from autograder.course.implicit.callables import ARGMIN_FUNCTIONS, argmin_objective, argmin_solver
from autograder.course.implicit.shared import SAMPLE_STRIDE, SCALE_N, THETA_GRADIENT, weighted_theta_gradient
from autograder.course.probing import tensor
from autograder.model.course import Exercise, Mistake, Output

REASON = ("argmin_gradient: w* = inner_solver(theta) for g strictly convex in w, Hessian condition number at most "
          "50, theta (m,) with m up to 10, n up to 100,000, cg_iters from 10 to 100 enough for CG to reach float32 "
          "precision, and the implicit gradient -(d2g/dw dtheta)^T v with H v = w̄")


def _design(rng: np.random.Generator, count: int, n: int, top: float) -> np.ndarray:
    """X (count, n) whose XᵀX / count has eigenvalues from about 0 to ``top``."""
    u, _ = np.linalg.qr(rng.normal(size=(count, n)))
    v, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (u * np.sqrt(count * np.linspace(0.0, top, n))) @ v.T


def _regression(rng, name, n, m, count=None):
    """Ridge: XᵀX/N up to 8 and penalties exp(theta) from 0.2 to 0.5: condition number from about 16 to 43.
    Logistic: the curvature of the loss is at most a quarter of it, so the penalties are smaller."""
    count = count or 3 * n
    x = _design(rng, count, n, 8.0)
    truth = rng.normal(size=n)
    if name == "ridge":
        y, low, high = x @ truth + 0.5 * rng.normal(size=count), np.log(0.2), np.log(0.5)
    else:
        y, low, high = np.where(x @ truth + rng.normal(size=count) > 0, 1.0, -1.0), np.log(0.05), np.log(0.1)
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


def make_cases(rng: np.random.Generator):
    def one(id_, data, cg_iters, public=False, tags=(), weight=1.0, time_limit=20.0, generator=None):
        n, m = _size(data), len(data["theta"])
        weights = (generator or rng).uniform(-2.0, 2.0, size=n)
        args = dict(data, cg_iters=int(cg_iters), upstream=array(weights, "float32"))
        shape = "" if data["g"] == "chain" else f", X of shape {np.asarray(data['X']).shape}"
        description = (f"float32 Tensor theta of shape ({m},), w of shape ({n},), {ARGMIN_FUNCTIONS[data['g']]}"
                       f"{shape}, cg_iters = {cg_iters}, loss = sum(w̄ * w) with weights w̄")
        return case(id_, description, "float32", tags=("upstream", *tags), public=public, weight=weight,
                    time_limit=time_limit, reason=REASON, args=args)

    def fixed(seed):
        return np.random.default_rng(seed)

    n1, n2, n3 = (int(n) for n in rng.integers(5, 21, size=3))
    return [
        # public: one case per kind of graded check (ridge with one penalty and with groups; logistic; the fewest
        # CG steps, 10; n = 100,000)
        one("ridge-8", _regression(fixed(801), "ridge", 8, 1), 20, public=True, generator=fixed(802)),
        one("ridge-12-groups-3", _regression(fixed(1201), "ridge", 12, 3), 30, public=True, generator=fixed(1202)),
        one("logistic-10-groups-2", _regression(fixed(1001), "logistic", 10, 2), 30, public=True,
            generator=fixed(1002)),
        one("ridge-5-cg-10", _regression(fixed(501), "ridge", 5, 1), 10, public=True, generator=fixed(502)),
        one("chain-scale", _chain(fixed(100_001), SCALE_N, 10), 60, public=True, tags=("scale",), weight=2.0,
            time_limit=40.0, generator=fixed(100_002)),
        # hidden: other sizes, groups, data and steps
        one("ridge-random", _regression(rng, "ridge", n1, 1), int(rng.integers(3 * n1, 5 * n1 + 1))),
        one("ridge-random-groups", _regression(rng, "ridge", n2, int(rng.integers(2, 11))),
            int(rng.integers(3 * n2, 5 * n2 + 1))),
        one("logistic-random", _regression(rng, "logistic", n3, int(rng.integers(1, 4))),
            int(rng.integers(3 * n3, 5 * n3 + 1))),
        one("chain-random", _chain(rng, 40, int(rng.integers(2, 6))), 60),
        one("chain-scale-random", _chain(rng, SCALE_N, 10), int(rng.integers(60, 81)), tags=("scale",), weight=2.0,
            time_limit=40.0),
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
                + BACKWARD),
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
                "conjugate the directions: `d = r_new + (rr_new / rr) * d`"),
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
