# adapted from: tensorflow/tensorflow, tensorflow/python/keras/integration_test/forwardprop_test.py
# (`_hvp`, `_vectorize_parameters` and `_forward_over_back_hessian(f, params, use_pfor=True)`: forward-over-back
# Hessian-vector products with the one-hot tangents `tf.one_hot(index, total_size)`, vectorized with
# tf.vectorized_map), for a single parameter.
import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def _hvp(f, primals, tangents):
    """Compute a forward-over-back Hessian-vector product."""
    with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
        with tf.GradientTape() as tape:
            tape.watch(primals)
            f_out = f(*primals)
            f_out.shape.assert_is_compatible_with([])
        return acc.jvp(tape.gradient(f_out, primals))


def _vectorize_parameters(f, params):
    """Loop over `params`, providing a one-hot mask to `f` for each."""
    parameter_sizes = [tf.size(param) for param in params]
    total_size = tf.math.add_n(parameter_sizes)

    def _wrapper(index):
        full_onehot = tf.one_hot(index, total_size)
        split_onehot = tf.split(full_onehot, parameter_sizes)
        tangents = [tf.reshape(v, tf.shape(param)) for param, v in zip(params, split_onehot)]
        return f(tangents)

    return tf.vectorized_map(_wrapper, tf.range(total_size))


def hessian(f, x):
    return _vectorize_parameters(lambda tangents: _hvp(f, [x], tangents), [x])[0]


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    raise NotImplementedError()
