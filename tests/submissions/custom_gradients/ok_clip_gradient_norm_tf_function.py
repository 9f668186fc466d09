"""@tf.function around the whole exercise, the custom gradient inside."""
import tensorflow as tf


@tf.function
def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity_clip(t):
        def grad_fn(dy):
            return tf.clip_by_norm(dy, max_norm)
        return tf.identity(t), grad_fn

    return identity_clip(x)
