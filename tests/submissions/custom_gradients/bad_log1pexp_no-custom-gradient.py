import tensorflow as tf


def log1pexp(x):
    return tf.nn.softplus(x)
