import numpy as np
import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = reward.numpy() + gamma * np.max(next_q.numpy(), axis=-1)
    errors = (q.numpy() - target) ** 2
    return tf.constant(errors.mean(), dtype=q.dtype)
