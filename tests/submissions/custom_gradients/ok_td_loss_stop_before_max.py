import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    frozen = tf.stop_gradient(next_q)
    target = reward + gamma * tf.reduce_max(frozen, axis=1)
    return tf.reduce_mean((target - q) ** 2)
