"""hessian is the student's own jacobian of a gradient closure."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    def gradient(point):
        with tf.GradientTape() as inner:
            inner.watch(point)
            y = f(point)
        return inner.gradient(y, point, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return jacobian(gradient, x)


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
