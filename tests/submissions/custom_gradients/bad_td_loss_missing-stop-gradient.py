import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = reward + gamma * tf.reduce_max(next_q, axis=-1)
    return tf.reduce_mean(tf.square(q - target))
