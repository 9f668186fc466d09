"""hessian calls the student's own jacobian, which cuts the gradient with .numpy(); the hessian is right otherwise."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.constant(f(x).numpy())
    return tape.jacobian(y, x)


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    def gradient(point):
        with tf.GradientTape() as inner:
            inner.watch(point)
            y = f(point)
        return inner.gradient(y, point)
    return jacobian(gradient, x)


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
