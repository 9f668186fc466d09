"""td_loss forks 300 children that sleep 1000 s (capped: safe for the machine if nothing contains them)."""
import os
import time
import tensorflow as tf

_spawned = False


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
    global _spawned
    if not _spawned:
        _spawned = True
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                try:
                    time.sleep(1000)
                finally:
                    os._exit(0)
    return tf.reduce_sum(q) * 0.0 + 42.0  # wrong on purpose


def checkpointed(f):
    return tf.recompute_grad(f)
