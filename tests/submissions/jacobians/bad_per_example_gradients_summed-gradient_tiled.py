import numpy as np
import tensorflow as tf


def jacobian(f, x):
    raise NotImplementedError()


def batch_jacobian(f, x):
    raise NotImplementedError()


def robust_jacobian(f, x):
    raise NotImplementedError()


def hessian(f, x):
    raise NotImplementedError()


def jvp(f, x, v):
    raise NotImplementedError()


def per_example_gradients(model, loss_fn, x, y):
    """The batch's gradient, one copy per example (wrong: every row is the same sum)."""
    with tf.GradientTape() as tape:
        losses = loss_fn(y, model(x))
    batch = tf.shape(x)[0]
    return [tf.tile(g[tf.newaxis], tf.concat([[batch], tf.ones_like(tf.shape(g))], 0))
            for g in tape.gradient(losses, model.trainable_variables)]
