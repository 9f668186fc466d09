# adapted from: Jamie Townsend's "A new trick for calculating Jacobian vector products"
# (https://j-towns.github.io/2017/06/12/A-new-trick.html), as public TF code writes it (`fmad_prod(ys, xs,
# d_xs)`: a zeros dummy v, `g = tf.gradients(ys, xs, grad_ys=v)`, `tf.gradients(g, v, grad_ys=d_xs)`), with
# tapes instead of tf.gradients.
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
    """Forward-mode pushforward analogous to the pullback defined by tape.gradient."""
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            ys = f(x)
        u = tf.zeros_like(ys)  # dummy variable
        outer.watch(u)
        g = inner.gradient(ys, x, output_gradients=u)
    return outer.gradient(g, u, output_gradients=v)


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
