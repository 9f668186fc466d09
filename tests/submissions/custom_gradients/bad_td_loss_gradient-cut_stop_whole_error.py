"""tf.stop_gradient around the whole TD error: the value is right, but no gradient reaches q either."""
import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = reward + gamma * tf.reduce_max(next_q, axis=-1)
    return tf.reduce_mean(tf.square(tf.stop_gradient(target - q)))
