"""td_loss writes messages with a 5,000-digit integer (beyond Python's digit limit: ValueError) and a
4,000-digit one (accepted by the parser, too large for every use the grader has) into its result pipe."""
import os
import sys
import tensorflow as tf

# The test run's token, written here by tests/test_hostile.py when it copies this file; graded anywhere else
# the placeholder stays and the attack is inert (ARMED False: it touches nothing and fails on its own).
TOKEN = "__HOSTILE_SUITE_TOKEN__"
ARMED = not TOKEN.startswith("__")


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


def checkpointed(f):
    return tf.recompute_grad(f)


def _correct_td_loss(q, reward, next_q, gamma):
    """What an attack returns only when it got what it was after: a pass means the defence failed."""
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_mean(tf.square(q - target))


def _connection():
    """The child's own result pipe, as student code finds it: the Connection object in memory."""
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "Connection" and getattr(obj, "writable", False):
            return obj
    return None


def td_loss(q, reward, next_q, gamma):
    connection = _connection()
    if connection is not None:
        connection.send_bytes(b'{"event": "cell-start", "cell": ' + b"9" * 4_000 + b"}")
        connection.send_bytes(b'{"event": "task-start", "task": ' + b"7" * 5_000 + b"}")
    return _correct_td_loss(q, reward, next_q, gamma) * 0.0 + 42.0
