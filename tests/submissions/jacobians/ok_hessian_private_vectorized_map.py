"""Forward over back with the private forwardprop module, tf.vectorized_map over one-hot tangents of x's dtype."""
import numpy as np
import tensorflow as tf
from tensorflow.python.eager import forwardprop


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    def column(tangent):
        with forwardprop.ForwardAccumulator(x, tangent) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
        return acc.jvp(g, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    return tf.vectorized_map(column, tf.eye(tf.size(x), dtype=x.dtype))


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
