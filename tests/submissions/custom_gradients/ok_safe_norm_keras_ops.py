"""Keras 3 ops for the value and the gradient, inside @tf.custom_gradient."""
import tensorflow as tf
from keras import ops


@tf.custom_gradient
def safe_norm(x):
    x = ops.convert_to_tensor(x)
    scale = ops.max(ops.abs(x), axis=1, keepdims=True)
    scale = ops.where(scale > 0, scale, ops.ones_like(scale))
    norm = ops.squeeze(scale, axis=1) * ops.norm(x / scale, axis=1)

    def grad_fn(upstream):
        safe = ops.where(norm > 0, norm, ops.ones_like(norm))
        return ops.expand_dims(upstream, 1) * (x / ops.expand_dims(safe, 1))

    return norm, grad_fn
