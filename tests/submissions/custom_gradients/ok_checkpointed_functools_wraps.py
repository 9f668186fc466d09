"""A wrapper that keeps f's name and docstring (functools.wraps) and calls the recompute_grad version."""
import functools

import tensorflow as tf


def checkpointed(f):
    recomputed = tf.recompute_grad(f)

    @functools.wraps(f)
    def g(x):
        return recomputed(x)

    return g
