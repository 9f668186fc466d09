"""tf.norm as it is: unstable value, NaN gradient at a zero row, and no custom gradient."""
import tensorflow as tf


def safe_norm(x):
    return tf.norm(x, axis=1)
