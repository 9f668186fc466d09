"""recompute_grad of a function whose output is frozen: the value is right, no gradient flows."""
import tensorflow as tf


def checkpointed(f):
    return tf.recompute_grad(lambda x: tf.stop_gradient(f(x)))
