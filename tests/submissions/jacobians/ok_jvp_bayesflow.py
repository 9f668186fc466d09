# adapted from: bayesflow-org/bayesflow, bayesflow/utils/jvp.py (its "tensorflow" branch: primals and tangents
# wrapped in tuples, `with tf.autodiff.ForwardAccumulator(primals=x, tangents=tangents) as acc: fx = f(*x)`,
# `_jvp = acc.jvp(fx)`), without the Keras backend dispatch.
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


def _jvp(f, x, tangents, return_output=False):
    """Compute the Jacobian-vector product of f at x with tangents."""
    if tf.is_tensor(x):
        x = (x,)

    if tf.is_tensor(tangents):
        tangents = (tangents,)

    with tf.autodiff.ForwardAccumulator(primals=x, tangents=tangents) as acc:
        fx = f(*x)

    _jvp = acc.jvp(fx)

    if return_output:
        return fx, _jvp

    return _jvp


def jvp(f, x, v):
    return _jvp(f, x, v)


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
