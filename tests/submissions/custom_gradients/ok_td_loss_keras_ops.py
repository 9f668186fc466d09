"""Keras 3 ops throughout: keras.ops.max, keras.ops.stop_gradient, keras.ops.mean."""
from keras import ops


def td_loss(q, reward, next_q, gamma):
    target = ops.stop_gradient(reward + gamma * ops.max(next_q, axis=-1))
    return ops.mean(ops.square(q - target))
