"""What ``gradient_penalty`` and ``critic_gradients`` share: critic cases, the critic built in the child, outputs.

A critic travels as plain data (its layers' weights); the probe builds the Keras model in the child.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case
from autograder.course.probing import tensor
from autograder.model.course import Output

MAX_CRITIC_VARIABLES = 6  # critics have at most three Dense layers (kernel and bias each)

SWAP_FIX = "interpolate as the exercise states: `interpolates = alpha * real + (1 - alpha) * fake`"
NORM_FIX = ("take one norm per example over every axis but the first: "
            "`tf.sqrt(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))`, or reshape g to (batch, -1) "
            "and take the norm over axis 1")


def critic_args(rng: np.random.Generator, input_shape, hidden, dtype, batch):
    """Plain data for a critic Flatten -> Dense(h, act) ... -> Dense(1) and its inputs."""
    fan_in = int(np.prod(input_shape))
    layers = []
    for width, activation in list(hidden) + [(1, None)]:
        kernel = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, width))
        bias = rng.normal(0.0, 0.3, size=width)
        layers.append((array(kernel, dtype), array(bias, dtype), activation))
        fan_in = width
    shape = (batch,) + tuple(input_shape)
    alpha_shape = (batch,) + (1,) * len(input_shape)
    return dict(input_shape=tuple(input_shape), dtype=dtype, layers=tuple(layers),
                real=array(rng.normal(size=shape), dtype), fake=array(rng.normal(0.5, 1.5, size=shape), dtype),
                alpha=array(rng.uniform(size=alpha_shape), dtype))


def _architecture(args) -> str:
    parts = ["Flatten"] if len(args["input_shape"]) > 1 else []
    for kernel, _, activation in args["layers"]:
        parts.append(f"Dense({kernel.shape[1]}{', ' + activation if activation else ''})")
    return " -> ".join(parts)


def _critic_description(args) -> str:
    batch = args["real"].shape[0]
    data = "images" if len(args["input_shape"]) > 1 else "vectors"
    return (f"{args['dtype']} {data} real, fake of shape {(batch,) + args['input_shape']}, alpha of shape "
            f"{args['alpha'].shape}, critic {_architecture(args)}")


def _linear_public_args():
    dtype = "float32"
    return dict(input_shape=(2,), dtype=dtype,
                layers=((array([[3.0], [4.0]], dtype), array([0.5], dtype), None),),
                real=array([[1.0, 2.0], [3.0, 4.0]], dtype), fake=array([[0.0, 0.0], [1.0, -1.0]], dtype),
                alpha=array([[0.25], [0.75]], dtype))


def _asymmetric_public_args():
    """A non-linear critic and alphas far from 0.5: only here does alpha's side of the interpolation show."""
    dtype = "float32"
    return dict(input_shape=(2,), dtype=dtype,
                layers=((array([[0.8, -0.5, 0.3], [0.2, 0.9, -0.7]], dtype), array([0.1, -0.2, 0.0], dtype), "tanh"),
                        (array([[1.5], [-1.0], [0.5]], dtype), array([0.2], dtype), None)),
                real=array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0]], dtype),
                fake=array([[-1.0, 0.0], [2.0, 1.0], [1.5, 1.5]], dtype),
                alpha=array([[0.1], [0.8], [0.3]], dtype))


def _image_public_args():
    """Two channels: a norm over the spatial axes only (one per channel) differs from the one over all of them."""
    dtype = "float32"
    return dict(input_shape=(2, 2, 2), dtype=dtype,
                layers=((array(np.ones((8, 1)), dtype), array([0.0], dtype), None),),
                real=array(np.ones((3, 2, 2, 2)), dtype), fake=array(np.zeros((3, 2, 2, 2)), dtype),
                alpha=array(np.full((3, 1, 1, 1), 0.5), dtype))


def _dead_relu_args():
    """Dense(2, relu) -> Dense(1): both hidden units are off at the first interpolate (all its pre-activations are
    negative) and on at the second, so the first example's input gradient is exactly zero."""
    dtype = "float32"
    return dict(input_shape=(2,), dtype=dtype,
                layers=((array([[1.0, 0.5], [0.5, 1.0]], dtype), array([-4.0, -4.0], dtype), "relu"),
                        (array([[1.0], [-2.0]], dtype), array([0.3], dtype), None)),
                real=array([[0.5, -1.0], [6.0, 5.0]], dtype), fake=array([[-1.0, 0.5], [4.0, 7.0]], dtype),
                alpha=array([[0.3], [0.6]], dtype))


PENALTY = ("gradient_penalty: mean((norm(g_i) - 1)^2) of the gradient g of sum(critic) at alpha * real + "
           "(1 - alpha) * fake, one L2 norm per example over all axes but the first, differentiable in the critic's "
           "variables")
LOSS = ("critic_gradients: mean(critic(fake)) - mean(critic(real)) + gp_weight * penalty and its gradients, in the "
        "order of critic.trainable_variables (None and zeros alike for the last bias's penalty gradient)")
DTYPE_ADVICE = "does not keep float64 inputs and a float64 critic in float64 (a hard-coded dtype?)"


def critic_cases(rng: np.random.Generator, with_gp_weight: bool = False):
    """The critic cases shared by gradient_penalty and critic_gradients (each draws from its own stream).

    2-D (batch, d) and 4-D (batch, h, w, c) inputs: only images tell a norm over axis 1 from one over all axes
    but the first; a non-linear critic with alphas far from 0.5 tells alpha's side of the interpolation.
    critic_gradients cases also carry a gp_weight (10 in the public ones, as in the notebook; a hidden case
    never shows its own).
    """
    exercise = "your critic_gradients" if with_gp_weight else "your gradient_penalty"

    def one(id_, args, public=False, description=None, advice=None):
        suffix = ""
        if with_gp_weight:
            args = dict(args, gp_weight=10.0 if public else float(rng.choice([1.0, 5.0, 10.0])))
            suffix = ", gp_weight = 10" if public else ""
        description = (description or _critic_description(args)) + suffix
        if advice:
            return advisory(id_, description, args["dtype"], advice=f"{exercise} {advice}", args=args)
        return case(id_, description, args["dtype"], public=public, reason=LOSS if with_gp_weight else PENALTY,
                    args=args)

    h, w, c = (int(n) for n in rng.integers(2, 5, size=3))
    # The statement's advice, tried for nothing: a dead ReLU example has an input gradient of exactly zero, where
    # `tf.norm` has a NaN gradient (drawn without the rng: the other cases stay as they were).
    dead_example = [] if with_gp_weight else [
        one("f32-dead-relu", _dead_relu_args(),
            description="float32 vectors, a ReLU critic whose hidden units are all off for one interpolate (an input "
                        "gradient of exactly zero there)",
            advice="gives a NaN (or inf) gradient with respect to the critic's weights where an example's input "
                   "gradient is exactly zero (the gradient of `tf.norm`, or of `tf.sqrt` of a sum of squares, is 0/0 "
                   "at 0): one NaN ruins a critic's weights for good; use the safe norm of the notebook (a double "
                   "`tf.where`), or a tiny epsilon under the square root")]
    return [
        one("f32-linear-critic", _linear_public_args(), public=True,
            description="float32 vectors real, fake of shape (2, 2), alpha of shape (2, 1), linear critic "
                        "D(x) = x . [3, 4] + 0.5"),
        one("f32-image-ones", _image_public_args(), public=True,
            description="float32 images real = 1, fake = 0 of shape (3, 2, 2, 2), alpha = 0.5, critic Flatten -> "
                        "Dense(1) with an all-ones kernel"),
        one("f32-asymmetric", _asymmetric_public_args(), public=True,
            description="float32 vectors real, fake of shape (3, 2), alpha = [0.1, 0.8, 0.3], critic "
                        "Dense(3, tanh) -> Dense(1)"),
        one("f32-vectors", critic_args(rng, (4,), [(6, "tanh")], "float32", 5)),
        one("f32-images", critic_args(rng, (4, 4, 2), [(5, "softplus")], "float32", 3)),
        one("f32-images-deep", critic_args(rng, (h, w, c), [(6, "tanh"), (4, "softplus")], "float32", 4)),
        one("f32-images-wide", critic_args(rng, (3, 5, 1), [(4, "tanh")], "float32", 2)),
        one("f64-vectors", critic_args(rng, (3,), [(5, "softplus")], "float64", 3),
            description="float64 vectors and a float64 critic (the contract's inputs are float32)",
            advice=DTYPE_ADVICE),
        one("f64-images", critic_args(rng, (2, 3, 2), [(4, "tanh")], "float64", 3),
            description="float64 images and a float64 critic (the contract's inputs are float32)",
            advice=DTYPE_ADVICE),
        *dead_example,
    ]


def build_critic(args):
    import tensorflow as tf

    dtype = args["dtype"]
    inputs = tf.keras.Input(shape=tuple(args["input_shape"]), dtype=dtype)
    hidden = tf.keras.layers.Flatten(dtype=dtype)(inputs) if len(args["input_shape"]) > 1 else inputs
    dense = []
    for kernel, bias, activation in args["layers"]:
        layer = tf.keras.layers.Dense(kernel.shape[1], activation=activation, dtype=dtype)
        hidden = layer(hidden)
        dense.append((layer, kernel, bias))
    model = tf.keras.Model(inputs, hidden)
    for layer, kernel, bias in dense:
        layer.set_weights([kernel, bias])
    return model


def critic_inputs(args):
    return tensor(args["real"]), tensor(args["fake"]), tensor(args["alpha"])


def _variable_label(k: int) -> str:
    return f"critic.trainable_variables[{k}] (layer {k // 2 + 1} {'kernel' if k % 2 == 0 else 'bias'})"


def grad_outputs(of: str) -> tuple[Output, ...]:
    """grad_0, grad_1, ...: one output per critic variable (cases with fewer variables leave the rest unused)."""
    return tuple(Output(f"grad_{k}", f"{of} gradient with respect to {_variable_label(k)}", gradient=True,
                        none_means_zero=True) for k in range(MAX_CRITIC_VARIABLES))
