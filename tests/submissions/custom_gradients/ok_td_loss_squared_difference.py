import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    best_next = tf.reduce_max(next_q, axis=-1)
    target = tf.stop_gradient(reward + gamma * best_next)
    errors = tf.math.squared_difference(q, target)
    return tf.reduce_sum(errors) / tf.cast(tf.size(errors), errors.dtype)
