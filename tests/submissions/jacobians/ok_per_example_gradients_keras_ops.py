import numpy as np
import tensorflow as tf
import keras

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
    """keras.ops.vectorized_map over the examples; each example's gradient from its own tape."""
    weights = list(model.trainable_variables)

    def gradient_of(pair):
        features, target = pair
        with tf.GradientTape() as tape:
            prediction = model(keras.ops.expand_dims(features, 0))
            loss = keras.ops.sum(loss_fn(keras.ops.expand_dims(target, 0), prediction))
        return [keras.ops.zeros_like(w) if g is None else g for g, w in zip(tape.gradient(loss, weights), weights)]

    return keras.ops.vectorized_map(gradient_of, (x, y))
