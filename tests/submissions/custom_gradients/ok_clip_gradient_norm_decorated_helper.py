"""A module-level decorated helper that takes the norm as a second input (its gradient: zeros), called by the exercise."""
import tensorflow as tf


@tf.custom_gradient
def _clip_backward(x, max_norm):
    def grad(dy):
        return tf.clip_by_norm(dy, max_norm), tf.zeros_like(max_norm)

    return tf.identity(x), grad


def clip_gradient_norm(x, max_norm):
    x = tf.convert_to_tensor(x)
    return _clip_backward(x, tf.constant(max_norm, dtype=x.dtype))
