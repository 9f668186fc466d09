"""The inner gradient copied through NumPy inside the outer block: the outer tape cannot differentiate it."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = tf.convert_to_tensor(inner.gradient(y, x).numpy())
    return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
