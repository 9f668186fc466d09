"""Clips a tensor of ones instead of the upstream gradient."""
import tensorflow as tf


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def _clip(t):
        def grad_fn(upstream):
            return tf.clip_by_norm(tf.ones_like(t), max_norm)
        return tf.identity(t), grad_fn

    return _clip(x)
