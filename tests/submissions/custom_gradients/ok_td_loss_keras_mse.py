"""Keras 3 loss object: keras.losses.MeanSquaredError()(target, q), target behind tf.stop_gradient."""
import keras
import tensorflow as tf

_mse = keras.losses.MeanSquaredError()


def td_loss(q, reward, next_q, gamma):
    target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
    return _mse(target, q)
