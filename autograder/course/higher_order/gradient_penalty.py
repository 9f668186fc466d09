"""``gradient_penalty(critic, real, fake, alpha)``: the WGAN-GP penalty, differentiable in the critic's weights."""
from __future__ import annotations

import numpy as np

from autograder.course.higher_order.critics import (NORM_FIX, SWAP_FIX, build_critic, critic_cases, critic_inputs,
                                                   grad_outputs)
from autograder.course.probing import require_scalar
from autograder.model.course import Exercise, Look, Mistake, Output


def make_cases(rng: np.random.Generator):
    return critic_cases(rng)


def probe(gradient_penalty, args):
    import tensorflow as tf

    critic = build_critic(args)
    real, fake, alpha = critic_inputs(args)
    with tf.GradientTape() as tape:
        # No dtype ContractError here: a penalty turned into a Python float keeps its (right) value and shows up
        # as None gradients below (gradient-cut), which says more than a dtype complaint.
        penalty = require_scalar(gradient_penalty(critic, real, fake, alpha), "the penalty")
    grads = tape.gradient(penalty, critic.trainable_variables)
    return {"value": penalty, **{f"grad_{k}": g for k, g in enumerate(grads)}}


EXERCISE = Exercise(
    id="gradient_penalty",
    params=("critic", "real", "fake", "alpha"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("value", "the penalty", check_dtype=True), *grad_outputs("the penalty's")),
    mistakes=(
        Mistake("wrong-norm-axis", "gp_whole_batch",
                "the norm is taken over the whole batch (`tf.norm(g)` without an axis): one number instead of one "
                "norm per example", NORM_FIX,
                look=Look((r"\bnorm\((?!.*axis)", r"reduce_sum\((?!.*axis)"), "this takes one norm over the whole "
                          "batch")),
        Mistake("wrong-norm-axis", "gp_axis_one",
                "the norm is taken over axis 1 only (`tf.norm(g, axis=1)`): right for (batch, d) vectors, but for "
                "(batch, h, w, c) images it leaves a (batch, w, c) tensor of column norms", NORM_FIX,
                look=Look((r"axis\s*=\s*\[?\s*1\s*\]?\s*[,)]",), "this takes the norm over axis 1 only")),
        Mistake("wrong-norm-axis", "gp_last_axis",
                "the norm is taken over the last axis only (`tf.norm(g, axis=-1)`): right for (batch, d) vectors, "
                "but for (batch, h, w, c) images it leaves a (batch, h, w) tensor of norms over the channels",
                NORM_FIX, look=Look((r"axis\s*=\s*\[?\s*-1\b",), "this takes the norm over the last axis only")),
        Mistake("wrong-norm-axis", "gp_spatial_axes",
                "the norm of image gradients is taken over the spatial axes only (axes 1 and 2 of (batch, h, w, "
                "c)), leaving one norm per example and channel: the channels must be in the norm too", NORM_FIX,
                look=Look((r"\[\s*1\s*,\s*2\s*\]|\(\s*1\s*,\s*2\s*\)",), "these axes leave the channels out")),
        Mistake("wrong-norm-axis", "gp_batch_axis",
                "the norm is taken over the batch axis (`axis=0`): one norm per feature across the examples, "
                "instead of one norm per example", NORM_FIX,
                look=Look((r"axis\s*=\s*\[?\s*0\b",), "this takes the norm over the batch axis")),
        Mistake("swapped-interpolation", "gp_swapped",
                "your interpolates put alpha on the fake side, `real + alpha * (fake - real)` (as Keras's WGAN-GP "
                "example does): the exercise asks for `alpha * real + (1 - alpha) * fake`, the same point only "
                "when alpha = 0.5", SWAP_FIX),
    ),
    hints={
        "gradient-cut": "keep the penalty in TensorFlow ops: no `.numpy()`, `float()`, NumPy functions or "
                        "`tf.stop_gradient` between the critic's input gradient and the returned value, so that an "
                        "outer tape can differentiate it with respect to the critic's weights",
        "tape-outside-context": "call `critic(interpolates)` inside the `with tf.GradientTape() as tape:` block "
                                "after `tape.watch(interpolates)`",
    },
)
