import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    value = tf.maximum(x, 0) + tf.math.log1p(tf.exp(-tf.abs(x)))

    def grad_fn(upstream):
        return tf.sigmoid(x)  # forgot the chain rule
    return value, grad_fn
