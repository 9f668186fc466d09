# adapted from: ggnne/coursera-machine-learning-specialization,
# 03-unsupervised-learning-recommenders-reinforcement-learning/C3_W3_A1_Assignment.py (compute_loss), as
# written there: no tf.stop_gradient (the course only differentiates with respect to q_network's weights, so
# the target network's output never needed one; here next_q is watched and the gradient flows into it).
import tensorflow as tf
from tensorflow.keras.losses import MSE


def td_loss(q, reward, next_q, gamma):
    max_qsa = tf.reduce_max(next_q, axis=-1)
    y_targets = reward + gamma * max_qsa
    return MSE(y_targets, q)
