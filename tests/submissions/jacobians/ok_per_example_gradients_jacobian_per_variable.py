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
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    """One forward pass; then a loop over the variables (not the examples), one Jacobian each."""
    with tf.GradientTape(persistent=True) as tape:
        losses = loss_fn(y, model(x))
    rows = []
    for variable in model.trainable_variables:
        row = tape.jacobian(losses, variable)
        rows.append(tf.zeros((x.shape[0], *variable.shape), variable.dtype) if row is None else row)
    del tape
    return rows
