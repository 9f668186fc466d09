import tensorflow as tf


def straight_through_round(x):
    return tf.round(x)
