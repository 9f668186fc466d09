"""Assignment ``jacobians``: cases, probes and mistake models of its five exercises.

Every case names a grader-side test function ``f`` by a string (``args["f"]``) with its
parameters as plain arrays; the probe builds ``f`` with TensorFlow inside the child. Inputs
come in pairs, the same data as a tf.Tensor (tag "tensor") and as a tf.Variable (tag
"variable"), so that a missing ``tape.watch`` shows as "wrong for Tensors, right for
Variables". Non-square Jacobians expose a transpose by its shape, square non-symmetric ones
by its values.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from autograder.exercises.common import array, case, require_tensor, tensor, uniform
from autograder.spec import Assignment, Exercise, Mistake, Output

JACOBIAN = Output("jacobian", "the Jacobian", none_means_zero=True, gradient=True)
BATCH_JACOBIAN = Output("batch_jacobian", "the per-example Jacobians", none_means_zero=True, gradient=True)
HESSIAN = Output("hessian", "the Hessian", none_means_zero=True, gradient=True)
JVP = Output("jvp", "J v", none_means_zero=True, gradient=True)

SCALE_N = 100_000


# =========================================================================== test functions (child side)

_COMPILED: dict[str, Any] = {}  # tf.functions built once per child, so a case does not retrace them


def _running_product(dtype):
    """y[i] = x[0] * ... * x[i], collected in a dynamic-size TensorArray inside a tf.function.

    The gradient of a write into a growable TensorList contains ``TensorListResize``, which
    the pfor vectorizer cannot convert (TF 2.21): ``tape.jacobian(y, x)`` raises a ValueError
    ("Encountered an exception while vectorizing the jacobian computation ...
    experimental_use_pfor ..."), while ``experimental_use_pfor=False`` with a persistent tape works.

    Traced once per dtype and child: the loop is written with ``tf.while_loop`` (no AutoGraph
    conversion), the signature takes any length, and a Variable is read into a Tensor before the
    call (under the student's tape, so its gradient still flows), so neither a new length nor a
    Variable input traces the function (and its gradient, 0.15 s each) again.
    """
    import tensorflow as tf

    key = f"running_product/{dtype}"
    if key not in _COMPILED:
        def body(i, p, results, x):
            p = p * x[i]
            return i + 1, p, results.write(i, p), x

        @tf.function(input_signature=[tf.TensorSpec([None], dtype)], autograph=False)
        def running_product(x):
            _, _, results, _ = tf.while_loop(
                lambda i, p, results, x: i < tf.shape(x)[0], body,
                (tf.constant(0), tf.ones([], x.dtype), tf.TensorArray(x.dtype, size=0, dynamic_size=True), x))
            return results.stack()
        _COMPILED[key] = lambda x: running_product(tf.convert_to_tensor(x))
    return _COMPILED[key]


def _vector_function(args: Mapping[str, Any]):
    """A function from (n,) to (m,), named by ``args["f"]``."""
    import tensorflow as tf

    name = args["f"]
    dtype = np.asarray(args["x"]).dtype
    a = None if args.get("A") is None else tf.constant(np.asarray(args["A"], dtype=dtype))
    if name == "pair":  # (x0 x1, sin x0)
        return lambda x: tf.stack([x[0] * x[1], tf.sin(x[0])])
    if name == "pair3":  # (x0 x1, sin x0, x1^2)
        return lambda x: tf.stack([x[0] * x[1], tf.sin(x[0]), x[1] ** 2])
    if name == "linear":
        return lambda x: tf.linalg.matvec(a, x)
    if name == "tanh_linear":
        return lambda x: tf.tanh(tf.linalg.matvec(a, x))
    if name == "wide":  # (n,) -> (2n,)
        return lambda x: tf.concat([tf.sin(x) * x[0], x[1:] * x[:-1], [tf.reduce_sum(x ** 3)]], axis=0)
    if name == "constant":
        return lambda x: tf.ones([int(args["m"])], x.dtype)
    if name == "sin_times_x":  # elementwise, for n = 100,000
        return lambda x: tf.sin(x) * x
    if name == "running_product":
        return _running_product(dtype.name)
    raise ValueError(f"unknown test function {name!r}")


def _batch_function(args: Mapping[str, Any]):
    """A function from (batch, n) to (batch, m) that maps each example on its own."""
    import tensorflow as tf

    name = args["f"]
    dtype = np.asarray(args["x"]).dtype
    w = None if args.get("W") is None else tf.constant(np.asarray(args["W"], dtype=dtype))
    if name == "matmul":
        return lambda x: tf.matmul(x, w)
    if name == "tanh_matmul":
        return lambda x: tf.tanh(tf.matmul(x, w))
    if name == "elementwise":
        return lambda x: tf.sin(x) * x
    if name == "mixing":  # (batch, n) -> (batch, n + 1), examples independent
        return lambda x: tf.concat([x * x[:, :1], tf.reduce_sum(x ** 2, axis=1, keepdims=True)], axis=1)
    if name == "constant":
        return lambda x: tf.ones([x.shape[0], int(args["m"])], x.dtype)
    raise ValueError(f"unknown test function {name!r}")


def _scalar_function(args: Mapping[str, Any]):
    """A function from (n,) to a scalar."""
    import tensorflow as tf

    name = args["f"]
    dtype = np.asarray(args["x"]).dtype
    a = None if args.get("A") is None else tf.constant(np.asarray(args["A"], dtype=dtype))
    if name == "quadratic":  # 0.5 x^T A x, A not symmetric: H = (A + A^T) / 2
        return lambda x: 0.5 * tf.tensordot(x, tf.linalg.matvec(a, x), 1)
    if name == "cubic_pair":  # x0^2 x1
        return lambda x: x[0] ** 2 * x[1]
    if name == "sin_coupled":
        return lambda x: tf.reduce_sum(tf.sin(x[:-1] * x[1:])) + tf.reduce_sum(x ** 3) / 6.0
    if name == "exp0":
        return lambda x: tf.exp(x[0])
    if name == "linear":
        return lambda x: tf.reduce_sum(3.0 * x)
    raise ValueError(f"unknown test function {name!r}")


# =========================================================================== probes (child side)

def _result(value, what: str, like):
    """None passes through (a gradient that does not reach x); anything else must be a tensor of x's dtype.

    Shapes are NOT checked here: a transposed or summed result is compared (and matched
    against the mistake models) by the parent, which names the pitfall.
    """
    return None if value is None else require_tensor(value, what, like=like)


def _probe_jacobian(function, args):
    f = _vector_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"jacobian": _result(function(f, x), "the returned Jacobian", x)}


def _probe_batch_jacobian(function, args):
    f = _batch_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"batch_jacobian": _result(function(f, x), "the returned per-example Jacobians", x)}


def _probe_hessian(function, args):
    f = _scalar_function(args)
    x = tensor(args["x"], args.get("variable", False))
    return {"hessian": _result(function(f, x), "the returned Hessian", x)}


def _probe_jvp(function, args):
    f = _vector_function(args)
    x = tensor(args["x"], args.get("variable", False))
    v = tensor(args["v"])
    return {"jvp": _result(function(f, x, v), "the returned J v", x)}


# =========================================================================== case builders (parent side)

def _pair(id_: str, description: str, dtype: str, tags: tuple[str, ...] = (), **args) -> list:
    """The same data as a Tensor case and as a Variable case."""
    return [
        case(f"{id_}-tensor", f"{dtype} Tensor {description}", dtype, tags=("tensor", *tags), args=dict(args)),
        case(f"{id_}-variable", f"{dtype} Variable {description}", dtype, tags=("variable", *tags),
             args=dict(args, variable=True)),
    ]


def _tensor(id_: str, description: str, dtype: str, tags: tuple[str, ...] = (), **args) -> list:
    """The Tensor case of a pair alone: where the exercise already has a Tensor / Variable pair that tells a
    missing tape.watch, a second pair only repeats it (and a pfor ``tape.jacobian`` costs 0.06 s a call)."""
    return _pair(id_, description, dtype, tags, **args)[:1]


def _nonsymmetric(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    a = rng.normal(size=(n, n))
    return (a + 2.0 * np.triu(a, 1)).astype(dtype)  # far from symmetric, so J^T differs from J


def _jacobian_cases(rng: np.random.Generator):
    m, n = int(rng.integers(3, 5)), int(rng.integers(5, 8))
    nw = int(rng.integers(3, 5))
    return [
        case("f32-pair", "float32 Tensor x = [1, 2], f(x) = (x0 x1, sin x0)", tags=("tensor",), public=True,
             args=dict(f="pair", x=array([1.0, 2.0], "float32"))),
        case("f32-linear", "float32 Tensor x of shape (3,), f(x) = A x with A of shape (2, 3)", tags=("tensor",),
             public=True, args=dict(f="linear", A=array([[1, 2, 3], [4, 5, 6]], "float32"),
                                    x=array([0.5, -1.0, 2.0], "float32"))),
        *_tensor("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", "float32",
                 f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        *_pair("f64-square", "x of shape (5,), f(x) = tanh(A x) with a non-symmetric A of shape (5, 5)", "float64",
               f="tanh_linear", A=_nonsymmetric(rng, 5, "float64"), x=uniform(rng, (5,), -1, 1, "float64")),
        case("f64-wide", f"float64 Tensor x of shape ({nw},), f(x) = (sin(x) x0, x[1:] x[:-1], sum(x^3)) "
                         f"of shape ({2 * nw},)", "float64", tags=("tensor",),
             args=dict(f="wide", x=uniform(rng, (nw,), -2, 2, "float64"))),
        # (A square, non-symmetric float32 case would repeat the public f32-pair: J = [[x1, x0], [cos x0, 0]].)
        case("f64-constant", "float64 Tensor x of shape (2,), f(x) = ones(3) does not depend on x (zeros or None)",
             "float64", tags=("tensor",), args=dict(f="constant", m=3, x=array([1.0, 2.0], "float64"))),
    ]


def _robust_jacobian_cases(rng: np.random.Generator):
    m, n = int(rng.integers(2, 4)), int(rng.integers(4, 6))
    k = int(rng.integers(5, 7))
    return [
        case("f32-running-product", "float32 Tensor x = [1, 2, 3], f = running_product (a dynamic-size "
                                    "tf.TensorArray in a tf.function: pfor cannot vectorize its gradient)",
             tags=("tensor", "pfor"), public=True, args=dict(f="running_product", x=array([1.0, 2.0, 3.0], "float32"))),
        case("f32-pair", "float32 Tensor x = [1, 2], f(x) = (x0 x1, sin x0)", tags=("tensor",), public=True,
             args=dict(f="pair", x=array([1.0, 2.0], "float32"))),
        # float32 like the public case: one trace of running_product (and of its gradient) serves all three
        *_pair("f32-running-product", f"x of shape ({k},), f = running_product (pfor cannot vectorize it)",
               "float32", tags=("pfor",), f="running_product", x=uniform(rng, (k,), 0.5, 1.5, "float32")),
        *_tensor("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", "float32",
                 f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        case("f64-square", "float64 Tensor x of shape (4,), f(x) = tanh(A x) with a non-symmetric A of shape (4, 4)",
             "float64", tags=("tensor",), args=dict(f="tanh_linear", A=_nonsymmetric(rng, 4, "float64"),
                                                  x=uniform(rng, (4,), -1, 1, "float64"))),
        case("f64-constant", "float64 Tensor x of shape (3,), f(x) = ones(2) does not depend on x (zeros or None)",
             "float64", tags=("tensor",), args=dict(f="constant", m=2, x=array([1.0, 2.0, 3.0], "float64"))),
    ]


def _batch_jacobian_cases(rng: np.random.Generator):
    b, n, m = int(rng.integers(4, 8)), int(rng.integers(4, 6)), int(rng.integers(2, 4))
    return [
        case("f32-matmul", "float32 Tensor x of shape (4, 3), f(x) = x @ W with W of shape (3, 2)", tags=("tensor",),
             public=True, args=dict(f="matmul", W=array([[1, -1], [0.5, 2], [-0.5, 1]], "float32"),
                                    x=array(np.arange(12).reshape(4, 3) / 10.0, "float32"))),
        *_tensor("f32-tanh", f"x of shape ({b}, {n}), f(x) = tanh(x @ W) with W of shape ({n}, {m})", "float32",
                 f="tanh_matmul", W=uniform(rng, (n, m), -1, 1, "float32"), x=uniform(rng, (b, n), -1, 1, "float32")),
        *_pair("f64-square", "x of shape (3, 4), f(x) = tanh(x @ W) with a non-symmetric W of shape (4, 4)",
               "float64", f="tanh_matmul", W=_nonsymmetric(rng, 4, "float64"), x=uniform(rng, (3, 4), -1, 1, "float64")),
        case("f64-mixing", "float64 Tensor x of shape (5, 3), f(x) = (x * x[:, :1], sum(x^2, axis=1)) of shape (5, 4)",
             "float64", tags=("tensor",), args=dict(f="mixing", x=uniform(rng, (5, 3), -2, 2, "float64"))),
        case("f32-elementwise", "float32 Tensor x of shape (1, 3) (a batch of one), f(x) = sin(x) * x",
             tags=("tensor",), args=dict(f="elementwise", x=uniform(rng, (1, 3), -2, 2, "float32"))),
        case("f64-constant", "float64 Tensor x of shape (3, 2), f(x) = ones((3, 4)) does not depend on x "
                             "(zeros or None)", "float64", tags=("tensor",),
             args=dict(f="constant", m=4, x=array(np.zeros((3, 2)), "float64"))),
    ]


def _hessian_cases(rng: np.random.Generator):
    n = int(rng.integers(4, 7))
    return [
        case("f32-quadratic-2", "float32 Tensor x = [1, -1], f(x) = 0.5 x^T A x with A = [[2, 1], [3, 4]]",
             tags=("tensor",), public=True,
             args=dict(f="quadratic", A=array([[2, 1], [3, 4]], "float32"), x=array([1.0, -1.0], "float32"))),
        case("f32-cubic", "float32 Tensor x = [1, 2], f(x) = x0^2 x1", tags=("tensor",), public=True,
             args=dict(f="cubic_pair", x=array([1.0, 2.0], "float32"))),
        *_tensor("f32-quadratic", f"x of shape ({n},), f(x) = 0.5 x^T A x with a non-symmetric A", "float32",
                 f="quadratic", A=_nonsymmetric(rng, n, "float32"), x=uniform(rng, (n,), -1, 1, "float32")),
        *_pair("f64-sin-coupled", "x of shape (5,), f(x) = sum(sin(x[:-1] x[1:])) + sum(x^3) / 6", "float64",
               f="sin_coupled", x=uniform(rng, (5,), -1.5, 1.5, "float64")),
        # (A Rosenbrock and a logsumexp case, f64 and random too, only repeated f64-sin-coupled: every mistake
        # model and pitfall is told on the cases above, and each case costs a pfor `outer.jacobian`, 0.09 s.)
        case("f64-n1", "float64 Tensor x of shape (1,), f(x) = exp(x0)", "float64", tags=("tensor",),
             args=dict(f="exp0", x=array([0.5], "float64"))),
        case("f32-linear", "float32 Tensor x of shape (3,), f(x) = sum(3 x) is linear (zeros or None)",
             tags=("tensor",), args=dict(f="linear", x=array([1.0, 2.0, 3.0], "float32"))),
    ]


def _jvp_cases(rng: np.random.Generator):
    m, n = int(rng.integers(3, 5)), int(rng.integers(6, 8))
    int(rng.integers(3, 5))  # drawn as before, so the cases after it keep their values
    scale_x = rng.normal(size=SCALE_N)
    scale_v = rng.normal(size=SCALE_N)
    return [
        case("f32-pair3", "float32 Tensor x = [1, 2], v = [1, 0], f(x) = (x0 x1, sin x0, x1^2)", tags=("tensor",),
             public=True, args=dict(f="pair3", x=array([1.0, 2.0], "float32"), v=array([1.0, 0.0], "float32"))),
        case("f32-linear", "float32 Tensor x of shape (3,), f(x) = A x with A of shape (2, 3)", tags=("tensor",),
             public=True, args=dict(f="linear", A=array([[1, 2, 3], [4, 5, 6]], "float32"),
                                    x=array([1.0, 1.0, 1.0], "float32"), v=array([1.0, -1.0, 2.0], "float32"))),
        *_tensor("f32-tanh", f"x of shape ({n},), f(x) = tanh(A x) with A of shape ({m}, {n})", "float32",
                 f="tanh_linear", A=uniform(rng, (m, n), -1, 1, "float32"), x=uniform(rng, (n,), -1, 1, "float32"),
                 v=uniform(rng, (n,), -1, 1, "float32")),
        *_pair("f64-square", "x of shape (5,), f(x) = tanh(A x) with a non-symmetric A of shape (5, 5)", "float64",
               tags=("square",), f="tanh_linear", A=_nonsymmetric(rng, 5, "float64"),
               x=uniform(rng, (5,), -1, 1, "float64"), v=uniform(rng, (5,), -1, 1, "float64")),
        # (A tall f64 case and a second square one only repeated the public f32-pair3 (tall) and f64-square;
        # in forward mode each new function and shape costs TensorFlow a trace of every op's JVP, 0.05-0.15 s.)
        case("f64-constant", "float64 Tensor x of shape (2,), f(x) = ones(3) does not depend on x (zeros or None)",
             "float64", tags=("tensor",),
             args=dict(f="constant", m=3, x=array([1.0, 2.0], "float64"), v=array([1.0, 1.0], "float64"))),
        case("f64-scale", f"float64 Tensor x of shape ({SCALE_N:,},), f(x) = sin(x) * x, n = m = {SCALE_N:,} "
                          "(J would need 80 GB)", "float64", tags=("tensor", "scale"), time_limit=30.0,
             args=dict(f="sin_times_x", x=scale_x, v=scale_v)),
    ]


# =========================================================================== mistake models (child side)

def _tape_jacobian(f, x, watch=True, use_pfor=True, unconnected_zero=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=not use_pfor) as tape:
        if watch:
            tape.watch(x)
        y = f(x)
    unconnected = tf.UnconnectedGradients.ZERO if unconnected_zero else tf.UnconnectedGradients.NONE
    return tape.jacobian(y, x, unconnected_gradients=unconnected, experimental_use_pfor=use_pfor)


def _jacobian_transposed(f, x):
    import tensorflow as tf

    return tf.transpose(_tape_jacobian(f, x, use_pfor=False))


def _jacobian_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def _jacobian_unwatched(f, x):
    return _tape_jacobian(f, x, watch=False, use_pfor=False)


# The mistake models compute their matrices row by row (``experimental_use_pfor=False`` on a persistent tape):
# the same numbers as the vectorized call students make, without tracing a pfor function for every case
# (0.06 s each, in every run that computes the reference's outcomes).

def _batch_full(f, x):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)


def _batch_jacobian(f, x, watch=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as tape:
        if watch:
            tape.watch(x)
        y = f(x)
    return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                               experimental_use_pfor=False)


def _batch_transposed(f, x):
    import tensorflow as tf

    return tf.transpose(_batch_jacobian(f, x), [0, 2, 1])


def _batch_unwatched(f, x):
    return _batch_jacobian(f, x, watch=False)


def _hessian(f, x, watch=True):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as outer:
        if watch:
            outer.watch(x)
        with tf.GradientTape() as inner:
            if watch:
                inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)


def _hessian_summed(f, x):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x)


def _hessian_unwatched(f, x):
    return _hessian(f, x, watch=False)


def _jvp_as_vjp(f, x, v):
    """J^T v: a reverse-mode product with v as the output gradient (defined only when n == m)."""
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, output_gradients=v)


def _jvp_gradient_times_v(f, x, v):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) * v


# =========================================================================== exercises

_TRANSPOSED_FIX = ("J[i, j] is dy_i / dx_j: one row per output, one column per input; `tape.jacobian(y, x)` "
                   "already has this orientation, so drop the `tf.transpose` (or stack per-output gradients "
                   "with `axis=0`, per-input columns with `axis=1`)")
_SUMMED_EXPLANATION = ("your result is `tape.gradient(y, x)`: for a vector y it is the gradient of sum(y), the column "
                       "sums of J (shape (n,)), not the Jacobian")
_UNWATCHED_EXPLANATION = ("your result is None or zero for tf.Tensor inputs and right for tf.Variable inputs: the "
                          "tape does not watch x (a tape only watches Variables by itself)")
_UNWATCHED_FIX = "call `tape.watch(x)` as the first line inside `with tf.GradientTape() as tape:`"

def _jacobian_mistakes(summed_fix: str) -> tuple[Mistake, ...]:
    """The mistakes of a full Jacobian, shared by `jacobian` and `robust_jacobian` (only the fix differs)."""
    return (
        Mistake("transposed", _jacobian_transposed,
                "your result is J^T, shape (n, m): rows follow the inputs instead of the outputs", _TRANSPOSED_FIX),
        Mistake("summed-gradient", _jacobian_summed, _SUMMED_EXPLANATION, summed_fix),
        Mistake("unwatched-tensor", _jacobian_unwatched, _UNWATCHED_EXPLANATION, _UNWATCHED_FIX),
    )


JACOBIAN_EXERCISE = Exercise(
    id="jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=_jacobian_cases,
    probe=_probe_jacobian,
    outputs=(JACOBIAN,),
    mistakes=_jacobian_mistakes("use `tape.jacobian(y, x)`, which returns the full (m, n) matrix"),
)

BATCH_JACOBIAN_EXERCISE = Exercise(
    id="batch_jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=_batch_jacobian_cases,
    probe=_probe_batch_jacobian,
    outputs=(BATCH_JACOBIAN,),
    mistakes=(
        Mistake("full-jacobian", _batch_full,
                "your result is `tape.jacobian(y, x)`, shape (batch, m, batch, n): the derivative of every example's "
                "output with respect to every example's input, mostly zeros",
                "use `tape.batch_jacobian(y, x)`, which returns only the per-example blocks, shape (batch, m, n)"),
        Mistake("transposed", _batch_transposed,
                "each per-example block is transposed, shape (batch, n, m) instead of (batch, m, n)",
                "out[b, i, j] is dy_{b,i} / dx_{b,j}: `tape.batch_jacobian(y, x)` already has this orientation; "
                "drop the `tf.transpose`"),
        Mistake("unwatched-tensor", _batch_unwatched,
                "your result is zero for tf.Tensor inputs and right for tf.Variable inputs: the tape does not watch "
                "x (a tape only watches Variables by itself), and `batch_jacobian` returns zeros for a source it "
                "never saw", _UNWATCHED_FIX),
    ),
)

ROBUST_JACOBIAN_EXERCISE = Exercise(
    id="robust_jacobian",
    params=("f", "x"),
    points=2.0,
    make_cases=_robust_jacobian_cases,
    probe=_probe_jacobian,
    outputs=(JACOBIAN,),
    mistakes=_jacobian_mistakes("use `tape.jacobian(y, x, experimental_use_pfor=False)` on a persistent tape, "
                                "which returns the full (m, n) matrix"),
    hints={
        "pfor-unsupported": "the default `tape.jacobian` vectorizes the m backward passes with pfor, which cannot "
                            "convert the gradient of a dynamic-size tf.TensorArray (`TensorListResize`); call "
                            "`tape.jacobian(y, x, experimental_use_pfor=False)` on a tape created with "
                            "`tf.GradientTape(persistent=True)`",
        "non-persistent-tape": "`experimental_use_pfor=False` runs one `tape.gradient` per row of J, so in eager "
                               "mode the tape is used m times: create it with `tf.GradientTape(persistent=True)`",
    },
)

HESSIAN_EXERCISE = Exercise(
    id="hessian",
    params=("f", "x"),
    points=2.0,
    make_cases=_hessian_cases,
    probe=_probe_hessian,
    outputs=(HESSIAN,),
    mistakes=(
        Mistake("summed-gradient", _hessian_summed,
                "your result is `outer.gradient(g, x)`: for the vector g = grad f it returns the gradient of sum(g), "
                "the row sums of H (shape (n,)), not the Hessian",
                "use `outer.jacobian(g, x)` for the full (n, n) matrix"),
        Mistake("unwatched-tensor", _hessian_unwatched, _UNWATCHED_EXPLANATION,
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

JVP_EXERCISE = Exercise(
    id="jvp",
    params=("f", "x", "v"),
    points=2.0,
    make_cases=_jvp_cases,
    probe=_probe_jvp,
    outputs=(JVP,),
    materialized_pitfall="materialized-jacobian",
    mistakes=(
        Mistake("transposed", _jvp_as_vjp,
                "your result is J^T v, a vector-Jacobian product (`tape.gradient(y, x, output_gradients=v)`), not "
                "J v; it only has the right shape when n == m, and fails for non-square J",
                "use forward mode: `with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc: y = f(x)`, "
                "then `acc.jvp(y)` (or the double-vjp trick)",
                cases=lambda case: case.has("square") and not case.has("scale")),
        Mistake("summed-gradient", _jvp_gradient_times_v,
                "your result is `tape.gradient(y, x) * v`: the column sums of J (the gradient of sum(y)) times v, "
                "which equals J v only for elementwise f",
                "use forward mode: `tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` and `acc.jvp(y)`"),
    ),
    hints={
        "materialized-jacobian": "at n = m = 100,000 the Jacobian has 10^10 entries (80 GB in float64); compute J v "
                                 "directly with `tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` and "
                                 "`acc.jvp(y)`, at the cost of about one evaluation of f",
    },
)

ASSIGNMENT = Assignment(
    id="jacobians",
    title="Jacobians, Hessians and Jacobian-vector products",
    exercises=(JACOBIAN_EXERCISE, BATCH_JACOBIAN_EXERCISE, ROBUST_JACOBIAN_EXERCISE, HESSIAN_EXERCISE,
               JVP_EXERCISE),
)
