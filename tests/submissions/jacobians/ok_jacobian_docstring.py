# adapted from: the docstring of tf.GradientTape.jacobian (tensorflow/tensorflow, tensorflow/python/eager/
# backprop.py): `g.watch(x)`, `y = ...`, `jacobian = g.jacobian(y, x)`; its note suggests enclosing the tape
# code in @tf.function "for better performance", which is done here.
import numpy as np
import tensorflow as tf


@tf.function
def jacobian(f, x):
    with tf.GradientTape() as g:
        g.watch(x)
        y = f(x)
    jacobian = g.jacobian(y, x)
    return jacobian


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
