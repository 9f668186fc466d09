"""Mistake models of ``custom_gradients``: TRUSTED code, imported only by reference children.

Each function is a known-wrong implementation with the exercise's signature; ``Mistake.implementation``
names it. A student's child never imports this module (``autograder.run.child_modules``).
"""
from __future__ import annotations


def log1pexp_ignores_upstream(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        def grad_fn(upstream):
            return tf.sigmoid(x)
        return tf.nn.softplus(x), grad_fn
    return inner(x)


def log1pexp_naive(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        def grad_fn(upstream):
            return upstream * tf.exp(x) / (1 + tf.exp(x))
        return tf.math.log(1 + tf.exp(x)), grad_fn
    return inner(x)


def round_plain(x):
    import tensorflow as tf

    return tf.round(x)


def round_ignores_upstream(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.round(x), lambda upstream: tf.ones_like(x)
    return inner(x)


def clip_value_too(x, max_norm):
    import tensorflow as tf

    return tf.clip_by_norm(x, max_norm)


def clip_ignores_upstream(x, max_norm):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.identity(x), lambda upstream: tf.clip_by_norm(tf.ones_like(x), max_norm)
    return inner(x)


def clip_per_element(x, max_norm):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.identity(x), lambda upstream: tf.clip_by_value(upstream, -max_norm, max_norm)
    return inner(x)


def td_no_stop_gradient(q, reward, next_q, gamma):
    import tensorflow as tf

    return tf.reduce_mean(tf.square(q - (reward + gamma * tf.reduce_max(next_q, axis=-1))))


def checkpoint_identity(f):
    return f


def round_half_up(x):
    import tensorflow as tf

    return x + tf.stop_gradient(tf.floor(x + 0.5) - x)


def td_stop_everything(q, reward, next_q, gamma):
    import tensorflow as tf

    return tf.reduce_mean(tf.square(tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1) - q)))
