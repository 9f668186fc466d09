"""Helpers of the probes: they run in the child (or a student's kernel) and import TensorFlow inside their body.

A probe turns a case's plain data into TensorFlow inputs, calls the student's function, checks the shape of
what came back (a ``ContractError`` that says what was expected and what came instead) and returns the
outputs to compare. None of these helpers is an answer to an exercise.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from autograder.model.course import ContractError


def tensor(values: Any, variable: bool = False):
    """A fresh tf.Tensor (or tf.Variable) holding ``values``, with the values' dtype."""
    import tensorflow as tf

    values = np.asarray(values)
    return tf.Variable(values) if variable else tf.constant(values)


def require_tensor(value: Any, what: str, like=None):
    """The value as a tf.Tensor, or a ContractError that says what came back instead.

    A NumPy array, a Python number, or a list or tuple of numbers or tensors is taken as the tensor it
    converts to (real code returns those): its dtype is compared where the contract asks for one (an
    ``Output`` with ``check_dtype``), not here. ``like`` is the input whose dtype a float result keeps when it
    is a plain Python number or list (which TensorFlow would make float32).
    """
    import tensorflow as tf

    if isinstance(value, tuple) and len(value) == 2 and callable(value[1]):
        raise ContractError(
            f"{what} is a (value, grad_fn) pair: the function returned what a @tf.custom_gradient "
            "function returns, but is not decorated with @tf.custom_gradient")
    if value is None:
        raise ContractError(f"{what} is None")
    if isinstance(value, (list, tuple)):
        try:
            dtype = like.dtype if like is not None and not _holds_tensors(value) else None
            return tf.convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError) as error:
            raise ContractError(f"{what} is a {type(value).__name__} that does not convert to one tensor "
                                f"({str(error).splitlines()[0][:200]}): return a tf.Tensor") from None
    if not isinstance(value, (tf.Tensor, tf.Variable, np.ndarray, float, int, np.floating, np.integer)):
        raise ContractError(f"{what} is a {type(value).__name__}, expected a tf.Tensor")
    return tf.convert_to_tensor(value)


def _holds_tensors(value) -> bool:
    """Whether a list or tuple holds tensors or arrays anywhere (their own dtype then decides)."""
    import tensorflow as tf

    return any(isinstance(item, (tf.Tensor, tf.Variable, np.ndarray)) or
               (isinstance(item, (list, tuple)) and _holds_tensors(item)) for item in value)


def require_scalar(value, what: str, like=None, allow_none: bool = False):
    """A scalar tf.Tensor (shape ()), None where allowed, or a ContractError that says what came back."""
    if value is None and allow_none:
        return None
    result = require_tensor(value, what, like=like)
    if result.shape.rank != 0:
        raise ContractError(f"{what} has shape {tuple(result.shape)}, expected a scalar (shape ())")
    return result


def require_like(value, what: str, like):
    """A tf.Tensor with the shape and dtype of ``like``, or a ContractError."""
    result = require_tensor(value, what, like=like)
    if tuple(result.shape) != tuple(like.shape):
        raise ContractError(f"{what} has shape {tuple(result.shape)}, expected {tuple(like.shape)} (the shape of x)")
    return result


def require_pair(value: Any, what: str) -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        got = f"a {type(value).__name__}" + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else "")
        raise ContractError(f"{what} must return a pair, got {got}")
    return value[0], value[1]


def weighted_gradient(function, x_args: Mapping[str, Any], call, upstream: np.ndarray | None):
    """Run ``call(function, x)`` under a tape and return (value, d sum(upstream * value) / dx)."""
    import tensorflow as tf

    x = tensor(x_args["x"], x_args.get("variable", False))
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = require_tensor(call(function, x), "the returned value", like=x)
        weights = tf.ones_like(value) if upstream is None else tf.constant(upstream, dtype=value.dtype)
        if weights.shape != value.shape:
            raise ContractError(f"the returned value has shape {tuple(value.shape)}, expected {tuple(weights.shape)}")
        loss = tf.reduce_sum(weights * value)
    return value, tape.gradient(loss, x)


def raise_if_too_large(error: Exception, n: int, dtype=np.float32) -> None:
    """At scale, an (n, n) tensor fails in several ways; report them all as the memory error they are.

    TensorFlow does not always raise ResourceExhaustedError when a Hessian or Jacobian of 10^10 entries is
    built: pfor's `tape.jacobian` fails with an InvalidArgumentError ("Cannot parse tensor from proto", the 2 GB
    protobuf limit) whose message names the (n, n) shape, or (tf-nightly 2.23) with "Input num_segments ==
    10000000000 is too large", n * n itself. Raised as MemoryError, with the student's frames kept, it leads to
    the exercise's materialized pitfall like any other out-of-memory failure.
    """
    if n < 10_000 or isinstance(error, (ContractError, NotImplementedError, MemoryError)):
        return
    message = str(error)
    square = (message.count(f"size: {n}") >= 2 or f"[{n},{n}]" in message.replace(" ", "")
              or f"({n},{n})" in message.replace(" ", "") or str(n * n) in message)
    if type(error).__name__ == "ResourceExhaustedError" or "out of memory" in message.lower() \
            or "OOM" in message or "Cannot parse tensor from proto" in message or square:
        detail = message.strip().splitlines()[0][:200] if message.strip() else ""
        dtype = np.dtype(dtype)
        raise MemoryError(f"an ({n}, {n}) tensor ({dtype.itemsize * n * n / 1e9:.0f} GB in {dtype.name}) could not be built "
                          f"({type(error).__name__}: {detail})").with_traceback(error.__traceback__) from None
