"""floor(x + 0.5) rounds half up; tf.round rounds half to even (tf.round(2.5) == 2, tf.round(-0.5) == -0)."""
import tensorflow as tf


def straight_through_round(x):
    x = tf.convert_to_tensor(x)
    rounded = tf.floor(x + 0.5)
    return x + tf.stop_gradient(rounded - x)
