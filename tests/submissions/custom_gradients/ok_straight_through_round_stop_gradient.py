import tensorflow as tf


def straight_through_round(x):
    return x + tf.stop_gradient(tf.round(x) - x)
