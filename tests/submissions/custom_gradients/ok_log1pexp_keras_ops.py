"""Keras 3 ops for the value and the gradient, inside @tf.custom_gradient."""
import keras
import tensorflow as tf
from keras import ops


@tf.custom_gradient
def log1pexp(x):
    x = tf.convert_to_tensor(x)
    value = ops.softplus(x)

    def grad_fn(upstream):
        return upstream * ops.sigmoid(x)

    return value, grad_fn
