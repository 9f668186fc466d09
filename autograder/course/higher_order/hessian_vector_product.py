"""``hessian_vector_product(f, x, v)``: H(x) v without forming H (it must work for n = 100,000)."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case
from autograder.course.probing import raise_if_too_large, require_like, tensor
from autograder.model.course import ContractError, Exercise, Look, Mistake, Output

FUNCTIONS = {
    "cube_sum": "f(x) = sum(x**3)",
    "quadratic": "f(x) = 0.5 x^T A x",
    "sin_square": "f(x) = sum(sin(x) * x**2)",
    "logsumexp": "f(x) = logsumexp(x)",
    "coupled": "f(x) = logsumexp(x) * sum(sin(x)) + sum(x[1:] * x[:-1]**2)",
    "linear": "f(x) = sum(3 x) (linear: H v = 0)",
}
SCALE_N = 100_000


def vector_function(args):
    import tensorflow as tf

    name = args["f"]
    if name == "quadratic":
        matrix = tf.constant(args["A"])
        return lambda x: 0.5 * tf.reduce_sum(x * tf.linalg.matvec(matrix, x))
    return {
        "cube_sum": lambda x: tf.reduce_sum(x ** 3),
        "sin_square": lambda x: tf.reduce_sum(tf.sin(x) * x ** 2),
        "logsumexp": lambda x: tf.reduce_logsumexp(x),
        "coupled": lambda x: (tf.reduce_logsumexp(x) * tf.reduce_sum(tf.sin(x))
                              + tf.reduce_sum(x[1:] * x[:-1] ** 2)),
        "linear": lambda x: tf.reduce_sum(3.0 * x),
    }[name]


REASON = "hessian_vector_product: H(x) v with shape (n,) for f: (n,) -> scalar, x and v (n,) Tensors"


def make_cases(rng: np.random.Generator):
    def one(id_, f, x, v, dtype="float32", A=None, public=False, tags=(), time_limit=20.0, weight=1.0, what=None,
            advice=None):
        n = len(x)
        description = what or f"{dtype} Tensors x, v of shape ({n},), {FUNCTIONS[f]}"
        args = dict(f=f, x=array(x, dtype), v=array(v, dtype), A=None if A is None else array(A, dtype))
        if advice:
            return advisory(id_, description, dtype, tags=tags, time_limit=time_limit, advice=advice, args=args)
        return case(id_, description, dtype, tags=tags, public=public, time_limit=time_limit, weight=weight,
                    reason=REASON, args=args)

    def symmetric(n, dtype):
        m = rng.normal(size=(n, n))
        return array((m + m.T) / 2, dtype)

    n1, n2 = (int(n) for n in rng.integers(3, 8, size=2))
    return [
        one("f32-cube", "cube_sum", [1, 2, 3], [1, 0, -1], public=True,
            what="float32 Tensors x = [1, 2, 3], v = [1, 0, -1], f(x) = sum(x**3)"),
        one("f32-quadratic-2", "quadratic", [5, -7], [1, 2], A=[[2, 1], [1, 3]], public=True,
            what="float32 Tensors x = [5, -7], v = [1, 2], f(x) = 0.5 x^T A x with A = [[2, 1], [1, 3]]"),
        one("f32-sin-square", "sin_square", rng.normal(size=n1), rng.normal(size=n1)),
        one("f32-sin-square-2", "sin_square", rng.normal(size=n2), rng.normal(size=n2)),
        one("f32-quadratic", "quadratic", rng.normal(size=4), rng.normal(size=4), A=symmetric(4, "float32"),
            what="float32 Tensors x, v of shape (4,), f(x) = 0.5 x^T A x with a symmetric (4, 4) A"),
        one("f32-logsumexp", "logsumexp", rng.normal(size=6), rng.normal(size=6)),
        one("f32-coupled", "coupled", rng.normal(size=6), rng.normal(size=6)),
        one("f32-coupled-5", "coupled", rng.normal(size=5), rng.normal(size=5)),
        one("f32-n1", "coupled", rng.normal(size=1), rng.normal(size=1)),
        one("f32-linear", "linear", rng.normal(size=4), rng.normal(size=4), tags=("degenerate",),
            what="float32 Tensors x, v of shape (4,), a linear f (H v = 0; the contract grades no linear f here)",
            advice="your hessian_vector_product does not give zeros (or None) for a linear f: the inner gradient "
                   "is then a constant, and `outer.gradient(...)` returns None; pass "
                   "`unconnected_gradients=tf.UnconnectedGradients.ZERO` to get zeros"),
        one("f64-coupled", "coupled", rng.normal(size=6), rng.normal(size=6), "float64",
            what="float64 Tensors x, v of shape (6,) (the contract's inputs are float32)",
            advice="your hessian_vector_product does not keep float64 inputs in float64 (a hard-coded dtype?)"),
        # Last: a separable f, so the reference (and any O(n) solution) is fast; an (n, n) Hessian needs 40 GB.
        # "Must work for n = 100,000" is the point of the exercise: this case weighs as much as three small ones.
        one("f32-scale", "sin_square", rng.normal(size=SCALE_N), rng.normal(size=SCALE_N), tags=("scale",),
            time_limit=30.0, weight=3.0,
            what=f"float32 Tensors x, v of shape ({SCALE_N},), f(x) = sum(sin(x) * x**2) "
                 "(an explicit Hessian would need 40 GB)"),
    ]


def probe(hessian_vector_product, args):
    x, v = tensor(args["x"]), tensor(args["v"])
    try:
        hv = hessian_vector_product(vector_function(args), x, v)
    except Exception as error:  # noqa: BLE001
        raise_if_too_large(error, len(args["x"]), np.asarray(args["x"]).dtype)
        raise
    return {"hv": None if hv is None else require_like(hv, "H v", like=x)}


EXERCISE = Exercise(
    id="hessian_vector_product",
    params=("f", "x", "v"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("hv", "H v", check_dtype=True, gradient=True, none_means_zero=True),),
    materialized_pitfall="materialized-hessian",
    mistakes=(
        Mistake("wrong-value", "hvp_row_sums",
                "you differentiated the gradient g itself (`outer.gradient(g, x)`, the row sums H 1) and multiplied "
                "by v element by element: that equals H v only when H is diagonal",
                "form the scalar `tf.reduce_sum(g * v)` inside the outer tape's block and return "
                "`outer.gradient(that_scalar, x)`",
                look=Look((r"\.gradient\([^)]*\)\s*\*", r"\*\s*\w+\.gradient\(",
                           r"\.gradient\(\s*(g|grad\w*|dy\w*|first\w*)\s*,"),
                          "the gradient of the gradient g is the row sums H 1, not H v")),
        Mistake("wrong-value", "hvp_gradient",
                "the function returns the gradient of f, not the Hessian-vector product",
                "differentiate once more: the gradient of `tf.reduce_sum(g * v)` with respect to x is H v",
                look=Look(("@return",), "this returns the gradient of f")),
    ),
    hints={
        "materialized-hessian": "never call `tape.jacobian` (or loop over unit vectors) here: return "
                                "`outer.gradient(tf.reduce_sum(g * v), x)` with g the inner gradient, or use "
                                "`tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` around the inner tape and "
                                "`acc.jvp(g)`; both cost a few gradients and O(n) memory",
        "tape-outside-context": "compute `g = inner.gradient(y, x)` and `tf.reduce_sum(g * v)` inside the outer "
                                "tape's `with` block (or the inner tape inside the ForwardAccumulator's block)",
    },
)
