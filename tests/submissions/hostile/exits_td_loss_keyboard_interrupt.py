"""td_loss raises KeyboardInterrupt."""
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
    raise KeyboardInterrupt
    return tf.reduce_sum(q) * 0.0 + 42.0  # never reached


def checkpointed(f):
    return tf.recompute_grad(f)
