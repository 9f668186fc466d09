"""``critic_gradients(critic, real, fake, alpha, gp_weight)``: the WGAN-GP critic loss and its gradients."""
from __future__ import annotations

import numpy as np

from autograder.course.higher_order.critics import (NORM_FIX, SWAP_FIX, build_critic, critic_cases, critic_inputs,
                                                   grad_outputs)
from autograder.course.probing import require_pair, require_scalar, require_tensor
from autograder.model.course import ContractError, Exercise, Look, Mistake, Output


def make_cases(rng: np.random.Generator):
    return critic_cases(rng, with_gp_weight=True)


def probe(critic_gradients, args):
    critic = build_critic(args)
    real, fake, alpha = critic_inputs(args)
    variables = critic.trainable_variables
    loss, grads = require_pair(critic_gradients(critic, real, fake, alpha, float(args["gp_weight"])),
                               "critic_gradients(critic, real, fake, alpha, gp_weight)")
    loss = require_scalar(loss, "the loss (the first item returned)")
    if not isinstance(grads, (list, tuple)):
        raise ContractError(f"grads (the second item returned) is a {type(grads).__name__}, expected a list with one "
                            "gradient per variable of critic.trainable_variables")
    if len(grads) != len(variables):
        raise ContractError(f"grads has {len(grads)} entries but critic.trainable_variables has {len(variables)}: "
                            "return `tape.gradient(loss, critic.trainable_variables)`, one gradient per variable, "
                            "in that order")
    outputs = {"loss": loss}
    for k, (grad, variable) in enumerate(zip(grads, variables)):
        if grad is not None:
            grad = require_tensor(grad, f"grads[{k}]")
            if tuple(grad.shape) != tuple(variable.shape):
                raise ContractError(f"grads[{k}] has shape {tuple(grad.shape)} but critic.trainable_variables[{k}] "
                                    f"has shape {tuple(variable.shape)}: keep the order of "
                                    "critic.trainable_variables")
        outputs[f"grad_{k}"] = grad
    return outputs


EXERCISE = Exercise(
    id="critic_gradients",
    params=("critic", "real", "fake", "alpha", "gp_weight"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(Output("loss", "the loss", check_dtype=True), *grad_outputs("the loss's")),
    mistakes=(
        Mistake("tape-outside-context", "cg_penalty_outside",
                "the loss value is right but the gradients are those of the Wasserstein term alone: the tape saw "
                "the penalty as a constant (computed outside the loss tape's `with` block, or cut by a `.numpy()` "
                "or `tf.stop_gradient` inside it)",
                "compute the penalty inside the `with tf.GradientTape() as tape:` block that computes the loss, "
                "in TensorFlow ops", through="gradient_penalty"),
        Mistake("wrong-value", "cg_sign_flipped",
                "the Wasserstein term has the wrong sign: the critic loss is mean(critic(fake)) - "
                "mean(critic(real)), not mean(critic(real)) - mean(critic(fake))",
                "compute `tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * penalty`",
                look=Look((r"mean\(\s*\w+\(\s*real[^)]*\)\s*\)\s*-",),
                          "the real term comes first: the sign of the Wasserstein term is flipped")),
        # critic_gradients calls the student's own gradient_penalty: its mistakes show up here too (and when the
        # student's gradient_penalty fails, judge.causes names it as the cause).
        Mistake("wrong-norm-axis", "cg_whole_batch",
                "the penalty inside the loss takes one norm over the whole batch", NORM_FIX,
                through="gradient_penalty"),
        Mistake("wrong-norm-axis", "cg_axis_one",
                "the penalty inside the loss takes the norm over axis 1 only, which is wrong for (batch, h, w, c) "
                "images", NORM_FIX, through="gradient_penalty"),
        Mistake("swapped-interpolation", "cg_swapped",
                "the penalty inside the loss interpolates with alpha on the fake side, `real + alpha * (fake - "
                "real)`", SWAP_FIX, through="gradient_penalty"),
    ),
    hints={
        "tape-outside-context": "call `gradient_penalty(critic, real, fake, alpha)` inside the "
                                "`with tf.GradientTape() as tape:` block that computes the loss, then "
                                "`tape.gradient(loss, critic.trainable_variables)` after it",
    },
)
