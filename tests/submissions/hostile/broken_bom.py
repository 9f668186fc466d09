"""Honest, saved by an editor that writes a UTF-8 byte order mark."""
import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    def grad_fn(upstream):
        return upstream * tf.sigmoid(x)
    return tf.nn.softplus(x), grad_fn


def straight_through_round(x):
    return x + tf.stop_gradient(tf.round(x) - x)


def clip_gradient_norm(x, max_norm):
    @tf.custom_gradient
    def identity(t):
        def grad_fn(upstream):
            return tf.clip_by_norm(upstream, max_norm)
        return tf.identity(t), grad_fn
    return identity(x)


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_mean(tf.square(q - target))


def checkpointed(f):
    return tf.recompute_grad(f)


@tf.custom_gradient
def safe_norm(x):
    peak = tf.reduce_max(tf.abs(x), axis=1)
    peak = tf.where(peak > 0, peak, tf.ones_like(peak))
    norm = peak * tf.sqrt(tf.reduce_sum(tf.square(x / peak[:, None]), axis=1))

    def grad_fn(upstream):
        return upstream[:, None] * (x / tf.where(norm > 0, norm, tf.ones_like(norm))[:, None])
    return norm, grad_fn
