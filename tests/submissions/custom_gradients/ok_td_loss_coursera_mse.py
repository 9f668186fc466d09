# adapted from: ggnne/coursera-machine-learning-specialization,
# 03-unsupervised-learning-recommenders-reinforcement-learning/C3_W3_A1_Assignment.py (compute_loss:
# max_qsa = tf.reduce_max(target_q_network(next_states), axis=-1); y_targets = rewards + gamma * max_qsa;
# loss = MSE(y_targets, q_values)), without the done mask, with the target frozen by tf.stop_gradient.
import tensorflow as tf
from tensorflow.keras.losses import MSE


def td_loss(q, reward, next_q, gamma):
    max_qsa = tf.reduce_max(next_q, axis=-1)
    y_targets = tf.stop_gradient(reward + gamma * max_qsa)
    loss = MSE(y_targets, q)
    return loss
