"""The WGAN-GP habit: an epsilon inside the square root, so a zero row's norm is sqrt(1e-12), not 0."""
import tensorflow as tf


@tf.custom_gradient
def safe_norm(x):
    scale = tf.reduce_max(tf.abs(x), axis=1)
    scale = tf.where(scale > 0, scale, tf.ones_like(scale))
    norm = scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1) + 1e-12)

    def grad_fn(upstream):
        return upstream[:, None] * (x / norm[:, None])

    return norm, grad_fn
