import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    x = tf.convert_to_tensor(x)
    safe = tf.minimum(x, 30.0 if x.dtype == tf.float32 else 40.0)
    value = tf.where(x > safe, x, tf.math.log1p(tf.exp(safe)))

    def grad_fn(upstream):
        return upstream / (1 + tf.exp(-x))
    return value, grad_fn
