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
    """One example's gradient, vectorized over the batch (the model sees a batch of one inside the map)."""
    variables = model.trainable_variables

    def one_example(example):
        x_i, y_i = example
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(loss_fn(y_i[tf.newaxis], model(x_i[tf.newaxis])))
        grads = tape.gradient(loss, variables)
        return [tf.zeros_like(v) if g is None else g for g, v in zip(grads, variables)]

    return tf.vectorized_map(one_example, (x, y))
