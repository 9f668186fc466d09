"""tf.custom_gradient applied by a call instead of the decorator syntax: log1pexp = tf.custom_gradient(_impl)."""
import tensorflow as tf


def _log1pexp_impl(x):
    x = tf.convert_to_tensor(x)
    value = tf.where(x > 0, x + tf.math.log1p(tf.exp(-x)), tf.math.log1p(tf.exp(x)))

    def grad_fn(upstream):
        return upstream * tf.sigmoid(x)

    return value, grad_fn


log1pexp = tf.custom_gradient(_log1pexp_impl)
