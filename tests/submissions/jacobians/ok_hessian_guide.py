# adapted from: TensorFlow's guide "Advanced automatic differentiation" (tensorflow/docs,
# site/en/guide/advanced_autodiff.ipynb, "Example: Hessian"): `g = t1.gradient(loss, ...)` inside t2, then
# `h = t2.jacobian(g, ...)`; the guide differentiates a layer's kernel (a Variable), so both tapes watch x here.
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            loss = f(x)
        g = t1.gradient(loss, x)
    h = t2.jacobian(g, x)
    return h


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
