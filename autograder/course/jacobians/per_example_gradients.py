"""``per_example_gradients(model, loss_fn, x, y)``: one gradient per example and per trainable variable, as
differentially private training (DP-SGD) needs them, from one Jacobian instead of a loop over the examples.

The probe builds the case's model (Keras Sequential, Keras functional or a tf.Module, ``models``), runs the
student's function and returns one output per variable plus ``batched``: whether the model ran on the whole
batch (once, or vectorized by ``tf.vectorized_map``) rather than once per example. The contract asks for the
former; a per-example loop with the right numbers keeps its cases' points and the exercise is capped at half
(``Output.method``), and its pitfall, ``per-example-loop``, is named.
"""
from __future__ import annotations

import numpy as np

from autograder.course.building import advisory, array, case
from autograder.course.jacobians.models import LOSS_TEXT, build_model, loss_function, variable_count, weight_count
from autograder.course.probing import require_tensor, tensor
from autograder.model.course import ContractError, Exercise, Look, Mistake, Output

MAX_VARIABLES = 6  # the cases' models have at most three Dense layers (kernel and bias each)
SCALE_BATCH, SCALE_INPUT, SCALE_HIDDEN, SCALE_CLASSES = 256, 784, 128, 10  # 101,770 weights

REASON = ("per_example_gradients: one Tensor per model.trainable_variables, in that order, each (batch, "
          "*variable.shape), row i the gradient of example i's loss; the model run once on the whole batch (or "
          "tf.vectorized_map); it must work for batch 256 and 100,000 weights")


def _dense(rng: np.random.Generator, fan_in: int, width: int, activation: str | None, dtype: str, bias: bool = True):
    kernel = array(rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, width)), dtype)
    return kernel, array(rng.normal(0.0, 0.3, size=width), dtype) if bias else None, activation


def _stack(rng, fan_in: int, widths, dtype: str) -> tuple:
    layers = []
    for width, activation in widths:
        layers.append(_dense(rng, fan_in, width, activation, dtype))
        fan_in = width
    return tuple(layers)


def _one_hot(rng, batch: int, classes: int, dtype: str) -> np.ndarray:
    return array(np.eye(classes)[rng.integers(0, classes, size=batch)], dtype)


def sequential(rng, input_shape, widths, batch: int, loss: str, dtype: str = "float32"):
    fan_in = int(np.prod(input_shape))
    spec = dict(kind="sequential", dtype=dtype, input_shape=tuple(input_shape), layers=_stack(rng, fan_in, widths, dtype))
    return _data(rng, spec, input_shape, widths[-1][0], batch, loss, dtype)


def functional(rng, input_shape, widths, batch: int, loss: str, dtype: str = "float32"):
    fan_in = int(np.prod(input_shape))
    classes = widths[-1][0]
    spec = dict(kind="functional", dtype=dtype, input_shape=tuple(input_shape),
                layers=_stack(rng, fan_in, widths, dtype), skip=_dense(rng, fan_in, classes, None, dtype, bias=False))
    return _data(rng, spec, input_shape, classes, batch, loss, dtype)


def module(rng, inputs: int, classes: int, batch: int, loss: str, dtype: str = "float32", spare: bool = False):
    spec = dict(kind="module", dtype=dtype, bias=array(rng.normal(0, 0.3, size=classes), dtype),
                kernel=array(rng.normal(0, 1 / np.sqrt(inputs), size=(inputs, classes)), dtype),
                scale=array(rng.uniform(0.5, 2.0, size=classes), dtype), temperature=array(0.8, dtype),
                spare=array(rng.normal(size=classes), dtype) if spare else None)
    return _data(rng, spec, (inputs,), classes, batch, loss, dtype)


def _data(rng, spec, input_shape, classes: int, batch: int, loss: str, dtype: str) -> dict:
    x = array(rng.normal(size=(batch, *input_shape)), dtype)
    y = _one_hot(rng, batch, classes, dtype) if loss == "softmax_xent" else array(rng.normal(size=(batch, classes)), dtype)
    return dict(model=spec, loss=loss, x=x, y=y)


def describe(args, what: str) -> str:
    """'float32 Keras Sequential model ... (4 variables, 26 weights); x of shape (5, 3), y of shape (5, 2), ...'"""
    spec = args["model"]
    return (f"{spec['dtype']} {what} ({variable_count(spec)} trainable variables, {weight_count(spec):,} weights); "
            f"x of shape {args['x'].shape}, y of shape {args['y'].shape}; {LOSS_TEXT[args['loss']]}")


def make_cases(rng: np.random.Generator):
    fixed = np.random.default_rng(20260)  # public cases: the same data whatever the course's seed
    one_layer = sequential(fixed, (3,), [(4, "tanh"), (2, None)], 5, "squared")
    small_module = module(fixed, 3, 2, 4, "softmax_xent")
    images = functional(fixed, (2, 3), [(3, "softplus"), (2, None)], 3, "squared")
    scale = sequential(fixed, (SCALE_INPUT,), [(SCALE_HIDDEN, "tanh"), (SCALE_CLASSES, None)], SCALE_BATCH,
                       "softmax_xent")
    # one output (k = 1): the last layer's kernel (h, 1) and bias (1,) have axes of size 1, which a squeeze drops
    one_output = sequential(fixed, (3,), [(3, "tanh"), (1, None)], 4, "squared")
    h, w = (int(n) for n in rng.integers(2, 4, size=2))
    deep = sequential(rng, (h, w), [(int(rng.integers(3, 6)), "softplus"), (int(rng.integers(3, 6)), "tanh"),
                                    (int(rng.integers(2, 4)), None)], int(rng.integers(5, 9)), "softmax_xent")
    hidden_module = module(rng, int(rng.integers(3, 6)), int(rng.integers(2, 4)), int(rng.integers(5, 9)), "squared")
    wide = module(rng, 4, 3, 5, "squared", dtype="float64")
    spare = module(rng, 3, 2, 4, "squared", spare=True)
    module_one = module(rng, int(rng.integers(3, 6)), 1, int(rng.integers(4, 7)), "squared")
    return [
        case("f32-sequential", describe(one_layer, "Keras Sequential model Input((3,)) -> Dense(4, tanh) -> Dense(2)"),
             public=True, reason=REASON, args=one_layer),
        case("f32-module", describe(small_module, "tf.Module tanh(x @ kernel + bias) * scale / temperature "
                                                  "(trainable_variables: bias, kernel, scale; temperature is not "
                                                  "trainable)"),
             public=True, reason=REASON, args=small_module),
        case("f32-functional", describe(images, "Keras functional model: (2, 3) inputs -> Flatten -> Dense(3, softplus) "
                                               "-> Dense(2), plus a Dense(2) without bias from the flattened input"),
             public=True, reason=REASON, args=images),
        case("f32-scale", describe(scale, f"Keras Sequential model Input(({SCALE_INPUT},)) -> Dense({SCALE_HIDDEN}, "
                                          f"tanh) -> Dense({SCALE_CLASSES})")
             + " (each example's gradients compared through their norm and a fixed random projection)",
             tags=("scale",), public=True, weight=2.0, time_limit=60.0, reason=REASON,
             args=dict(scale, summary=True)),
        case("f32-one-output", describe(one_output, "Keras Sequential model Input((3,)) -> Dense(3, tanh) -> Dense(1) "
                                                    "(one output, k = 1: the last kernel is (3, 1), its bias (1,))"),
             public=True, reason=REASON, args=one_output),
        case("f32-sequential-images", describe(deep, f"Keras Sequential model on ({h}, {w}) inputs: Flatten -> "
                                                     "Dense(softplus) -> Dense(tanh) -> Dense"),
             reason=REASON, args=deep),
        case("f32-module-hidden", describe(hidden_module, "tf.Module tanh(x @ kernel + bias) * scale / temperature"),
             reason=REASON, args=hidden_module),
        case("f32-module-one-output", describe(module_one, "tf.Module tanh(x @ kernel + bias) * scale / temperature "
                                                           "with one output (its kernel (n, 1), bias, scale (1,))"),
             reason=REASON, args=module_one),
        advisory("f64-module", describe(wide, "tf.Module tanh(x @ kernel + bias) * scale / temperature")
                 + " (the contract's inputs are float32)", "float64", args=wide,
                 advice="your per_example_gradients does not keep a float64 model and inputs in float64 (a "
                        "hard-coded dtype?)"),
        advisory("f32-unused-variable", describe(spare, "tf.Module with a fourth trainable variable, spare, that "
                                                        "its output does not use")
                 + " (the contract's models use every variable)", tags=("degenerate",), args=spare,
                 advice="your per_example_gradients does not give zeros (or None) for a trainable variable the "
                        "model does not use: `tape.jacobian` returns None there; keep the None, or replace it with "
                        "zeros of its shape, `tf.zeros((batch, *v.shape), v.dtype)` (not "
                        "`unconnected_gradients=ZERO`, which raises AttributeError for a Keras 3 model's variables)"),
    ]


def probe(per_example_gradients, args):
    model, calls = build_model(args)
    x, y = tensor(args["x"]), tensor(args["y"])
    returned = per_example_gradients(model, loss_function(args["loss"]), x, y)
    variables = model.trainable_variables
    gradients = _one_per_variable(returned, len(variables))
    batch = int(x.shape[0])
    outputs = {f"grad_{k}": _gradient(gradient, variable, k, batch, x, args.get("summary", False))
               for k, (gradient, variable) in enumerate(zip(gradients, variables))}
    outputs["batched"] = not calls.once_per_example(batch)
    return outputs


def _one_per_variable(returned, count: int) -> list:
    if not isinstance(returned, (list, tuple)):
        raise ContractError(f"per_example_gradients returned a {type(returned).__name__}; return a list with one "
                            f"tensor per variable of model.trainable_variables ({count} here), in that order: "
                            "`tape.jacobian(losses, model.trainable_variables)` returns exactly that")
    if len(returned) != count:
        raise ContractError(f"per_example_gradients returned {len(returned)} tensors but model.trainable_variables "
                            f"has {count}: one per trainable variable, in that order (model.variables and "
                            "model.weights also hold the variables that are not trainable)")
    return list(returned)


def _gradient(value, variable, k: int, batch: int, x, summary: bool):
    """The student's entry for variable k: None passes through (a variable the loss does not reach); small
    cases keep the tensor as it is (a wrong shape is compared, and matched against the mistake models, by the
    parent); the scale case checks the shape and sends each example's norm and a fixed random projection."""
    if value is None:
        return None
    what = f"per_example_gradients(...)[{k}]"
    value = require_tensor(value, what, like=x)
    if not summary:
        return value
    expected = (batch, *variable.shape)
    if tuple(value.shape) != expected:
        raise ContractError(f"{what} has shape {tuple(value.shape)}, expected {expected}: (batch, "
                            f"*model.trainable_variables[{k}].shape)")
    return _summary(value, batch)


def _summary(value, batch: int):
    """(batch, 2): each example's gradient norm and its projection on a fixed random unit vector, in float64."""
    import tensorflow as tf

    rows = tf.reshape(tf.cast(value, tf.float64), (batch, -1))
    direction = np.random.default_rng(int(rows.shape[1])).normal(size=int(rows.shape[1]))
    direction = tf.constant(direction / np.linalg.norm(direction))
    return tf.stack([tf.norm(rows, axis=1), tf.linalg.matvec(rows, direction)], axis=1)


def _variable_label(k: int) -> str:
    return f"the per-example gradients of model.trainable_variables[{k}]"


ORDER_FIX = ("return the gradients in the order of `model.trainable_variables` (a tf.Module lists its variables "
             "sorted by attribute name): `tape.jacobian(losses, model.trainable_variables)` keeps it")
SUMMED_FIX = ("take the Jacobian of the per-example losses: `losses = loss_fn(y, model(x))` inside the tape, then "
              "`tape.jacobian(losses, model.trainable_variables)`, which returns (batch, *variable.shape) per variable")
GRADIENTS = tuple(f"grad_{k}" for k in range(MAX_VARIABLES))

EXERCISE = Exercise(
    id="per_example_gradients",
    params=("model", "loss_fn", "x", "y"),
    points=2.0,
    make_cases=make_cases,
    probe=probe,
    outputs=(*(Output(name, _variable_label(k), none_means_zero=True, gradient=True)
               for k, name in enumerate(GRADIENTS)),
             Output("batched", "whether the model ran on the whole batch at once (or under tf.vectorized_map) "
                               "rather than once per example", exact=True, method=True)),
    mistakes=(
        Mistake("per-example-loop", "pe_loop",
                "your function calls the model once per example (a Python loop, a comprehension or tf.map_fn): "
                "the numbers are right, but the model runs batch-size times where the exercise asks for one run "
                "on the whole batch and one Jacobian; right numbers this way keep half of the points",
                "run the model once on the whole batch under one tape, `losses = loss_fn(y, model(x))`, then "
                "`tape.jacobian(losses, model.trainable_variables)` (or map a per-example gradient with "
                "`tf.vectorized_map`)", outputs=("batched",)),
        Mistake("summed-gradient", "pe_summed",
                "your result is `tape.gradient(losses, variables)`: for the vector of per-example losses it is the "
                "gradient of their sum, one (variable.shape) tensor for the whole batch, not one row per example",
                SUMMED_FIX, outputs=GRADIENTS),
        Mistake("summed-gradient", "pe_summed_broadcast",
                "every row of your result is the gradient of the batch's summed loss (`tape.gradient` of the "
                "losses, repeated for each example): the shape is right, but the rows are not per-example gradients",
                SUMMED_FIX, outputs=GRADIENTS),
        Mistake("summed-gradient", "pe_mean",
                "your result is the gradient of the batch's mean loss (`tape.gradient(tf.reduce_mean(losses), ...)`): "
                "the average of the per-example gradients, what a training step uses, not one row per example",
                SUMMED_FIX, outputs=GRADIENTS,
                look=Look((r"reduce_mean\(", r"\.gradient\("), "this averages the examples' losses into one")),
        Mistake("summed-gradient", "pe_mean_broadcast",
                "every row of your result is the gradient of the batch's mean loss, repeated for each example: the "
                "shape is right, but the rows are not per-example gradients", SUMMED_FIX, outputs=GRADIENTS,
                look=Look((r"reduce_mean\(", r"\.gradient\("), "this averages the examples' losses into one")),
        Mistake("transposed", "pe_batch_last",
                "the batch axis of your result comes last, (*variable.shape, batch), instead of first",
                "put the examples on the first axis, (batch, *variable.shape): `tape.jacobian(losses, variables)` "
                "already does; stack per-example results with `axis=0`", outputs=GRADIENTS),
        Mistake("transposed", "pe_axes_reversed",
                "each of your tensors has its axes reversed (`tf.transpose` without `perm`): the batch axis comes "
                "last and the variable's own axes are reversed too",
                "put the examples on the first axis, (batch, *variable.shape): `tape.jacobian(losses, variables)` "
                "already does; drop the `tf.transpose`", outputs=GRADIENTS),
        Mistake("wrong-value", "pe_outputs_jacobian",
                "your result is the Jacobian of the model's outputs, (batch, k, *variable.shape), not of the "
                "per-example losses",
                "apply the loss first, `losses = loss_fn(y, model(x))` inside the tape, then "
                "`tape.jacobian(losses, model.trainable_variables)`", outputs=GRADIENTS,
                look=Look((r"\.jacobian\(",), "this differentiates the model's outputs, not the losses")),
        Mistake("wrong-value", "pe_flattened",
                "each of your tensors is flattened to (batch, variable.size): right for a bias, not for a kernel",
                "keep each variable's own shape after the batch axis, (batch, *variable.shape); flatten only where "
                "you compute norms", outputs=GRADIENTS,
                look=Look((r"reshape\(|flatten|\[\s*-1\s*\]",), "this flattens each gradient")),
        Mistake("wrong-value", "pe_squeezed",
                "your tensors are squeezed (`tf.squeeze`): for a model with one output (k = 1) the last layer's "
                "kernel (h, 1) and bias (1,) have axes of size 1, and their per-example gradients lose them, (batch, "
                "h) and (batch,) instead of (batch, h, 1) and (batch, 1)",
                "keep each variable's own shape after the batch axis, (batch, *variable.shape): drop the "
                "`tf.squeeze` (`tape.jacobian(losses, model.trainable_variables)` already has that shape)",
                outputs=GRADIENTS, look=Look((r"squeeze\(",), "this drops the axes of size 1")),
        Mistake("wrong-value", "pe_reversed",
                "your list of gradients is not in the order of model.trainable_variables (here: reversed)",
                ORDER_FIX, outputs=GRADIENTS,
                look=Look((r"sorted\(|reversed\(|\[::-1\]|\.reverse\(",),
                          "this changes the order of the variables",
                          look_for="the list of variables you differentiate with respect to: it must be"
                          " `model.trainable_variables` as given")),
    ),
    hints={
        "gradient-cut": "keep the model's output and the losses as tensors inside the tape: no `.numpy()`, "
                        "`model.predict` or `float()` between `model(x)` and `tape.jacobian(losses, ...)`",
        "tape-outside-context": "call the model and loss_fn inside the `with tf.GradientTape() as tape:` block, then "
                                "`tape.jacobian(losses, model.trainable_variables)`",
    },
)
