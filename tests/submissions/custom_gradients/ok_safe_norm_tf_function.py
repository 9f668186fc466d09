"""A tf.function-compiled inner function decorated with @tf.custom_gradient, called by the exercise."""
import tensorflow as tf


@tf.function
@tf.custom_gradient
def _row_norms(x):
    scale = tf.reduce_max(tf.abs(x), axis=1)
    scale = tf.where(scale > 0, scale, tf.ones_like(scale))
    norm = scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))

    def grad_fn(upstream):
        return upstream[:, None] * (x / tf.where(norm > 0, norm, tf.ones_like(norm))[:, None])

    return norm, grad_fn


def safe_norm(x):
    return _row_norms(tf.convert_to_tensor(x))
