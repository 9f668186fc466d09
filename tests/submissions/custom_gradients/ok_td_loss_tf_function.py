"""@tf.function on the loss; reduce_max over axis 1 of the (batch, actions) target values."""
import tensorflow as tf


@tf.function
def td_loss(q, reward, next_q, gamma):
    best = tf.reduce_max(next_q, axis=1)
    y = tf.stop_gradient(reward + gamma * best)
    return tf.reduce_mean(tf.math.squared_difference(y, q))
