"""log(1 + e^x) = logsumexp([0, x]); the gradient as 1 / (1 + e^-x), written with tf.math.reciprocal."""
import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    x = tf.convert_to_tensor(x)
    value = tf.reduce_logsumexp(tf.stack([tf.zeros_like(x), x]), axis=0)

    def grad_fn(dy):
        # exp(-x) may overflow to inf for very negative x: 1 / (1 + inf) = 0, which is the right limit
        return dy * tf.math.reciprocal(1.0 + tf.exp(-x))

    return value, grad_fn
