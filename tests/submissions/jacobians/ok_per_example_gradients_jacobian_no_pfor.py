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
    """The Jacobian computed row by row (a while_loop of gradients) instead of with pfor."""
    with tf.GradientTape(persistent=True) as tape:
        losses = loss_fn(y, model(x))
    return tape.jacobian(losses, model.trainable_variables, experimental_use_pfor=False,
                         unconnected_gradients=tf.UnconnectedGradients.ZERO)
