"""Keras 3 ops: keras.ops.round (half to even, like tf.round) and keras.ops.stop_gradient."""
import tensorflow as tf
from keras import ops


def straight_through_round(x):
    x = ops.convert_to_tensor(x)
    return x + ops.stop_gradient(ops.round(x) - x)
