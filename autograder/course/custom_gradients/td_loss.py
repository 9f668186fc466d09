"""``td_loss(q, reward, next_q, gamma)``: a temporal-difference loss whose target is a constant."""
from __future__ import annotations

import numpy as np

from autograder.course.building import array, case, uniform
from autograder.course.probing import require_tensor, tensor
from autograder.model.course import ContractError, Exercise, Mistake, Output


def make_cases(rng: np.random.Generator):
    def sample(batch, actions, dtype):
        return dict(q=uniform(rng, (batch,), -3, 3, dtype), reward=uniform(rng, (batch,), -1, 1, dtype),
                    next_q=uniform(rng, (batch, actions), -3, 3, dtype))
    return [
        case("f32-small", "float32, batch 2, 3 actions, gamma = 0.9", public=True,
             args=dict(q=array([1.0, 2.0], "float32"), reward=array([0.5, -1.0], "float32"),
                       next_q=array([[1.0, 3.0, 2.0], [0.0, -1.0, 4.0]], "float32"), gamma=0.9)),
        case("f32-random", "float32, batch 16, 4 actions, gamma = 0.99", args=dict(**sample(16, 4, "float32"), gamma=0.99)),
        case("f64-random", "float64, batch 7, 2 actions, gamma = 0.5", "float64",
             args=dict(**sample(7, 2, "float64"), gamma=0.5)),
        case("f32-variable", "float32 Variables q and next_q, batch 5, 6 actions, gamma = 0.95",
             tags=("variable",), args=dict(**sample(5, 6, "float32"), gamma=0.95, variable=True)),
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
                "compute `target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))`"),
    ),
    stop_gradient_expected=True,
)
