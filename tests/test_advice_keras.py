"""The grader's own advice works with the supported Keras (Keras 3): its code is run here on a Keras 3 model.

`unconnected_gradients=tf.UnconnectedGradients.ZERO` raises AttributeError ('str' object has no attribute
'_type_enum') for a Keras 3 variable that the loss does not reach (TensorFlow 2.16 to 2.21, Keras 3): advice
for an exercise whose inputs are Keras models must not suggest it. (Advice for functions of a Tensor x may: a
Tensor is no Keras variable.)
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from autograder.course import all_assignments
from autograder.model.pitfalls import CATALOGUE

KERAS_EXERCISES = {"per_example_gradients", "gradient_penalty", "critic_gradients"}  # their inputs are Keras models
# a suggestion, not a warning against it ("(not `unconnected_gradients=ZERO`, which raises ...)")
SUGGESTS_ZERO = re.compile(r"(?<!not `)(?<!not )unconnected_gradients\s*=\s*(tf\.UnconnectedGradients\.)?ZERO",
                           re.IGNORECASE)


def advice_texts():
    """Every sentence of advice the grader gives for the exercises that take Keras models."""
    for assignment in all_assignments():
        for exercise in assignment.exercises:
            if exercise.id not in KERAS_EXERCISES:
                continue
            yield exercise.id, "hints", " ".join(exercise.hints.values())
            yield exercise.id, "mistakes", " ".join(f"{m.explanation} {m.fix}" for m in exercise.mistakes)
            yield exercise.id, "advice", " ".join(case.advice for case in exercise.cases(1) if case.advice)
    yield "catalogue", "fixes", " ".join(p.fix for p in CATALOGUE.values())


def test_no_advice_for_a_keras_model_suggests_unconnected_gradients_zero():
    for exercise, where, text in advice_texts():
        assert not SUGGESTS_ZERO.search(text), (exercise, where, text)


@pytest.mark.slow  # TensorFlow and Keras 3 in the worker
def test_the_per_example_advice_runs_on_a_keras_3_model_with_a_variable_the_loss_does_not_reach():
    import keras
    import tensorflow as tf

    advice = next(text for exercise, where, text in advice_texts()
                  if exercise == "per_example_gradients" and where == "advice")
    assert "tf.zeros((batch, *v.shape), v.dtype)" in advice  # the code run below

    class WithSpare(keras.layers.Layer):
        def build(self, shape):
            self.kernel = self.add_weight(shape=(shape[-1], 2))
            self.spare = self.add_weight(shape=(2,))  # trainable, and the output never reads it

        def call(self, x):
            return x @ self.kernel

    model = keras.Sequential([keras.Input((3,)), WithSpare()])
    x, y = tf.constant(np.ones((4, 3), "float32")), tf.constant(np.zeros((4, 2), "float32"))
    with tf.GradientTape() as tape:
        losses = tf.reduce_sum(tf.square(model(x) - y), axis=-1)
    grads = tape.jacobian(losses, model.trainable_variables)
    batch = x.shape[0]
    grads = [tf.zeros((batch, *v.shape), v.dtype) if g is None else g for g, v in zip(grads, model.trainable_variables)]
    assert [tuple(g.shape) for g in grads] == [(4, 3, 2), (4, 2)] and float(tf.reduce_sum(tf.abs(grads[1]))) == 0.0
