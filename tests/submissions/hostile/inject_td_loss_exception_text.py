"""td_loss raises an exception whose type name holds an ANSI escape (clear the screen) and a newline followed
by a fake line of the report, and whose message holds a lone surrogate, a carriage return, more ANSI
colours and rich's markup: every writer must survive it and write none of it raw."""
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
    evil = type("Evil\x1b[2J\nINJECTED-LINE td_loss 2 / 2 passed", (Exception,), {})
    raise evil("\udc80 lone surrogate\r\x1b[31mINJECTED-RED[/x] [bold]markup\x1b[0m\u202e")
