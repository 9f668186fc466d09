# adapted from: the docstring of tf.custom_gradient (tensorflow/tensorflow, tensorflow/python/ops/custom_gradient.py),
# its log1pexp example as printed there: a stable gradient, but the value log(1 + e) overflows to inf for x > 88.7
# (float32) and is exactly 0 (with a 0 gradient) where 1 + e rounds to 1.
import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad
