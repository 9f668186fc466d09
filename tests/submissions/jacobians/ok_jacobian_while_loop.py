"""tf.while_loop over the outputs, one gradient per row into a TensorArray."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    m = tf.size(y)

    def body(i, rows):
        with tape:
            yi = tf.gather(y, i)
        row = tape.gradient(yi, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return i + 1, rows.write(i, row)

    _, rows = tf.while_loop(lambda i, rows: i < m, body, (0, tf.TensorArray(x.dtype, size=m)))
    return rows.stack()


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
