import tensorflow as tf


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            norm = tf.sqrt(tf.reduce_sum(upstream * upstream))
            limit = tf.cast(max_norm, upstream.dtype)
            scale = tf.where(norm > limit, limit / tf.maximum(norm, limit), tf.ones_like(norm))
            return upstream * scale
        return tf.identity(t), grad_fn
    return identity(x)
