"""The exercise name bound to a decorated module-level helper (``log1pexp = _softplus``)."""
import tensorflow as tf


@tf.custom_gradient
def _softplus(x):
    x = tf.convert_to_tensor(x)
    value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))

    def grad(dy):
        return dy * tf.sigmoid(x)

    return value, grad


log1pexp = _softplus
