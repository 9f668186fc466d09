import numpy as np
import tensorflow as tf


def jacobian(f, x):
    # finite differences instead of automatic differentiation
    h = 1e-2
    y0 = f(x)
    n = x.shape[0]
    columns = [(f(x + h * tf.one_hot(j, n, dtype=x.dtype)) - y0) / h for j in range(n)]
    return tf.stack(columns, axis=1)


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
