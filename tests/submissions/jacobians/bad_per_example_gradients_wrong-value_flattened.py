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
    """Flattened rows, as DP-SGD's norm computation wants them (wrong: the shape is (batch, size))."""
    def one_example(example):
        x_i, y_i = example
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(loss_fn(y_i[None], model(x_i[None])))
        return [tf.reshape(g, [-1]) for g in tape.gradient(loss, model.trainable_variables)]

    return tf.vectorized_map(one_example, (x, y))
