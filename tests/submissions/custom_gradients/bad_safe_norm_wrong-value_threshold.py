"""A guard against 'small' norms (1e-8), not only zero: rows of magnitude 1e-30 lose their gradient."""
import tensorflow as tf


@tf.custom_gradient
def safe_norm(x):
    scale = tf.reduce_max(tf.abs(x), axis=1)
    scale = tf.where(scale > 0, scale, tf.ones_like(scale))
    norm = scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))

    def grad_fn(upstream):
        small = norm < 1e-8
        safe = tf.where(small, tf.ones_like(norm), norm)
        return tf.where(small[:, None], tf.zeros_like(x), upstream[:, None] * (x / safe[:, None]))

    return norm, grad_fn
