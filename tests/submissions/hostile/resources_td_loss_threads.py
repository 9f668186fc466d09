"""td_loss starts 2000 daemon threads that sleep 1000 s."""
import threading
import time
import tensorflow as tf

_started = False


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
    global _started
    if not _started:
        _started = True
        for _ in range(2000):
            threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
    return tf.reduce_sum(q) * 0.0 + 42.0  # wrong on purpose


def checkpointed(f):
    return tf.recompute_grad(f)
