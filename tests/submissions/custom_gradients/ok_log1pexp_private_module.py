"""TensorFlow's private module: ``tensorflow.python.ops.custom_gradient.custom_gradient``."""
import tensorflow as tf
from tensorflow.python.ops import custom_gradient as cg
from tensorflow.python.ops import math_ops, nn_ops


@cg.custom_gradient
def log1pexp(x):
    x = tf.convert_to_tensor(x)
    value = nn_ops.softplus(x)

    def grad_fn(upstream):
        return upstream * math_ops.sigmoid(x)

    return value, grad_fn
