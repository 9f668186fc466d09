# adapted from: TensorFlow's guide "Advanced automatic differentiation" (tensorflow/docs,
# site/en/guide/advanced_autodiff.ipynb, "Batch Jacobian"): the full `tape.jacobian(y, x)` of shape
# (batch, outs, batch, ins), then "sum over the duplicate batch dimension": `tf.reduce_sum(j, axis=2)`.
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = f(x)
    j = tape.jacobian(y, x)
    j_sum = tf.reduce_sum(j, axis=2)
    return j_sum


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
