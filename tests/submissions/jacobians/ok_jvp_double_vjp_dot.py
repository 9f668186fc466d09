import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    """Double vjp written with a scalar: d/du <J^T u, v> = J v."""
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        u = tf.ones_like(y)
        outer.watch(u)
        g = inner.gradient(y, x, output_gradients=u, unconnected_gradients="zero")
        s = tf.reduce_sum(g * v)
    jv = outer.gradient(s, u)
    return tf.zeros_like(y) if jv is None else jv


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
