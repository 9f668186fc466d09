"""Rounds in NumPy and comes back with tf.constant: the tape cannot see through .numpy()."""
import numpy as np
import tensorflow as tf


def straight_through_round(x):
    rounded = np.round(x.numpy())
    return tf.constant(rounded, dtype=x.dtype)
