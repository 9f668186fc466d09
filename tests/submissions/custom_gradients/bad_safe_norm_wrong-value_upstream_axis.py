"""upstream (batch,) broadcast against the columns of x: wrong for square x, an error otherwise."""
import tensorflow as tf


@tf.custom_gradient
def safe_norm(x):
    scale = tf.reduce_max(tf.abs(x), axis=1)
    scale = tf.where(scale > 0, scale, tf.ones_like(scale))
    norm = scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))

    def grad_fn(upstream):
        return upstream * (x / tf.where(norm > 0, norm, tf.ones_like(norm))[:, None])

    return norm, grad_fn
