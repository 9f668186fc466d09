"""The sequential tape.jacobian inside @tf.function: right for running_product, but an f whose gradient is eager
Python (a custom gradient that calls .numpy(), a Python `if` on a tensor) cannot run in the graph."""
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


@tf.function
def robust_jacobian(f, x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x, experimental_use_pfor=False, unconnected_gradients="zero")


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
