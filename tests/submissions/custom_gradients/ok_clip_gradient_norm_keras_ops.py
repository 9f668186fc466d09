"""Keras 3 ops in grad_fn: scale = min(1, max_norm / ||g||), guarded against ||g|| = 0."""
import tensorflow as tf
from keras import ops


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def _identity(t):
        def grad_fn(g):
            norm = ops.sqrt(ops.sum(ops.square(g)))
            scale = ops.minimum(1.0, max_norm / ops.maximum(norm, 1e-30))
            return g * ops.cast(scale, g.dtype)
        return ops.copy(t), grad_fn

    return _identity(x)
