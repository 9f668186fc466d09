"""The target computed in NumPy (as DQN code does with target_net.predict): a constant, so no gradient reaches
next_q; the loss itself stays in TensorFlow, so the gradient with respect to q is the true one."""
import numpy as np
import tensorflow as tf


def td_loss(q, reward, next_q, gamma):
    target = np.asarray(reward) + gamma * np.max(np.asarray(next_q), axis=-1)
    return tf.reduce_mean(tf.square(q - tf.constant(target, dtype=q.dtype)))
