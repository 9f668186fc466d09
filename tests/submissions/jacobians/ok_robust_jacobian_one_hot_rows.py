import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    """Row i of J is the vector-Jacobian product e_i^T J: a Python loop of backward passes."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    m = y.shape[0]
    rows = []
    for i in range(m):
        e_i = tf.one_hot(i, m, dtype=y.dtype)
        rows.append(tape.gradient(y, x, output_gradients=e_i,
                                  unconnected_gradients=tf.UnconnectedGradients.ZERO))
    return tf.stack(rows)


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
