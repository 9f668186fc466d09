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


# --------------------------------------------------------------------------- safe_norm

def _row_scale(x):
    """Each row's largest magnitude, 1 for an all-zero row (a correct helper of the models below)."""
    import tensorflow as tf

    scale = tf.reduce_max(tf.abs(x), axis=1)
    return tf.where(scale > 0, scale, tf.ones_like(scale))


def _stable_norm(x):
    import tensorflow as tf

    scale = _row_scale(x)
    return scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))


def _nonzero(norm):
    import tensorflow as tf

    return tf.where(norm > 0, norm, tf.ones_like(norm))


def _norm_with_gradient(x, value, gradient):
    """A @tf.custom_gradient norm: ``value(x)`` forward, ``gradient(upstream, x, norm)`` backward."""
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        norm = value(x)
        return norm, lambda upstream: gradient(upstream, x, norm)
    return inner(tf.convert_to_tensor(x))


def _correct_norm(x):
    """A right row norm (zero rows guarded), for the models that apply it to other axes."""
    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: up[:, None] * (x / _nonzero(norm)[:, None]))


def norm_unguarded_gradient(x):
    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: up[:, None] * (x / norm[:, None]))


def norm_unguarded_scale(x):
    import tensorflow as tf

    def value(x):
        scale = tf.reduce_max(tf.abs(x), axis=1)
        return scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))
    return _norm_with_gradient(x, value, lambda up, x, norm: up[:, None] * (x / _nonzero(norm)[:, None]))


def norm_sum_of_squares(x):
    import tensorflow as tf

    return _norm_with_gradient(x, lambda x: tf.sqrt(tf.reduce_sum(tf.square(x), axis=1)),
                               lambda up, x, norm: up[:, None] * (x / _nonzero(norm)[:, None]))


def norm_batch_scale(x):
    import tensorflow as tf

    def value(x):
        scale = tf.reduce_max(tf.abs(x))
        scale = tf.where(scale > 0, scale, tf.ones_like(scale))
        return scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale), axis=1))
    return _norm_with_gradient(x, value, lambda up, x, norm: up[:, None] * (x / _nonzero(norm)[:, None]))


def norm_gradient_unscaled(x):
    import tensorflow as tf

    return _norm_with_gradient(
        x, _stable_norm, lambda up, x, norm: up[:, None] * (x / tf.sqrt(tf.reduce_sum(tf.square(x), axis=1))[:, None]))


def norm_gradient_l2_normalize(x):
    import tensorflow as tf

    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: up[:, None] * tf.math.l2_normalize(x, axis=1))


def norm_gradient_multiply_first(x):
    """Right in exact arithmetic: upstream[:, None] * x / norm[:, None] multiplies before it divides, so
    upstream * x overflows (1e9 * 3e30) or underflows (1e-9 * 3e-30) where x / norm would not."""
    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: up[:, None] * x / _nonzero(norm)[:, None])


def norm_ignores_upstream(x):
    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: x / _nonzero(norm)[:, None])


def norm_over_axis0(x):
    import tensorflow as tf

    return _correct_norm(tf.transpose(tf.convert_to_tensor(x)))


def norm_whole_tensor(x):
    import tensorflow as tf

    x = tf.convert_to_tensor(x)
    return tf.reshape(_correct_norm(tf.reshape(x, [1, -1])), [])


def norm_upstream_wrong_axis(x):
    return _norm_with_gradient(x, _stable_norm, lambda up, x, norm: up * (x / _nonzero(norm)[:, None]))


def norm_squared(x):
    import tensorflow as tf

    return _norm_with_gradient(x, lambda x: tf.square(_stable_norm(x)), lambda up, x, norm: 2.0 * up[:, None] * x)


def norm_max_without_abs(x):
    import tensorflow as tf

    def value(x):
        scale = tf.reduce_max(x, axis=1)
        scale = tf.where(tf.equal(scale, 0.0), tf.ones_like(scale), scale)
        return scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1))
    return _norm_with_gradient(x, value, lambda up, x, norm: up[:, None] * (x / _nonzero(norm)[:, None]))


def norm_epsilon(x):
    import tensorflow as tf

    def value(x):
        scale = _row_scale(x)
        return scale * tf.sqrt(tf.reduce_sum(tf.square(x / scale[:, None]), axis=1) + 1e-12)
    return _norm_with_gradient(x, value, lambda up, x, norm: up[:, None] * (x / norm[:, None]))


def norm_threshold_guard(x):
    import tensorflow as tf

    return _norm_with_gradient(
        x, _stable_norm,
        lambda up, x, norm: tf.where(norm[:, None] > 1e-12, up[:, None] * (x / _nonzero(norm)[:, None]), tf.zeros_like(x)))
