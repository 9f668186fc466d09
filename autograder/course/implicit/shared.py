"""What the implicit exercises' probes share: run the student's function under a tape that watches theta, weigh
its result by the case's upstream gradient, and return the result and the gradient (every 100th entry at
n = 100,000, so that the public answers stay small). Child side: no answer to any exercise here."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from autograder.course.probing import raise_if_too_large, require_tensor, tensor
from autograder.model.course import ContractError, Look, Output

SCALE_N = 100_000
SAMPLE_STRIDE = 100  # at n = 100,000 a probe returns every 100th entry of an (n,) output

GRADIENT = "the gradient with respect to theta"
RESULT = Output("x", "the returned x", check_dtype=True)
RESULT_SAMPLE = Output("x_sample", f"the returned x (every {SAMPLE_STRIDE}th entry)", check_dtype=True)
THETA_GRADIENT = Output("gradient", GRADIENT, gradient=True)
THETA_GRADIENT_SAMPLE = Output("gradient_sample", f"{GRADIENT} (every {SAMPLE_STRIDE}th entry)", gradient=True)
# Where a result without a gradient leaves: the function's last return (its feedback points there, not at the
# catalogue's `tf.round`, which the implicit exercises never use).
NO_GRADIENT_LOOK = Look(("@return",), "this returns the solver's result, to which no `@tf.custom_gradient` gives a "
                        "gradient",
                        look_for="the `return` of the solver's result: no `@tf.custom_gradient` gives it a gradient")


def dense(value):
    """A gradient as a dense tensor (a gather's gradient is IndexedSlices)."""
    import tensorflow as tf

    return tf.convert_to_tensor(value) if isinstance(value, tf.IndexedSlices) else value


def require_shaped(value, what: str, like, whose: str):
    """A tf.Tensor of ``like``'s shape (``whose``: what that shape is, for the message), or a ContractError."""
    result = require_tensor(value, what, like=like)
    if tuple(result.shape) != tuple(like.shape):
        raise ContractError(f"{what} has shape {tuple(result.shape)}, expected {tuple(like.shape)} ({whose})")
    return result


def weighted_theta_gradient(run: Callable[[Any], Any], theta_values: np.ndarray, upstream: np.ndarray,
                            like, what: str, whose: str) -> dict[str, Any]:
    """``run(theta)`` under a tape that watches theta: {"x": the result, "gradient": d sum(upstream * x) / d theta}
    (None where no gradient reaches theta); ``like``: a tensor of the shape and dtype the result must have
    (``whose`` shape that is, for the message)."""
    import tensorflow as tf

    theta = tensor(theta_values)
    n = int(np.prod(like.shape))
    try:
        with tf.GradientTape() as tape:
            tape.watch(theta)
            x = require_shaped(run(theta), what, like, whose)
            loss = tf.reduce_sum(tf.constant(upstream, dtype=x.dtype) * x)
        gradient = tape.gradient(loss, theta)
    except Exception as error:  # noqa: BLE001
        raise_if_too_large(error, n, like.dtype.as_numpy_dtype)
        raise
    if gradient is not None:
        gradient = require_shaped(dense(gradient), GRADIENT, theta, "the shape of theta")
    if n < SCALE_N:
        return {"x": x, "gradient": gradient}
    sample = {"x_sample": x[::SAMPLE_STRIDE]}
    if len(theta_values) >= SCALE_N:
        sample["gradient_sample"] = None if gradient is None else gradient[::SAMPLE_STRIDE]
    else:
        sample["gradient"] = gradient
    return sample
