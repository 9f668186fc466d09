# adapted from: the docstring of tf.recompute_grad (tensorflow/tensorflow,
# tensorflow/python/ops/custom_gradient.py): `my_function_recompute = tf.recompute_grad(my_function)`.
import tensorflow as tf


def checkpointed(f):
    my_function_recompute = tf.recompute_grad(f)
    return my_function_recompute
