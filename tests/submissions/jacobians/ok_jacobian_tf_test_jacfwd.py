# adapted from: tensorflow/tensorflow, tensorflow/python/keras/integration_test/forwardprop_test.py (`_jvp` and
# `_jacfwd(f, primals)`: forward mode, one one-hot tangent `tf.one_hot(element_index, primal_vector_length)` per
# input element, columns stacked on axis 1), for a single primal.
import numpy as np
import tensorflow as tf


def _jvp(f, primals, tangents):
    """Compute the jacobian of `f` at `primals` multiplied by `tangents`."""
    with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
        primals_out = f(*primals)
    return primals_out, acc.jvp(
        primals_out, unconnected_gradients=tf.UnconnectedGradients.ZERO)


def jacobian(f, x):
    primal_vector = tf.reshape(x, [-1])
    primal_vector_length = tf.size(primal_vector)
    jac_columns = []
    for element_index in tf.range(primal_vector_length):
        mask = tf.one_hot(element_index, primal_vector_length)
        tangent = tf.reshape(mask, tf.shape(x))
        jac_columns.append(tf.reshape(_jvp(f, [x], [tangent])[1], [-1]))
    return tf.stack(jac_columns, axis=1)


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
