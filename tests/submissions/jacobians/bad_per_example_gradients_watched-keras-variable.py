"""tape.watch(model.trainable_variables): with Keras 3 it raises ValueError (its variables are not tf.Variables)."""
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
    with tf.GradientTape() as tape:
        tape.watch(model.trainable_variables)  # Keras 3 variables are not tf.Variables: watch raises
        losses = loss_fn(y, model(x))
    return tape.jacobian(losses, model.trainable_variables)
