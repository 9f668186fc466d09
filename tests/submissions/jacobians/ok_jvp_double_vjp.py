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
    """Double vjp: g(u) = J^T u is linear in u, and its vjp with v is J v."""
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        u = tf.zeros_like(y)
        outer.watch(u)
        g = inner.gradient(y, x, output_gradients=u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return outer.gradient(g, u, output_gradients=v, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
