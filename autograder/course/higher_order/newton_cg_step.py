"""``newton_cg_step(f, x, iters)``: x + p, with p from ``iters`` steps of conjugate gradients on H p = -grad f,
each step driven by one Hessian-vector product (n up to 100,000: the Hessian is never formed).

The cases meet the contract's line: a positive-definite Hessian at x whose condition number is 100 or more
(tests/test_case_design.py computes it), so that one CG step more or fewer gives clearly other numbers
(tests/test_public_coverage.py checks that every graded case tells those mistakes). The functions are
cheap to differentiate at n = 100,000 (a separable quadratic plus a softplus chain: a tridiagonal Hessian),
and the early-stop cases are exact in float32 (dyadic numbers, one eigenvalue on the residual's support),
so that r'.r' is exactly 0 after the first step in every reasonable implementation.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, diagnostic
from autograder.course.probing import raise_if_too_large, require_like, tensor
from autograder.model.course import Exercise, Look, Mistake, Output

FUNCTIONS = {
    "quadratic": "f(x) = 0.5 x^T A x - b^T x",
    "logistic": "f(x) = sum(softplus(-y * (B x))) + 0.5 lam |x|^2 (ridge logistic regression)",
    "chain": "f(x) = 0.5 sum(a x^2) - b^T x + c sum(softplus(x[1:] - x[:-1]))",
    "diagonal": "f(x) = 0.5 sum(a x^2) - b^T x",
}
SCALE_N = 100_000
SAMPLE_STRIDE = 100  # at n = 100,000 the probe returns every 100th entry of x + p (the public answers stay small)
REASON = ("newton_cg_step: x + p after exactly iters CG steps on H(x) p = -grad f(x) (an early stop when r'.r' is "
          "0), for f with a positive-definite Hessian of condition number 100 or more, x an (n,) float32 Tensor, "
          "n up to 100,000, iters from 1 to 5 below n")


def cg_function(args):
    """The case's f, built in the child from plain data (the parent never imports TensorFlow)."""
    import tensorflow as tf

    name = args["f"]
    if name == "quadratic":
        matrix, b = tf.constant(args["A"]), tf.constant(args["b"])
        return lambda x: 0.5 * tf.reduce_sum(x * tf.linalg.matvec(matrix, x)) - tf.reduce_sum(b * x)
    if name == "logistic":
        matrix, y, lam = tf.constant(args["B"]), tf.constant(args["y"]), float(args["lam"])
        return lambda x: (tf.reduce_sum(tf.nn.softplus(-y * tf.linalg.matvec(matrix, x)))
                          + 0.5 * lam * tf.reduce_sum(x * x))
    a, b = tf.constant(args["a"]), tf.constant(args["b"])
    if name == "diagonal":
        return lambda x: 0.5 * tf.reduce_sum(a * x * x) - tf.reduce_sum(b * x)
    c = float(args["c"])
    return lambda x: (0.5 * tf.reduce_sum(a * x * x) - tf.reduce_sum(b * x)
                      + c * tf.reduce_sum(tf.nn.softplus(x[1:] - x[:-1])))


# --------------------------------------------------------------------------- the cases' data

def _spd(rng: np.random.Generator, n: int, kappa: float) -> np.ndarray:
    """A symmetric positive-definite (n, n) matrix with eigenvalues spread from 1 to kappa."""
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    matrix = (q * np.geomspace(1.0, kappa, n)) @ q.T
    return (matrix + matrix.T) / 2


def _quadratic(rng, n, kappa, dtype="float32"):
    return dict(f="quadratic", x=array(rng.normal(size=n), dtype), A=array(_spd(rng, n, kappa), dtype),
                b=array(rng.normal(size=n), dtype))


def _logistic(rng, m, n, dtype="float32"):
    """Fewer examples than features (m < n): the smallest eigenvalue is lam itself, 0.05, and the largest far above
    5 (columns scaled up to 3), so the condition number is 100 or more (tests/test_case_design.py computes it)."""
    scales = np.geomspace(0.5, 3.0, n)
    return dict(f="logistic", x=array(0.5 * rng.normal(size=n), dtype),
                B=array(rng.normal(size=(m, n)) * scales, dtype), y=array(rng.choice([-1.0, 1.0], size=m), dtype),
                lam=0.05)


def _chain(rng, n, top, dtype="float32"):
    """a from 1 to ``top`` (log-uniform, both ends present) and a softplus chain of weight 1."""
    a = np.exp(rng.uniform(0.0, np.log(top), size=n))
    a[rng.permutation(n)[:2]] = (1.0, top)
    return dict(f="chain", x=array(rng.normal(size=n), dtype), a=array(a, dtype), b=array(rng.normal(size=n), dtype),
                c=1.0)


def _early_stop(rng, n, low):
    """Exact in float32: a = ``low`` (2 or 4) where the gradient is non-zero, 512 where it is zero. The residual
    lies in one eigenspace, so the first step lands on the exact minimiser and r'.r' is exactly 0."""
    x = rng.integers(-6, 7, size=n) / 2.0
    x[x == 0] = 1.5
    active = np.zeros(n, dtype=bool)
    active[rng.permutation(n)[:max(2, n // 2)]] = True
    a = np.where(active, float(low), 512.0)
    b = np.where(active, rng.integers(-8, 9, size=n).astype(float), a * x)
    if not np.any(b[active] != a[active] * x[active]):
        b[np.flatnonzero(active)[0]] += 3.0
    return dict(f="diagonal", x=array(x, "float32"), a=array(a, "float32"), b=array(b, "float32"))


def _fixed(seed: int) -> np.random.Generator:
    """The generator of a public case: the same data whatever the grading seed."""
    return np.random.default_rng(seed)


def make_cases(rng: np.random.Generator):
    def one(id_, data, iters, what, public=False, tags=(), weight=1.0, time_limit=20.0, tells=None, advice=None,
            variable=False):
        args = dict(data, iters=int(iters), variable=variable)
        dtype = str(np.asarray(args["x"]).dtype)
        kind = "tf.Variable" if variable else "Tensor"
        description = f"{dtype} {kind} x of shape ({len(args['x'])},), {what}, iters = {iters}"
        if tells:
            return diagnostic(id_, description, dtype, tags=tags, time_limit=time_limit, tells=tells, args=args)
        if advice:
            return advisory(id_, description, dtype, tags=tags, time_limit=time_limit, advice=advice, args=args)
        return case(id_, description, dtype, tags=tags, public=public, weight=weight, time_limit=time_limit,
                    reason=REASON, args=args)

    quadratic_5 = _quadratic(_fixed(501), 5, 120.0)
    early = dict(f="diagonal", x=array([1.0, -2.0, 0.5, 1.5, 0.25, -1.0], "float32"),
                 a=array([4.0, 4.0, 4.0, 512.0, 512.0, 512.0], "float32"),
                 b=array([0.0, 4.0, -6.0, 768.0, 128.0, -512.0], "float32"))
    n_quadratic, n_logistic, n_chain = (int(n) for n in (rng.integers(16, 31), rng.integers(12, 21),
                                                         rng.integers(30, 61)))
    hidden_iters = [int(k) for k in rng.integers(2, 6, size=4)]
    return [
        # public: one case per kind of graded check (iters = 1, where CG is steepest descent; iters 2 and 3; the
        # largest, 5; a non-quadratic f; a non-diagonal Hessian; the early stop; n = 100,000)
        one("quadratic-5-iters-1", quadratic_5, 1, "f(x) = 0.5 x^T A x - b^T x with a fixed SPD (5, 5) A "
            "(eigenvalues 1 to 120)", public=True, tags=("tensor",)),
        one("quadratic-8-iters-2", _quadratic(_fixed(802), 8, 200.0), 2,
            "f(x) = 0.5 x^T A x - b^T x with a fixed SPD (8, 8) A (eigenvalues 1 to 200)", public=True),
        one("logistic-12-iters-3", _logistic(_fixed(1203), 8, 12), 3,
            "ridge logistic regression f(x) = sum(softplus(-y * (B x))) + 0.5 lam |x|^2 with a fixed (8, 12) B, "
            "labels y = +-1, lam = 0.05", public=True),
        one("chain-20-iters-5", _chain(_fixed(2005), 20, 300.0), 5,
            "f(x) = 0.5 sum(a x^2) - b^T x + sum(softplus(x[1:] - x[:-1])) with fixed a from 1 to 300 "
            "(a tridiagonal Hessian)", public=True),
        one("early-stop-6-iters-3", early, 3,
            "x = [1, -2, 0.5, 1.5, 0.25, -1], f(x) = 0.5 sum(a x^2) - b^T x with a = [4, 4, 4, 512, 512, 512], "
            "b = [0, 4, -6, 768, 128, -512] (the gradient lies in the eigenspace of 4: the first step is exact, "
            "r'.r' = 0, and the other steps leave p as it is)", public=True),
        one("chain-scale-iters-2", _chain(_fixed(100_002), SCALE_N, 1000.0), 2,
            "f(x) = 0.5 sum(a x^2) - b^T x + sum(softplus(x[1:] - x[:-1])) with fixed a from 1 to 1000, "
            f"n = {SCALE_N:,} (an explicit Hessian would need 40 GB; every {SAMPLE_STRIDE}th entry of x + p is "
            "compared)", public=True, tags=("scale",), weight=2.0, time_limit=30.0),
        # hidden: other sizes, conditions and iters
        one("quadratic-random", _quadratic(rng, n_quadratic, float(10 ** rng.uniform(2.05, 2.5))), hidden_iters[0],
            f"f(x) = 0.5 x^T A x - b^T x with a random SPD ({n_quadratic}, {n_quadratic}) A (condition 110 to 300)"),
        one("quadratic-random-iters-1", _quadratic(rng, 10, 150.0), 1,
            "f(x) = 0.5 x^T A x - b^T x with a random SPD (10, 10) A (condition 150)"),
        one("logistic-random", _logistic(rng, n_logistic - 4, n_logistic), hidden_iters[1],
            f"ridge logistic regression with a random ({n_logistic - 4}, {n_logistic}) B"),
        one("chain-random", _chain(rng, n_chain, 500.0), hidden_iters[2],
            "f(x) = 0.5 sum(a x^2) - b^T x + sum(softplus(x[1:] - x[:-1])) with random a from 1 to 500"),
        one("early-stop-random", _early_stop(rng, 8, int(rng.choice([2, 4]))), hidden_iters[3],
            "f(x) = 0.5 sum(a x^2) - b^T x with the gradient in one eigenspace (the first step is exact and the "
            "other steps leave p as it is)"),
        one("chain-scale-random", _chain(rng, SCALE_N, 1000.0), 5,
            "f(x) = 0.5 sum(a x^2) - b^T x + sum(softplus(x[1:] - x[:-1])) with random a from 1 to 1000 (an "
            "explicit Hessian of this size would need 40 GB)", tags=("scale",), weight=2.0,
            time_limit=30.0),
        # beyond the line, for nothing
        one("quadratic-5-iters-1-variable", quadratic_5, 1, "the public (5, 5) quadratic", tags=("variable",),
            variable=True, tells="a Variable x: right here and wrong for the same Tensor x means a tape that does "
                                 "not watch x (tapes watch trainable Variables by themselves)"),
        one("logistic-12-float64", _logistic(_fixed(1203), 8, 12, "float64"), 3,
            "the public logistic regression in float64 (the contract's x is float32)",
            advice="your newton_cg_step does not keep a float64 x in float64 (a hard-coded dtype or a float32 "
                   "constant?)"),
    ]


def probe(newton_cg_step, args):
    x = tensor(args["x"], args.get("variable", False))
    n = len(args["x"])
    try:
        x_new = newton_cg_step(cg_function(args), x, int(args["iters"]))
    except Exception as error:  # noqa: BLE001
        raise_if_too_large(error, n, np.asarray(args["x"]).dtype)
        raise
    x_new = require_like(x_new, "x + p (the returned value)", like=x)
    if n >= SCALE_N:
        return {"x_new_sample": x_new[::SAMPLE_STRIDE]}
    return {"x_new": x_new}


STEPS_FIX = "run exactly `iters` steps (`for _ in range(iters):`), stopping early only when r'.r' is exactly 0"

EXERCISE = Exercise(
    id="newton_cg_step",
    params=("f", "x", "iters"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("x_new", "x + p", check_dtype=True),
             Output("x_new_sample", f"x + p (every {SAMPLE_STRIDE}th entry)", check_dtype=True)),
    materialized_pitfall="materialized-hessian",
    mistakes=(
        # Run at n = 100,000 too (a few products): tests/test_public_coverage.py checks that every graded case but
        # the early stops tells them, as the contract promises.
        Mistake("wrong-value", "cg_one_step_more",
                "your loop runs iters + 1 CG steps (a `range(iters + 1)`, or a `<=` in the loop's condition)",
                STEPS_FIX, cases=lambda case: True,
                look=Look((r"range\([^)]*\+\s*1|<=",), "this loop runs one step more than `iters`")),
        Mistake("wrong-value", "cg_one_step_fewer",
                "your loop runs iters - 1 CG steps (a `range(iters - 1)`, or a counter that starts at 1 with a `<`)",
                STEPS_FIX, cases=lambda case: True,
                look=Look((r"range\([^)]*-\s*1|range\(\s*1\s*,|\bwhile\b.*<",),
                          "this loop runs one step fewer than `iters`")),
        Mistake("wrong-value", "cg_steepest_descent",
                "each new direction is the new residual alone (d = r'): that is steepest descent with an exact line "
                "search, the same as CG for the first step only",
                "conjugate the directions: `d = r_new + b * d` with `b = (r_new . r_new) / (r . r)`",
                look=Look((r"@loop ^\s*d\w*\s*=\s*r\w*\s*$",),
                          "the new direction is the residual alone",
                          look_for="the update of the direction: it must add `b * d` to the new residual")),
        Mistake("wrong-value", "cg_returns_p",
                "your function returns the step p, not the new point x + p",
                "return `x + p`",
                look=Look(("@return",), "this returns the step p, not the point x + p")),
        Mistake("wrong-value", "cg_wrong_sign",
                "your step has the wrong sign (x - p, or a first residual r = +grad f(x)): it climbs instead of "
                "descending",
                "start from `r = -g` with g = grad f(x), `d = r`, and return `x + p`",
                look=Look((r"^\s*r\w*\s*=\s*(?!-)\s*\w*g\w*\s*$", r"return\s+x\s*-"),
                          "the sign of the step is flipped here")),
        Mistake("wrong-value", "cg_no_early_stop",
                "after an exact step (r'.r' = 0) your loop goes on: the next step divides 0 by 0 and p becomes NaN",
                "stop the loop when r'.r' is 0 (`if rr_new == 0: break`); the remaining steps leave p unchanged",
                look=Look((r"\bfor\b.*\brange\(|\bwhile\b",), "this loop does not stop when r'.r' is 0")),
        Mistake("wrong-value", "cg_gradient_residual",
                "each new residual is -grad f(x + p), the gradient at the moving point, instead of `r - a * Hd`: "
                "for a non-quadratic f that is another algorithm (nonlinear CG), not CG on the Newton system at x",
                "compute grad f(x) once; then update `r = r - a * Hd`, with every Hd a product with H(x) at the "
                "same x",
                look=Look((r"^\s*r\w*\s*=\s*-?\s*[\w.]*\(.*\+",),
                          "the residual is recomputed from a gradient at the moving point")),
        Mistake("wrong-value", "cg_hvp_moving_point",
                "your Hessian-vector products are taken at x + p, the moving point, instead of at x: for a "
                "non-quadratic f that is another matrix at every step",
                "take every Hessian-vector product at the x the function was called with: CG solves H(x) p = "
                "-grad f(x), one fixed linear system",
                look=Look((r"\w\([^()]*\bx\s*\+\s*\w+",), "this Hessian-vector product is taken at x + p, not at x")),
        Mistake("tape-outside-context", "cg_zero_hvp",
                "every H d is zero (the outer tape never recorded the inner gradient, and "
                "`unconnected_gradients=ZERO` turned its None into zeros), so a = r.r / 0 is inf and p is inf or "
                "NaN",
                "compute `g = inner.gradient(y, x)` and `tf.reduce_sum(g * d)` inside the outer tape's `with` block, "
                "then `outer.gradient(that_scalar, x)`",
                # not on the early stops, where its NaN is also the NaN of a loop that does not stop
                cases=lambda case: case.args["f"] != "diagonal" and not case.has("scale")),
        Mistake("wrong-value", "cg_row_sums",
                "your Hd is `outer.gradient(g, x) * d`: the gradient of sum(g) is the row sums H 1, and multiplying "
                "them by d element by element equals H d only when H is diagonal",
                "form the scalar `tf.reduce_sum(g * d)` inside the outer tape's block and return "
                "`outer.gradient(that_scalar, x)`, or use forward-over-backward with `acc.jvp(g)`",
                look=Look((r"\.gradient\([^)]*\)\s*\*", r"\*\s*\w+\.gradient\(",
                           r"\.gradient\(\s*(g|grad\w*|dy\w*|first\w*)\s*,"),
                          "the gradient of the gradient g is the row sums H 1, not H d")),
    ),
    hints={
        "materialized-hessian": "never form H (no `tape.jacobian`, no `tf.hessians`, no loop over unit vectors): each "
                                "CG step needs only H d, from double backprop (the gradient of "
                                "`tf.reduce_sum(g * d)`) or forward-over-backward (`acc.jvp(g)`), a few gradients in "
                                "O(n) memory; your hessian_vector_product of Exercise 2 does it",
        "tape-outside-context": "compute `g = inner.gradient(y, x)` and `tf.reduce_sum(g * d)` inside the outer tape's "
                                "`with` block (or the inner tape inside the ForwardAccumulator's block), for every "
                                "Hessian-vector product",
        "unwatched-tensor": "call `tape.watch(x)` in every tape that differentiates with respect to x: the tape of "
                            "the gradient and both tapes of each Hessian-vector product",
        "non-persistent-tape": "use fresh tapes for each Hessian-vector product (a helper function that opens its own "
                               "tapes), or create the tape that you ask for several gradients with `persistent=True`",
        "gradient-cut": "keep the gradient g a tensor inside the Hessian-vector product: no `.numpy()`, `float()` or "
                        "`tf.stop_gradient` between `inner.gradient(...)` and `outer.gradient(...)` (the CG "
                        "scalars a and b may be plain numbers: they are not differentiated)",
    },
)
