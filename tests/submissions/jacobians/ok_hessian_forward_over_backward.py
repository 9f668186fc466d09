import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    """Forward over backward: column j of H is the directional derivative of grad f along e_j."""
    n = x.shape[0]
    columns = []
    for j in range(n):
        with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.one_hot(j, n, dtype=x.dtype)) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        columns.append(acc.jvp(g, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    return tf.stack(columns, axis=1)


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
