"""The loss turned into a Python float (for logging) and returned: no gradient at all."""
import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    loss = tf.reduce_mean(tf.square(q - target))
    return tf.constant(float(loss), dtype=q.dtype)
