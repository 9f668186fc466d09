"""``implicit_solve(solver, A, b)``: x = solver(A, b) from a black-box solver (NumPy, outside TensorFlow: no
gradient), with the adjoint gradients b̄ = solver(Aᵀ, x̄) and Ā = -b̄ xᵀ written with ``@tf.custom_gradient``.

The graded A are not symmetric (but one case, where solving with A instead of Aᵀ is still right: it shows the
symptom), with condition numbers at most 100, float32 and float64, n up to 1,000 (at n > 100 the probe returns
every 10th entry of x and b̄ and every 40th row and column of Ā, so that the public answers stay small).
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case
from autograder.course.implicit.callables import SOLVERS, linear_solver
from autograder.course.implicit.shared import NO_GRADIENT_LOOK, dense, require_shaped
from autograder.course.probing import raise_if_too_large, tensor
from autograder.model.course import Exercise, Look, Mistake, Output, Scope

REASON = ("implicit_solve: x = solver(A, b), b̄ = solver(Aᵀ, x̄), Ā = -b̄ xᵀ for an invertible A, not symmetric in "
          "general, of condition number at most 100, float32 or float64, n up to 1,000")
STRIDE = 40  # at n > 100, every 40th row and column of Ā is compared
VECTOR_STRIDE = 10  # and every 10th entry of x and b̄


def _orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


def _matrix(rng: np.random.Generator, n: int, kappa: float, symmetric: bool = False) -> np.ndarray:
    """A with singular values from 1 to ``kappa`` (its condition number), not symmetric unless asked."""
    u = _orthogonal(rng, n)
    v = u if symmetric else _orthogonal(rng, n)
    return (u * np.geomspace(1.0, kappa, n)) @ v.T


def _diagonal_heavy(rng: np.random.Generator, n: int) -> np.ndarray:
    """A diagonal from 2 to 60 plus noise of spectral norm about 1 (cheap at n = 1,000): condition number below
    61, and A - Aᵀ of norm about 1.4, so solving with A instead of Aᵀ is clearly wrong."""
    return np.diag(rng.uniform(2.0, 60.0, size=n)) + rng.normal(size=(n, n)) / (2.0 * np.sqrt(n))


def make_cases(rng: np.random.Generator):
    def one(id_, matrix, dtype, solver, what, public=False, generator=None):
        draw = generator or rng
        n = len(matrix)
        args = dict(A=array(matrix, dtype), b=array(draw.normal(size=n), dtype), solver=solver,
                    upstream=array(draw.uniform(-2.0, 2.0, size=n), dtype))
        description = (f"{dtype} Tensors A of shape ({n}, {n}) ({what}) and b of shape ({n},), solver = "
                       f"{SOLVERS[solver]}, loss = sum(w * x) with weights w")
        # n = 1,000: two solves of a dense system, which a loaded machine's BLAS threads can make slow
        return case(id_, description, dtype, tags=("upstream",), public=public, reason=REASON, args=args,
                    time_limit=40.0 if n > 100 else 20.0)

    def fixed(seed):
        return np.random.default_rng(seed)

    n1, n2, n3 = (int(n) for n in rng.integers(5, 31, size=3))
    return [
        # public: one case per kind of graded check (float32 and float64, both solvers, a symmetric A where the
        # untransposed adjoint is right, n = 1,000)
        one("f32-4", _matrix(fixed(401), 4, 20.0), "float32", "lu", "not symmetric, condition number 20",
            public=True, generator=fixed(402)),
        one("f32-3-symmetric", _matrix(fixed(301), 3, 10.0, symmetric=True), "float32", "lu",
            "symmetric, condition number 10", public=True, generator=fixed(302)),
        one("f64-6", _matrix(fixed(601), 6, 90.0), "float64", "qr", "not symmetric, condition number 90",
            public=True, generator=fixed(602)),
        one("f32-1000", _diagonal_heavy(fixed(1001), 1000), "float32", "lu",
            f"not symmetric, condition number below 61; every {VECTOR_STRIDE}th entry of x and of the gradient with "
            f"respect to b, every {STRIDE}th row and column of the one with respect to A are compared", public=True,
            generator=fixed(1002)),
        # hidden: other sizes, conditions, dtypes and solvers
        one("f32-random", _matrix(rng, n1, float(rng.uniform(10, 95))), "float32", "lu",
            "not symmetric, random condition number up to 100"),
        one("f64-random", _matrix(rng, n2, float(rng.uniform(10, 95))), "float64", "qr",
            "not symmetric, random condition number up to 100"),
        one("f32-random-qr", _matrix(rng, n3, float(rng.uniform(10, 95))), "float32", "qr",
            "not symmetric, random condition number up to 100"),
        one("f64-symmetric-random", _matrix(rng, 7, 50.0, symmetric=True), "float64", "lu",
            "symmetric, condition number 50"),
        one("f64-300", _diagonal_heavy(rng, 300), "float64", "lu", "not symmetric, condition number below 61"),
        one("f32-1000-random", _diagonal_heavy(rng, 1000), "float32", "lu",
            "not symmetric, condition number below 61"),
    ]


def probe(implicit_solve, args):
    import tensorflow as tf

    A, b = tensor(args["A"]), tensor(args["b"])
    solver = linear_solver(args)
    n = len(args["b"])
    try:
        with tf.GradientTape() as tape:
            tape.watch([A, b])
            x = require_shaped(implicit_solve(solver, A, b), "the returned x", b, "the shape of b")
            loss = tf.reduce_sum(tf.constant(args["upstream"], dtype=x.dtype) * x)
        grad_a, grad_b = tape.gradient(loss, [A, b])
    except Exception as error:  # noqa: BLE001
        raise_if_too_large(error, n, np.asarray(args["b"]).dtype)
        raise
    if grad_a is not None:
        grad_a = require_shaped(dense(grad_a), "the gradient with respect to A", A, "the shape of A")
    if grad_b is not None:
        grad_b = require_shaped(dense(grad_b), "the gradient with respect to b", b, "the shape of b")
    if n > 100:
        return {"x_sample": x[::VECTOR_STRIDE], "grad_b_sample": None if grad_b is None else grad_b[::VECTOR_STRIDE],
                "grad_A_sample": None if grad_a is None else grad_a[::STRIDE, ::STRIDE]}
    return {"x": x, "grad_b": grad_b, "grad_A": grad_a}


ADJOINT = ("in grad_fn, solve the adjoint system with the transpose: `grad_b = solver(tf.transpose(A), upstream)`, "
           "then `grad_A = -tf.tensordot(grad_b, x, axes=0)` (the outer product b̄ xᵀ)")

EXERCISE = Exercise(
    id="implicit_solve",
    params=("solver", "A", "b"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("x", "the returned x", check_dtype=True),
             Output("x_sample", f"the returned x (every {VECTOR_STRIDE}th entry)", check_dtype=True),
             Output("grad_b", "the gradient with respect to b", gradient=True),
             Output("grad_b_sample", f"the gradient with respect to b (every {VECTOR_STRIDE}th entry)", gradient=True),
             Output("grad_A", "the gradient with respect to A", gradient=True),
             Output("grad_A_sample", f"the gradient with respect to A (every {STRIDE}th row and column)",
                    gradient=True)),
    requires_custom_gradient=True,
    scope=Scope(dtypes=("float32", "float64")),
    mistakes=(
        Mistake("no-gradient", "solve_no_gradient",
                "no gradient reaches A and b from your result (it is None): the solver runs outside TensorFlow "
                "(`tf.numpy_function` has no gradient), and no `@tf.custom_gradient` gives its result one",
                "wrap the solve in a function of (A, b) decorated with `@tf.custom_gradient` that returns "
                "`(solver(A, b), grad_fn)`; " + ADJOINT, look=NO_GRADIENT_LOOK),
        Mistake("adjoint-not-transposed", "solve_not_transposed",
                "your grad_fn solves the adjoint system with A (`solver(A, upstream)`) where the theorem needs its "
                "transpose: right for a symmetric A only",
                "solve with the transpose: `grad_b = solver(tf.transpose(A), upstream)`"),
        Mistake("sign-error", "solve_sign",
                "your gradient with respect to A is exactly the negative of the right one: the minus of "
                "Ā = -b̄ xᵀ is missing",
                "return `grad_A = -tf.tensordot(grad_b, x, axes=0)`"),
        Mistake("sign-error", "solve_negated",
                "both your gradients are exactly the negatives of the right ones: the minus sign is on b̄ "
                "(b̄ = -solver(Aᵀ, x̄)) and not on Ā, where it belongs",
                "b̄ = solver(Aᵀ, x̄) has no minus; Ā = -b̄ xᵀ has one"),
        Mistake("sign-error", "solve_negated_b",
                "your gradient with respect to b is exactly the negative of the right one (b̄ = -solver(Aᵀ, x̄)): "
                "the theorem's minus belongs to Ā = -b̄ xᵀ alone",
                "b̄ = solver(Aᵀ, x̄) has no minus; Ā = -b̄ xᵀ has one"),
        Mistake("transposed", "solve_outer_transposed",
                "your gradient with respect to A is the transpose of the right one: the outer product x b̄ᵀ instead "
                "of b̄ xᵀ (row i of Ā is b̄_i times x)",
                "return `grad_A = -grad_b[:, None] * x[None, :]`"),
        Mistake("ignores-upstream", "solve_ignores_upstream",
                "your grad_fn solves with a vector of ones instead of the upstream gradient: right only for "
                "loss = sum(x)",
                "solve the adjoint system with grad_fn's argument: `grad_b = solver(tf.transpose(A), upstream)`"),
        Mistake("one-step-gradient", "solve_upstream_not_solved",
                "your grad_fn uses the upstream gradient x̄ itself as b̄, without solving the adjoint system "
                "Aᵀ b̄ = x̄: right only for A = I",
                ADJOINT),
        Mistake("wrong-value", "solve_no_gradient_for_a",
                "your gradient with respect to A is None while the one with respect to b is right: grad_fn returns "
                "no Ā (or A is not an input of the `@tf.custom_gradient` function)",
                "make both A and b inputs of the decorated function and return `(grad_A, grad_b)` in that order, "
                "with `grad_A = -tf.tensordot(grad_b, x, axes=0)`",
                look=Look(("@grad_fn",), "this gives a gradient for b only, none for A",
                          look_for="what grad_fn returns")),
    ),
    hints={
        "no-custom-gradient": "call `solver` for x inside a function of (A, b) decorated with `@tf.custom_gradient` "
                              "and write grad_fn yourself: " + ADJOINT + "; letting TensorFlow differentiate "
                              "`tf.linalg.solve` gives the right numbers but not the adjoint you are asked to write",
    },
)
