"""ForwardAccumulator; J v returned as a NumPy array (zeros for a constant f)."""
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
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
        out = f(x)
    jv = acc.jvp(out)
    return np.zeros(out.shape, out.dtype.as_numpy_dtype) if jv is None else jv.numpy()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
