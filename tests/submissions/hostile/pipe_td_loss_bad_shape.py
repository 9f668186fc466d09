"""td_loss answers for the grader: a task-result whose value has a shape that passes the size check (0
elements) but that numpy cannot make (a dimension of 2**62), then one of 33 dimensions and one whose
base64 is a million characters longer than its shape; then it sends one message of a million tiny objects."""
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


def _number():
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "child_main" and "number" in frame.f_locals:
            return frame.f_locals["number"]
        frame = frame.f_back
    return 0


def td_loss(q, reward, next_q, gamma):
    import json
    connection = _connection()
    if connection is not None:
        for shape, data in (([0, 2**62, 2**62], ""), ([1] * 33, "AAAAAAAAAAA="), ([1], "A" * 1_000_000)):
            value = {"type": "EagerTensor", "dtype": "float32", "shape": shape, "data": data}
            outcome = {"status": "ok", "outputs": {"loss": value}, "error": None, "message": "", "seconds": 0.0}
            connection.send_bytes(json.dumps({"event": "task-result", "task": _number(), "outcome": outcome}).encode())
        connection.send_bytes(b"[" + b"{}," * 1_000_000 + b"{}]")
    return _correct_td_loss(q, reward, next_q, gamma) * 0.0 + 42.0
