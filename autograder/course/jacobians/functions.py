"""The test functions ``f`` of the jacobians cases, built in the child from a case's plain data.

Every case names its function by a string (``args["f"]``) with its parameters as plain arrays, so the parent
never imports TensorFlow. (Child side: no answer to any exercise here.)
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

COMPILED: dict[str, Any] = {}  # tf.functions built once per child, so a case does not retrace them


def running_product(dtype):
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
    if key not in COMPILED:
        def body(i, p, results, x):
            p = p * x[i]
            return i + 1, p, results.write(i, p), x

        @tf.function(input_signature=[tf.TensorSpec([None], dtype)], autograph=False)
        def running_product(x):
            _, _, results, _ = tf.while_loop(
                lambda i, p, results, x: i < tf.shape(x)[0], body,
                (tf.constant(0), tf.ones([], x.dtype), tf.TensorArray(x.dtype, size=0, dynamic_size=True), x))
            return results.stack()
        COMPILED[key] = lambda x: running_product(tf.convert_to_tensor(x))
    return COMPILED[key]


def eager_gradient(kind: str):
    """g(x) elementwise, with a custom gradient written in eager Python, as research code often is: it runs row by
    row (``experimental_use_pfor=False``, eagerly) and fails under the pfor vectorizer, which traces the gradient
    in a graph, and with another error than running_product's ValueError:

    - "numpy": x^3, its grad_fn computes with ``upstream.numpy()``: ``AttributeError: 'SymbolicTensor' object has
      no attribute 'numpy'``;
    - "python_if": sin(x), its grad_fn has a Python ``if`` on a tensor: ``OperatorNotAllowedInGraphError`` (a
      TypeError).
    """
    import tensorflow as tf

    if kind == "numpy":
        @tf.custom_gradient
        def cube(x):
            def grad_fn(upstream):
                return tf.constant(upstream.numpy() * 3.0 * x.numpy() ** 2, x.dtype)
            return x ** 3, grad_fn
        return cube

    @tf.custom_gradient
    def sine(x):
        def grad_fn(upstream):
            if tf.reduce_any(upstream != 0):
                return upstream * tf.cos(x)
            return tf.zeros_like(x)
        return tf.sin(x), grad_fn
    return sine


def vector_function(args: Mapping[str, Any]):
    """A function from (n,) to (m,), named by ``args["f"]``."""
    import tensorflow as tf

    name = args["f"]
    dtype = np.asarray(args["x"]).dtype
    a = None if args.get("A") is None else tf.constant(np.asarray(args["A"], dtype=dtype))
    if name == "pair":  # (x0 x1, sin x0)
        return lambda x: tf.stack([x[0] * x[1], tf.sin(x[0])])
    if name == "square2":  # (x0 x1, sin x0 + 2 x1): a square, non-symmetric J
        return lambda x: tf.stack([x[0] * x[1], tf.sin(x[0]) + 2.0 * x[1]])
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
        return running_product(dtype.name)
    if name in ("numpy_gradient", "python_if_gradient"):  # A g(x), g with a gradient pfor cannot trace
        g = eager_gradient("numpy" if name == "numpy_gradient" else "python_if")
        return lambda x: tf.linalg.matvec(a, g(x))
    raise ValueError(f"unknown test function {name!r}")


def batch_function(args: Mapping[str, Any]):
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


def scalar_function(args: Mapping[str, Any]):
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
