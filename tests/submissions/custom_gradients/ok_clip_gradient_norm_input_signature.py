"""The backward pass in a tf.function with an input_signature."""
import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec([], tf.float32)])
def _clip(upstream, max_norm):
    return tf.clip_by_norm(upstream, max_norm)


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        return tf.identity(t), lambda dy: _clip(dy, max_norm)

    return identity(x)
