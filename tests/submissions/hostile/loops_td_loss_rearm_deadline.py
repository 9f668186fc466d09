"""td_loss is right but slow: 12 s against the case's 5 s. A thread re-sends the task's task-start every
half second so that a grader that re-arms the deadline on every task-start would let it finish (and pass).
Deadlines belong to the parent: the task must not pass."""
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

import threading
import time


def _number():
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "child_main" and "number" in frame.f_locals:
            return frame.f_locals["number"]
        frame = frame.f_back
    return 0


def td_loss(q, reward, next_q, gamma):
    connection, number = _connection(), _number()

    def resend():
        for _ in range(40):
            try:
                connection.send_bytes(('{"event": "task-start", "task": %d}' % number).encode())
            except OSError:
                return
            time.sleep(0.5)

    if connection is not None:
        threading.Thread(target=resend, daemon=True).start()
    time.sleep(12)
    return _correct_td_loss(q, reward, next_q, gamma)
