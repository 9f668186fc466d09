"""A small class holds gamma; the target is a constant."""
import tensorflow as tf


class _TDTarget:
    def __init__(self, gamma):
        self.gamma = gamma

    def __call__(self, reward, next_q):
        return tf.stop_gradient(reward + self.gamma * tf.reduce_max(next_q, axis=-1))


def td_loss(q, reward, next_q, gamma):
    return tf.reduce_mean((q - _TDTarget(gamma)(reward, next_q)) ** 2)
