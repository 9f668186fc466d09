import tensorflow as tf


def clip_gradient_norm(x, max_norm):
    return tf.clip_by_norm(x, max_norm)
