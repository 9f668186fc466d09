"""The stop_gradient trick inside @tf.function."""
import tensorflow as tf


@tf.function
def straight_through_round(x):
    x = tf.convert_to_tensor(x)
    return x + tf.stop_gradient(tf.math.round(x) - x)
