"""td_loss recurses without end at the default limit: RecursionError."""
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
    def down(n):
        return down(n + 1) + 1

    return down(0) * tf.reduce_sum(q)


def checkpointed(f):
    return tf.recompute_grad(f)
