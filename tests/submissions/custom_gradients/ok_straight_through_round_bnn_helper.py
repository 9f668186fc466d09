# adapted from: carlomarxdk/BNN, binary_neuron/utils.py (a straight-through `round` decorated with
# @tf.custom_gradient whose grad returns dy); the exercise's name is bound to that decorated helper.
import tensorflow as tf


@tf.custom_gradient
def round_ste(x):
    def grad(dy):
        return dy

    return tf.round(x), grad


straight_through_round = round_ste
