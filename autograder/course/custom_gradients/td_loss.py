"""``td_loss(q, reward, next_q, gamma)``: a temporal-difference loss whose target is a constant."""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case, uniform
from autograder.course.probing import require_tensor, tensor
from autograder.model.course import ContractError, Exercise, Look, Mistake, Output


def make_cases(rng: np.random.Generator):
    def sample(batch, actions, dtype):
        return dict(q=uniform(rng, (batch,), -3, 3, dtype), reward=uniform(rng, (batch,), -1, 1, dtype),
                    next_q=uniform(rng, (batch, actions), -3, 3, dtype))
    loss = ("td_loss: mean squared error between q and the constant target reward + gamma * max(next_q); "
            "gradient None or zero for next_q, the true one for q")
    return [
        case("f32-small", "float32 q = [1, 2], reward = [0.5, -1], next_q = [[1, 3, 2], [0, -1, 4]], gamma = 0.9",
             public=True, reason=loss,
             args=dict(q=array([1.0, 2.0], "float32"), reward=array([0.5, -1.0], "float32"),
                       next_q=array([[1.0, 3.0, 2.0], [0.0, -1.0, 4.0]], "float32"), gamma=0.9)),
        case("f32-random", "float32, batch 16, 4 actions", reason=loss, args=dict(**sample(16, 4, "float32"), gamma=0.99)),
        case("f32-batch7", "float32, batch 7, 2 actions", reason=loss, args=dict(**sample(7, 2, "float32"), gamma=0.5)),
        advisory("f64-random", "float64 q, reward, next_q (the contract's inputs are float32)", "float64",
                 advice="your td_loss does not keep float64 inputs in float64 (a Keras loss, for one, returns "
                        "float32); `tf.reduce_mean(tf.square(q - target))` keeps the inputs' dtype",
                 args=dict(**sample(7, 2, "float64"), gamma=0.5)),
        advisory("f32-variable", "tf.Variables q and next_q (the contract promises Tensors)", tags=("variable",),
                 advice="your td_loss does not work on tf.Variable inputs; `tf.convert_to_tensor` first makes it "
                        "work on both",
                 args=dict(**sample(5, 6, "float32"), gamma=0.95, variable=True)),
    ]


def probe(function, args):
    import tensorflow as tf

    variable = args.get("variable", False)
    q, next_q = tensor(args["q"], variable), tensor(args["next_q"], variable)
    reward = tensor(args["reward"])
    with tf.GradientTape() as tape:
        tape.watch([q, next_q])
        loss = require_tensor(function(q, reward, next_q, float(args["gamma"])), "the loss", like=q)
        if loss.shape.rank != 0:
            raise ContractError(f"the loss must be a scalar, got shape {tuple(loss.shape)}")
    grad_q, grad_next_q = tape.gradient(loss, [q, next_q])
    return {"value": loss, "grad_q": grad_q, "grad_next_q": grad_next_q}


EXERCISE = Exercise(
    id="td_loss",
    params=("q", "reward", "next_q", "gamma"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(
        Output("value", "the loss", check_dtype=True),
        Output("grad_q", "the gradient with respect to q", gradient=True),
        Output("grad_next_q", "the gradient with respect to next_q", none_means_zero=True, gradient=True),
    ),
    mistakes=(
        Mistake("missing-stop-gradient", "td_no_stop_gradient",
                "the target is not wrapped in `tf.stop_gradient`, so the gradient flows into next_q",
                "compute `target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))`",
                look=Look((r"target\w*\s*=(?!=)", r"reduce_max\("),
                          "this target is not wrapped in `tf.stop_gradient`")),
        Mistake("gradient-cut", "td_stop_everything",
                "`tf.stop_gradient` wraps the whole difference `target - q`, so the gradient with respect to q "
                "is cut too: the loss is right, but nothing would learn from it",
                "stop only the target: `target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, "
                "axis=-1))`, then `tf.reduce_mean(tf.square(q - target))`"),
    ),
    stop_gradient_expected=True,
)
