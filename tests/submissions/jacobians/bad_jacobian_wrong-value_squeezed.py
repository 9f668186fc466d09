"""tf.squeeze of the Jacobian: an f with one output (m = 1) gives (n,) instead of (1, n)."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tf.squeeze(tape.jacobian(y, x))


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
