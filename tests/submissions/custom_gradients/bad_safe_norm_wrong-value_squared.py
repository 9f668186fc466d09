"""The squared norm, and its gradient 2 x."""
import tensorflow as tf


@tf.custom_gradient
def safe_norm(x):
    squared = tf.reduce_sum(tf.square(x), axis=1)
    return squared, lambda upstream: 2.0 * upstream[:, None] * x
