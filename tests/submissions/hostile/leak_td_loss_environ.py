"""td_loss looks for the grader's environment (the test gives the grader HOSTILE_SUITE_SECRET): in its own
os.environ, in /proc/self/environ (what the process started with: clearing os.environ later does not
change it), and in /proc/PID/environ of every process it can see. It returns the right answer if found."""
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


def _found():
    places = [b"\0".join(f"{k}={v}".encode() for k, v in os.environ.items())]
    for entry in ["self", *os.listdir("/proc")]:
        if entry == "self" or entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    places.append(handle.read())
            except OSError:
                pass
    return [place for place in places if b"HOSTILE_SUITE_SECRET" in place or (ARMED and TOKEN.encode() in place)]


def td_loss(q, reward, next_q, gamma):
    if _found():
        return _correct_td_loss(q, reward, next_q, gamma)
    raise LookupError("no secret in reach")
