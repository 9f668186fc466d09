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


def _gradient_of_one(model, loss_fn, x_i, y_i):
    with tf.GradientTape() as tape:
        loss = loss_fn(y_i[None], model(x_i[None]))[0]
    return tape.gradient(loss, model.trainable_variables)


def per_example_gradients(model, loss_fn, x, y):
    grads = [_gradient_of_one(model, loss_fn, x_i, y_i) for x_i, y_i in zip(tf.unstack(x), tf.unstack(y))]
    return [tf.stack(column) for column in zip(*grads)]
