# adapted from: jviquerat/dragonfly, dragonfly/src/loss/mse_dqn.py (a @tf.function DQN train step:
# tgt = tf.reduce_max(tgt, axis=1); tgt = rwd + gamma * tgt; loss = tf.reduce_mean(tf.square(tgt - val))),
# without the networks, the terminal mask and the float32 cast, and with the target frozen by tf.stop_gradient.
import tensorflow as tf


@tf.function
def td_loss(q, reward, next_q, gamma):
    # Compute target
    tgt = tf.reduce_max(next_q, axis=1)
    tgt = tf.stop_gradient(reward + gamma * tgt)
    # Compute loss
    diff = tf.square(tgt - q)
    loss = tf.reduce_mean(diff)
    return loss
