"""max over the whole batch (no axis) instead of one max per example."""
import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q))
    return tf.reduce_mean(tf.square(q - target))
