# adapted from: tensorflow/privacy, tensorflow_privacy/privacy/optimizers/dp_optimizer_keras_vectorized.py
# (_compute_gradients: the Jacobian of the per-microbatch losses, one microbatch per example)
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
    # (The original's `tape.watch(var_list)` is left out: a Keras 3 model's variables are not tf.Variables and
    # tape.watch raises a ValueError for them; a tape watches trainable variables by itself.)
    var_list = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
        num_microbatches = tf.shape(input=loss)[0]  # one microbatch per example
        microbatch_losses = tf.reduce_mean(tf.reshape(loss, [num_microbatches, -1]), axis=1)
    var_list = tf.nest.flatten(var_list)
    # Compute the per-microbatch losses using helpful jacobian method.
    return tape.jacobian(microbatch_losses, var_list)
