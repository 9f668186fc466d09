"""The callables the grader passes to the implicit exercises (``F``, ``f``, ``g``, ``solver``, ``inner_solver``),
built in the child from a case's plain data, so that the parent never imports TensorFlow.

``F``, ``f`` and ``g`` are TensorFlow ops (the student differentiates them with tapes); the solvers leave
TensorFlow through ``tf.numpy_function``, which has no gradient: differentiating through them gives None,
which is the point of the assignment (the gradient must be the implicit one). Every callable reads no
``tf.Variable`` and works eagerly and inside a ``tf.function``. The solvers compute in float64 NumPy and
return the dtype they were given. (Child side: no answer to any exercise here; the solvers are the grader's
given black boxes, which the exercises call, not what they ask for.)
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

# --------------------------------------------------------------------------- root_solve's F(x, theta)

ROOT_FUNCTIONS = {
    "kepler": "F(x, theta) = x - e sin(x) - theta (Kepler's equation, e < 1)",
    "cubic": "F(x, theta) = x^3 + exp(theta) x - c",
    "sqrt": "F(x, theta) = x^2 - theta (theta > 0, x0 > 0: the root is sqrt(theta))",
    "linear": "F(x, theta) = a x - tanh(theta) (linear in x: one Newton step is exact)",
}


def root_function(args: Mapping[str, Any]):
    import tensorflow as tf

    name = args["F"]
    if name == "kepler":
        e = float(args["e"])
        return lambda x, theta: x - e * tf.sin(x) - theta
    if name == "cubic":
        c = tf.constant(args["c"])
        return lambda x, theta: x ** 3 + tf.exp(theta) * x - c
    if name == "sqrt":
        return lambda x, theta: x * x - theta
    a = tf.constant(args["a"])
    return lambda x, theta: a * x - tf.tanh(theta)


def spread(theta, n: int):
    """theta[i mod m] for i < n: tiled and cut (its gradient is a dense sum, not the IndexedSlices of a gather)."""
    import tensorflow as tf

    m = int(theta.shape[0])
    return tf.tile(theta, [-(-n // m)])[:n]


# --------------------------------------------------------------------------- fixed_point's f(x, theta)

FIXED_POINT_FUNCTIONS = {
    "deq": "f(x, theta) = rho tanh(W x + U theta + c) (a small deep-equilibrium layer; W not symmetric)",
    "affine": "f(x, theta) = M x + B theta + c (M not symmetric)",
    "chain": "f(x, theta) = a tanh(x + theta[i mod m]) + c tanh(roll(x, 1)) + b (df/dx not symmetric)",
}


def fixed_point_function(args: Mapping[str, Any]):
    import tensorflow as tf

    name = args["f"]
    if name == "deq":
        w, u, c, rho = (tf.constant(args[k]) for k in ("W", "U", "c", "rho"))
        return lambda x, theta: rho * tf.tanh(tf.linalg.matvec(w, x) + tf.linalg.matvec(u, theta) + c)
    if name == "affine":
        m, b, c = (tf.constant(args[k]) for k in ("M", "B", "c"))
        return lambda x, theta: tf.linalg.matvec(m, x) + tf.linalg.matvec(b, theta) + c
    a, c, b = (tf.constant(args[k]) for k in ("a", "cc", "b"))
    n = len(args["a"])
    return lambda x, theta: a * tf.tanh(x + spread(theta, n)) + c * tf.roll(tf.tanh(x), 1, axis=0) + b


# --------------------------------------------------------------------------- implicit_solve's solver(A, b)

SOLVERS = {"lu": "np.linalg.solve (LU)", "qr": "a QR factorisation in NumPy"}


def _solve_lu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.solve(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)


def _solve_qr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q, r = np.linalg.qr(a.astype(np.float64))
    return np.linalg.solve(r, q.T @ b.astype(np.float64)).astype(a.dtype)


def linear_solver(args: Mapping[str, Any]):
    """solver(A, b): x with A x = b, computed outside TensorFlow (no gradient)."""
    import tensorflow as tf

    solve = _solve_qr if args["solver"] == "qr" else _solve_lu

    def solver(A, b):
        A, b = tf.convert_to_tensor(A), tf.convert_to_tensor(b)
        x = tf.numpy_function(solve, [A, tf.cast(b, A.dtype)], A.dtype, stateful=False)
        x.set_shape(b.shape)
        return x
    return solver


# --------------------------------------------------------------------------- argmin_gradient's g and inner_solver

ARGMIN_FUNCTIONS = {
    "ridge": "ridge regression g(w, theta) = 0.5 mean((X w - y)^2) + 0.5 sum(exp(theta[i mod m]) w_i^2)",
    "logistic": "logistic regression g(w, theta) = mean(softplus(-y X w)) + 0.5 sum(exp(theta[i mod m]) w_i^2)",
    "chain": "g(w, theta) = 0.5 sum((a_i + exp(theta[i mod m])) w_i^2) - b.w + 0.5 c sum((w[i+1] - w[i])^2)",
}


def _penalties(theta: np.ndarray, n: int) -> np.ndarray:
    return np.exp(np.asarray(theta, np.float64))[np.arange(n) % len(theta)]


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """A dot product without BLAS: on a loaded machine, BLAS's threads make `a @ b` of two vectors 100 times slower."""
    return float(np.sum(a * b))


def hessian_product(args: Mapping[str, Any], theta: np.ndarray, w: np.ndarray | None = None):
    """d -> H d in float64, H the Hessian of g in w at (w, theta) (w: the argmin when not given)."""
    name = args["g"]
    if name == "chain":
        a, c = np.asarray(args["a"], np.float64), float(args["c"])
        diagonal = a + _penalties(theta, len(a))

        def chain(d):
            difference = np.diff(d)
            return diagonal * d + c * (np.concatenate([[0.0], difference]) - np.concatenate([difference, [0.0]]))
        return chain
    x = np.asarray(args["X"], np.float64)
    count, n = x.shape
    weights = np.ones(count)
    if name == "logistic":
        w = argmin_numpy(args, theta) if w is None else w
        s = 1.0 / (1.0 + np.exp(np.asarray(args["y"], np.float64) * (x @ w)))
        weights = s * (1.0 - s)
    penalty = _penalties(theta, n)
    return lambda d: x.T @ (weights * (x @ d)) / count + penalty * d


def conjugate_gradients(product, b: np.ndarray, steps: int, tolerance: float = 0.0):
    """CG on H v = b from v = 0 (float64): (v, the relative residual after each step)."""
    v, r = np.zeros_like(b), b.copy()
    d, rr, norm = r.copy(), _dot(r, r), _dot(b, b)
    residuals = []
    for _ in range(steps):
        if rr <= tolerance * norm:
            break
        hd = product(d)
        step = rr / _dot(d, hd)
        v, r = v + step * d, r - step * hd
        rr, previous = _dot(r, r), rr
        d = r + (rr / previous) * d
        residuals.append(np.sqrt(rr / norm))
    return v, residuals


def argmin_numpy(args: Mapping[str, Any], theta: np.ndarray) -> np.ndarray:
    """w* = argmin_w g(w, theta) in float64: closed form (ridge), Newton (logistic), CG (chain)."""
    name = args["g"]
    if name == "chain":
        return conjugate_gradients(hessian_product(args, theta), np.asarray(args["b"], np.float64), 1000, 1e-26)[0]
    x, y = np.asarray(args["X"], np.float64), np.asarray(args["y"], np.float64)
    count, n = x.shape
    penalty = _penalties(theta, n)
    if name == "ridge":
        return np.linalg.solve(x.T @ x / count + np.diag(penalty), x.T @ y / count)
    w = np.zeros(n)
    for _ in range(100):  # Newton on a strictly convex g: quadratic convergence
        s = 1.0 / (1.0 + np.exp(y * (x @ w)))  # sigmoid(-y x.w)
        gradient = -(x.T @ (y * s)) / count + penalty * w
        hessian = (x.T * (s * (1.0 - s))) @ x / count + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w = w - step
        if np.max(np.abs(step)) <= 1e-15 * max(1.0, np.max(np.abs(w))):
            break
    return w


def argmin_objective(args: Mapping[str, Any]):
    import tensorflow as tf

    name = args["g"]
    if name == "chain":
        a, b, c, n = tf.constant(args["a"]), tf.constant(args["b"]), float(args["c"]), len(args["a"])
        return lambda w, theta: (0.5 * tf.reduce_sum((a + tf.exp(spread(theta, n))) * w * w)
                                 - tf.reduce_sum(b * w) + 0.5 * c * tf.reduce_sum(tf.square(w[1:] - w[:-1])))
    x, y = tf.constant(args["X"]), tf.constant(args["y"])
    n = int(x.shape[1])

    def penalty(w, theta):
        return 0.5 * tf.reduce_sum(tf.exp(spread(theta, n)) * w * w)
    if name == "ridge":
        return lambda w, theta: 0.5 * tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y)) + penalty(w, theta)
    return lambda w, theta: tf.reduce_mean(tf.nn.softplus(-y * tf.linalg.matvec(x, w))) + penalty(w, theta)


def argmin_solver(args: Mapping[str, Any]):
    """inner_solver(theta): w* = argmin_w g(w, theta), computed outside TensorFlow (no gradient)."""
    import tensorflow as tf

    n = len(args["a"]) if args["g"] == "chain" else np.asarray(args["X"]).shape[1]

    def inner_solver(theta):
        theta = tf.convert_to_tensor(theta)
        w = tf.numpy_function(lambda t: argmin_numpy(args, t).astype(np.float32), [theta], tf.float32,
                              stateful=False)
        w.set_shape((n,))
        return w
    return inner_solver
