import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return tf.reduce_sum(tf.square(q - target))  # a sum, not the mean
