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
    per_example = []
    for i in range(x.shape[0]):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(loss_fn(y[i:i + 1], model(x[i:i + 1])))
        per_example.append(tape.gradient(loss, model.trainable_variables))
    return [tf.stack([grads[k] for grads in per_example]) for k in range(len(model.trainable_variables))]
