# adapted from: the docstring of tf.GradientTape.jacobian (tensorflow/tensorflow, tensorflow/python/eager/
# backprop.py): "experimental_use_pfor: If true, vectorizes the jacobian computation. Else falls back to a
# sequential while_loop"; the sequential loop calls gradient once per row, hence the persistent tape.
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = f(x)
    jacobian = g.jacobian(y, x, experimental_use_pfor=False)
    del g
    return jacobian


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
