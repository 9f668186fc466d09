"""A helper squashes the forward value with tanh (a "soft clip"); the gradient is clipped right."""
import tensorflow as tf


def _soft_clip(t, limit):
    return limit * tf.tanh(t / limit)


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def inner(t):
        return _soft_clip(t, max_norm), lambda dy: tf.clip_by_norm(dy, max_norm)

    return inner(x)
