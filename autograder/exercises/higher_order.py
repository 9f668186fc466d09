"""Assignment ``higher_order``: cases, probes and mistake models of its five exercises.

The test functions ``f`` and the Keras critics are built in the child by the probes, from plain data in the case
args (a function's name and its parameters; a critic's layer weights), so the parent never imports TensorFlow.
"""
from __future__ import annotations

import numpy as np

from autograder.exercises.common import array, case, kind, require_pair, require_tensor, tensor
from autograder.spec import Assignment, ContractError, Exercise, Mistake, Output

MAX_CRITIC_VARIABLES = 6  # critics have at most three Dense layers (kernel and bias each)


def _scalar(value, what: str, like=None, allow_none: bool = False):
    """A scalar tf.Tensor (shape ()), None where allowed, or a ContractError that says what came back."""
    if value is None and allow_none:
        return None
    result = require_tensor(value, what, like=like)
    if result.shape.rank != 0:
        raise ContractError(f"{what} has shape {tuple(result.shape)}, expected a scalar (shape ())")
    return result


def _vector(value, what: str, like):
    """A tf.Tensor with the shape and dtype of ``like``, or a ContractError."""
    result = require_tensor(value, what, like=like)
    if tuple(result.shape) != tuple(like.shape):
        raise ContractError(f"{what} has shape {tuple(result.shape)}, expected {tuple(like.shape)} (the shape of x)")
    return result


# =========================================================================== derivatives

# name -> the formula shown in feedback; `_scalar_function` builds the function itself in the child
_SCALAR_FUNCTIONS = {
    "cube": "f(v) = v**3",
    "sin": "f(v) = sin(v)",
    "exp_sin": "f(v) = exp(2 v) * sin(v)",
    "log1p_square": "f(v) = log(1 + v**2)",
    "linear": "f(v) = 4 v + 1 (linear: second derivative identically zero)",
    "sin_exp": "f(v) = sin(exp(v))",
    "tanh_square": "f(v) = tanh(v) * v**2",
}


def _scalar_function(name: str):
    import tensorflow as tf

    return {
        "cube": lambda v: v ** 3,
        "sin": lambda v: tf.sin(v),
        "exp_sin": lambda v: tf.exp(2.0 * v) * tf.sin(v),
        "log1p_square": lambda v: tf.math.log1p(v * v),
        "linear": lambda v: 4.0 * v + 1.0,
        "sin_exp": lambda v: tf.sin(tf.exp(v)),
        "tanh_square": lambda v: tf.tanh(v) * v ** 2,
    }[name]


def _derivatives_cases(rng: np.random.Generator):
    def one(id_, f, x, dtype, variable, public=False):
        return case(id_, f"{dtype} {kind(variable)} x = {float(x):.4g}, {_SCALAR_FUNCTIONS[f]}", dtype,
                    tags=("variable",) if variable else ("tensor",), public=public,
                    args=dict(f=f, x=array(x, dtype), variable=variable))

    r32 = float(np.round(rng.uniform(-1.2, 1.2), 4))
    r64 = float(rng.uniform(-2.0, 2.0))
    lin = float(rng.uniform(-5.0, 5.0))
    return [
        one("f32-cube-tensor", "cube", 3.0, "float32", False, public=True),
        one("f32-cube-variable", "cube", 3.0, "float32", True, public=True),
        one("f32-sin-zero", "sin", 0.0, "float32", False),
        one("f64-exp-sin-tensor", "exp_sin", 0.7, "float64", False),
        one("f64-exp-sin-variable", "exp_sin", 0.7, "float64", True),
        one("f64-cube-negative", "cube", -2.0, "float64", False),
        one("f32-log1p-tensor", "log1p_square", 0.5, "float32", False),
        one("f32-linear-tensor", "linear", 3.0, "float32", False),
        one("f64-linear-variable", "linear", lin, "float64", True),
        one("f32-random-tensor", "sin_exp", r32, "float32", False),
        one("f32-random-variable", "sin_exp", r32, "float32", True),
        one("f64-random-tensor", "tanh_square", r64, "float64", False),
        one("f64-random-variable", "tanh_square", r64, "float64", True),
    ]


def _probe_derivatives(derivatives, args):
    x = tensor(args["x"], args["variable"])
    result = derivatives(_scalar_function(args["f"]), x)
    dy_dx, d2y_dx2 = require_pair(result, "derivatives(f, x)")
    # None travels to the parent as None: a None first derivative is the unwatched-Tensor signal, a None second
    # derivative the tape-outside-context / gradient-cut signal (and correct where the reference is zero).
    return {"dy_dx": _scalar(dy_dx, "dy_dx (the first item returned)", like=x, allow_none=True),
            "d2y_dx2": _scalar(d2y_dx2, "d2y_dx2 (the second item returned)", like=x, allow_none=True)}


DERIVATIVES = Exercise(
    id="derivatives",
    params=("f", "x"),
    points=2.0,
    make_cases=_derivatives_cases,
    probe=_probe_derivatives,
    outputs=(
        Output("dy_dx", "dy/dx", check_dtype=True, gradient=True),
        Output("d2y_dx2", "d2y/dx2", check_dtype=True, gradient=True, none_means_zero=True),
    ),
    # The typical mistakes (inner gradient after the outer block, an unwatched Tensor, `.numpy()` on dy_dx) all
    # give the same numbers, a correct dy/dx and a None d2y/dx2, so a mistake model cannot tell them apart: they
    # are told apart by the Tensor / Variable case pairs and by the static reading of the source.
    hints={
        "tape-outside-context": "call `dy_dx = inner.gradient(y, x)` inside the `with tf.GradientTape() as outer:` "
                                "block (indented under it), then `outer.gradient(dy_dx, x)` after it",
        "unwatched-tensor": "call `outer.watch(x)` and `inner.watch(x)`: each tape that differentiates with respect "
                            "to x must watch it (watching a Variable is harmless)",
        "non-persistent-tape": "use two nested tapes, each asked for one gradient: `inner` for dy/dx (inside the "
                               "outer block) and `outer` for d2y/dx2; or one tape created with `persistent=True`",
        "gradient-cut": "keep dy_dx a tensor produced by `inner.gradient`: no `.numpy()`, `float()` or "
                        "`tf.constant(...)` around it, or the outer tape loses its dependence on x",
    },
)


# =========================================================================== hessian_vector_product

_VECTOR_FUNCTIONS = {
    "cube_sum": "f(x) = sum(x**3)",
    "quadratic": "f(x) = 0.5 x^T A x",
    "sin_square": "f(x) = sum(sin(x) * x**2)",
    "logsumexp": "f(x) = logsumexp(x)",
    "coupled": "f(x) = logsumexp(x) * sum(sin(x)) + sum(x[1:] * x[:-1]**2)",
    "linear": "f(x) = sum(3 x) (linear: H v = 0)",
}


def _vector_function(args):
    import tensorflow as tf

    name = args["f"]
    if name == "quadratic":
        matrix = tf.constant(args["A"])
        return lambda x: 0.5 * tf.reduce_sum(x * tf.linalg.matvec(matrix, x))
    return {
        "cube_sum": lambda x: tf.reduce_sum(x ** 3),
        "sin_square": lambda x: tf.reduce_sum(tf.sin(x) * x ** 2),
        "logsumexp": lambda x: tf.reduce_logsumexp(x),
        "coupled": lambda x: (tf.reduce_logsumexp(x) * tf.reduce_sum(tf.sin(x))
                              + tf.reduce_sum(x[1:] * x[:-1] ** 2)),
        "linear": lambda x: tf.reduce_sum(3.0 * x),
    }[name]


HVP_SCALE_N = 100_000


def _hvp_cases(rng: np.random.Generator):
    def one(id_, f, x, v, dtype, A=None, public=False, tags=(), time_limit=20.0, weight=1.0, what=None):
        n = len(x)
        description = what or f"{dtype} Tensors x, v of shape ({n},), {_VECTOR_FUNCTIONS[f]}"
        return case(id_, description, dtype, tags=tags, public=public, time_limit=time_limit, weight=weight,
                    args=dict(f=f, x=array(x, dtype), v=array(v, dtype), A=None if A is None else array(A, dtype)))

    def symmetric(n, dtype):
        m = rng.normal(size=(n, n))
        return array((m + m.T) / 2, dtype)

    n1, n2 = (int(n) for n in rng.integers(3, 8, size=2))
    return [
        one("f32-cube", "cube_sum", [1, 2, 3], [1, 0, -1], "float32", public=True,
            what="float32 Tensors x = [1, 2, 3], v = [1, 0, -1], f(x) = sum(x**3)"),
        one("f32-quadratic-2", "quadratic", [5, -7], [1, 2], "float32", A=[[2, 1], [1, 3]], public=True,
            what="float32 Tensors x = [5, -7], v = [1, 2], f(x) = 0.5 x^T A x with A = [[2, 1], [1, 3]]"),
        one("f64-sin-square", "sin_square", rng.normal(size=n1), rng.normal(size=n1), "float64"),
        one("f32-sin-square", "sin_square", rng.normal(size=n2), rng.normal(size=n2), "float32"),
        one("f64-quadratic", "quadratic", rng.normal(size=4), rng.normal(size=4), "float64", A=symmetric(4, "float64"),
            what="float64 Tensors x, v of shape (4,), f(x) = 0.5 x^T A x with a symmetric (4, 4) A"),
        one("f32-logsumexp", "logsumexp", rng.normal(size=6), rng.normal(size=6), "float32"),
        one("f64-coupled", "coupled", rng.normal(size=6), rng.normal(size=6), "float64"),
        one("f32-coupled", "coupled", rng.normal(size=5), rng.normal(size=5), "float32"),
        one("f64-n1", "coupled", rng.normal(size=1), rng.normal(size=1), "float64"),
        one("f32-linear", "linear", rng.normal(size=4), rng.normal(size=4), "float32"),
        # Last: a separable f, so the reference (and any O(n) solution) is fast; an (n, n) Hessian needs 80 GB.
        # "Must work for n = 100,000" is the point of the exercise: this case weighs as much as three small ones.
        one("f64-scale", "sin_square", rng.normal(size=HVP_SCALE_N), rng.normal(size=HVP_SCALE_N), "float64",
            tags=("scale",), time_limit=30.0, weight=3.0,
            what=f"float64 Tensors x, v of shape ({HVP_SCALE_N},), f(x) = sum(sin(x) * x**2) "
                 "(an explicit Hessian would need 80 GB)"),
    ]


def _probe_hvp(hessian_vector_product, args):
    x, v = tensor(args["x"]), tensor(args["v"])
    try:
        hv = hessian_vector_product(_vector_function(args), x, v)
    except Exception as error:  # noqa: BLE001
        _raise_if_too_large(error, len(args["x"]))
        raise
    return {"hv": None if hv is None else _vector(hv, "H v", like=x)}


def _raise_if_too_large(error: Exception, n: int) -> None:
    """At scale, an (n, n) tensor fails in several ways; report them all as the memory error they are.

    TensorFlow does not always raise ResourceExhaustedError when a Hessian of 10^10 entries is built: pfor's
    `tape.jacobian` fails with an InvalidArgumentError ("Cannot parse tensor from proto", the 2 GB protobuf
    limit) whose message names the (n, n) shape. Raised as MemoryError, with the student's frames kept, it
    leads to the exercise's materialized pitfall like any other out-of-memory failure.
    """
    if n < 10_000 or isinstance(error, (ContractError, NotImplementedError, MemoryError)):
        return
    message = str(error)
    square = (message.count(f"size: {n}") >= 2 or f"[{n},{n}]" in message.replace(" ", "")
              or f"({n},{n})" in message.replace(" ", ""))
    if type(error).__name__ == "ResourceExhaustedError" or "out of memory" in message.lower() \
            or "OOM" in message or "Cannot parse tensor from proto" in message or square:
        detail = message.strip().splitlines()[0][:200] if message.strip() else ""
        raise MemoryError(f"an ({n}, {n}) tensor ({8 * n * n / 1e9:.0f} GB in float64) could not be built "
                          f"({type(error).__name__}: {detail})").with_traceback(error.__traceback__) from None


def _hvp_double_backprop(f, x):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g, outer


def _hvp_row_sums(f, x, v):
    import tensorflow as tf

    g, outer = _hvp_double_backprop(f, x)
    return outer.gradient(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) * v


def _hvp_gradient(f, x, v):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


HESSIAN_VECTOR_PRODUCT = Exercise(
    id="hessian_vector_product",
    params=("f", "x", "v"),
    points=2.0,
    make_cases=_hvp_cases,
    probe=_probe_hvp,
    outputs=(Output("hv", "H v", check_dtype=True, gradient=True, none_means_zero=True),),
    materialized_pitfall="materialized-hessian",
    mistakes=(
        Mistake("wrong-value", _hvp_row_sums,
                "you differentiated the gradient g itself (`outer.gradient(g, x)`, the row sums H 1) and multiplied "
                "by v element by element: that equals H v only when H is diagonal",
                "form the scalar `tf.reduce_sum(g * v)` inside the outer tape's block and return "
                "`outer.gradient(that_scalar, x)`"),
        Mistake("wrong-value", _hvp_gradient,
                "the function returns the gradient of f, not the Hessian-vector product",
                "differentiate once more: the gradient of `tf.reduce_sum(g * v)` with respect to x is H v"),
    ),
    hints={
        "materialized-hessian": "never call `tape.jacobian` (or loop over unit vectors) here: return "
                                "`outer.gradient(tf.reduce_sum(g * v), x)` with g the inner gradient, or use "
                                "`tf.autodiff.ForwardAccumulator(primals=x, tangents=v)` around the inner tape and "
                                "`acc.jvp(g)`; both cost a few gradients and O(n) memory",
        "tape-outside-context": "compute `g = inner.gradient(y, x)` and `tf.reduce_sum(g * v)` inside the outer "
                                "tape's `with` block (or the inner tape inside the ForwardAccumulator's block)",
    },
)


# =========================================================================== critics (for the next two)

def _critic_args(rng: np.random.Generator, input_shape, hidden, dtype, batch):
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


def _image_public_args():
    dtype = "float32"
    return dict(input_shape=(2, 2, 1), dtype=dtype,
                layers=((array(np.ones((4, 1)), dtype), array([0.0], dtype), None),),
                real=array(np.ones((3, 2, 2, 1)), dtype), fake=array(np.zeros((3, 2, 2, 1)), dtype),
                alpha=array(np.full((3, 1, 1, 1), 0.5), dtype))


def _critic_cases(rng: np.random.Generator, with_gp_weight: bool = False):
    """The critic cases shared by gradient_penalty and critic_gradients (each draws from its own stream).

    2-D (batch, d) and 4-D (batch, h, w, c) inputs: only images tell a norm over axis 1 from one over all axes
    but the first. critic_gradients cases also carry a gp_weight (10 in the public ones, as in the notebook).
    """
    def one(id_, args, public=False, description=None):
        suffix = ""
        if with_gp_weight:
            args = dict(args, gp_weight=10.0 if public else float(rng.choice([1.0, 5.0, 10.0])))
            suffix = f", gp_weight = {args['gp_weight']:g}"
        description = (description or _critic_description(args)) + suffix
        return case(id_, description, args["dtype"], public=public, args=args)

    h, w, c = (int(n) for n in rng.integers(2, 5, size=3))
    return [
        one("f32-linear-critic", _linear_public_args(), public=True,
            description="float32 vectors real, fake of shape (2, 2), alpha of shape (2, 1), linear critic "
                        "D(x) = x . [3, 4] + 0.5"),
        one("f32-image-ones", _image_public_args(), public=True,
            description="float32 images real = 1, fake = 0 of shape (3, 2, 2, 1), alpha = 0.5, critic Flatten -> "
                        "Dense(1) with an all-ones kernel"),
        one("f32-vectors", _critic_args(rng, (4,), [(6, "tanh")], "float32", 5)),
        one("f32-images", _critic_args(rng, (4, 4, 2), [(5, "softplus")], "float32", 3)),
        one("f32-images-deep", _critic_args(rng, (h, w, c), [(6, "tanh"), (4, "softplus")], "float32", 4)),
        one("f32-images-wide", _critic_args(rng, (3, 5, 1), [(4, "tanh")], "float32", 2)),
        one("f64-vectors", _critic_args(rng, (3,), [(5, "softplus")], "float64", 3)),
        one("f64-images", _critic_args(rng, (2, 3, 2), [(4, "tanh")], "float64", 3)),
    ]


def _build_critic(args):
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


def _critic_inputs(args):
    return tensor(args["real"]), tensor(args["fake"]), tensor(args["alpha"])


def _variable_label(k: int) -> str:
    return f"critic.trainable_variables[{k}] (layer {k // 2 + 1} {'kernel' if k % 2 == 0 else 'bias'})"


# =========================================================================== gradient_penalty

def _gp_cases(rng: np.random.Generator):
    return _critic_cases(rng)


def _probe_gradient_penalty(gradient_penalty, args):
    import tensorflow as tf

    critic = _build_critic(args)
    real, fake, alpha = _critic_inputs(args)
    with tf.GradientTape() as tape:
        # No dtype ContractError here: a penalty turned into a Python float keeps its (right) value and shows up
        # as None gradients below (gradient-cut), which says more than a dtype complaint.
        penalty = _scalar(gradient_penalty(critic, real, fake, alpha), "the penalty")
    grads = tape.gradient(penalty, critic.trainable_variables)
    return {"value": penalty, **{f"grad_{k}": g for k, g in enumerate(grads)}}


def _interpolate_gradients(critic, real, fake, alpha):
    import tensorflow as tf

    interpolates = alpha * real + (1.0 - alpha) * fake
    with tf.GradientTape() as tape:
        tape.watch(interpolates)
        score = tf.reduce_sum(critic(interpolates))
    return tape.gradient(score, interpolates)


def _safe_norm(squared):
    import tensorflow as tf

    nonzero = squared > 0
    return tf.where(nonzero, tf.sqrt(tf.where(nonzero, squared, tf.ones_like(squared))), tf.zeros_like(squared))


def _penalty(critic, real, fake, alpha):
    """A correct penalty, for the mistake models of critic_gradients."""
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    norm = _safe_norm(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))
    return tf.reduce_mean(tf.square(norm - 1.0))


def _gp_whole_batch(critic, real, fake, alpha):
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    return tf.reduce_mean(tf.square(tf.norm(g) - 1.0))


def _gp_axis_one(critic, real, fake, alpha):
    import tensorflow as tf

    g = _interpolate_gradients(critic, real, fake, alpha)
    return tf.reduce_mean(tf.square(tf.norm(g, axis=1) - 1.0))


def _grad_outputs(of: str) -> tuple[Output, ...]:
    """grad_0, grad_1, ...: one output per critic variable (cases with fewer variables leave the rest unused)."""
    return tuple(Output(f"grad_{k}", f"{of} gradient with respect to {_variable_label(k)}", gradient=True,
                        none_means_zero=True) for k in range(MAX_CRITIC_VARIABLES))


_NORM_FIX = ("take one norm per example over every axis but the first: "
             "`tf.sqrt(tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g))))`, or reshape g to (batch, -1) "
             "and take the norm over axis 1")

GRADIENT_PENALTY = Exercise(
    id="gradient_penalty",
    params=("critic", "real", "fake", "alpha"),
    points=2.0,
    make_cases=_gp_cases,
    probe=_probe_gradient_penalty,
    outputs=(Output("value", "the penalty", check_dtype=True), *_grad_outputs("the penalty's")),
    mistakes=(
        Mistake("wrong-norm-axis", _gp_whole_batch,
                "the norm is taken over the whole batch (`tf.norm(g)` without an axis): one number instead of one "
                "norm per example", _NORM_FIX),
        Mistake("wrong-norm-axis", _gp_axis_one,
                "the norm is taken over axis 1 only (`tf.norm(g, axis=1)`): right for (batch, d) vectors, but for "
                "(batch, h, w, c) images it leaves a (batch, w, c) tensor of column norms", _NORM_FIX),
    ),
    hints={
        "gradient-cut": "keep the penalty in TensorFlow ops: no `.numpy()`, `float()`, NumPy functions or "
                        "`tf.stop_gradient` between the critic's input gradient and the returned value, so that an "
                        "outer tape can differentiate it with respect to the critic's weights",
        "tape-outside-context": "call `critic(interpolates)` inside the `with tf.GradientTape() as tape:` block "
                                "after `tape.watch(interpolates)`",
    },
)


# =========================================================================== critic_gradients

def _cg_cases(rng: np.random.Generator):
    return _critic_cases(rng, with_gp_weight=True)


def _probe_critic_gradients(critic_gradients, args):
    critic = _build_critic(args)
    real, fake, alpha = _critic_inputs(args)
    variables = critic.trainable_variables
    loss, grads = require_pair(critic_gradients(critic, real, fake, alpha, float(args["gp_weight"])),
                               "critic_gradients(critic, real, fake, alpha, gp_weight)")
    loss = _scalar(loss, "the loss (the first item returned)")
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


def _critic_loss_gradients(critic, real, fake, alpha, gp_weight, sign=1.0, penalty_inside=True, gp=_penalty):
    import tensorflow as tf

    penalty = None if penalty_inside else gp(critic, real, fake, alpha)
    with tf.GradientTape() as tape:
        wasserstein = sign * (tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)))
        if penalty_inside:
            penalty = gp(critic, real, fake, alpha)
        loss = wasserstein + gp_weight * penalty
    grads = tape.gradient(loss, critic.trainable_variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return loss, grads


def _cg_penalty_outside(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, penalty_inside=False)


def _cg_sign_flipped(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, sign=-1.0)


def _cg_whole_batch(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=_gp_whole_batch)


def _cg_axis_one(critic, real, fake, alpha, gp_weight):
    return _critic_loss_gradients(critic, real, fake, alpha, gp_weight, gp=_gp_axis_one)


CRITIC_GRADIENTS = Exercise(
    id="critic_gradients",
    params=("critic", "real", "fake", "alpha", "gp_weight"),
    points=2.0,
    make_cases=_cg_cases,
    probe=_probe_critic_gradients,
    outputs=(Output("loss", "the loss", check_dtype=True), *_grad_outputs("the loss's")),
    mistakes=(
        Mistake("tape-outside-context", _cg_penalty_outside,
                "the loss value is right but the gradients are those of the Wasserstein term alone: the penalty "
                "was computed before (or outside) the loss tape's `with` block, so the tape saw it as a constant "
                "(a `.numpy()` or `tf.stop_gradient` inside gradient_penalty has the same effect)",
                "call `gradient_penalty(critic, real, fake, alpha)` inside the `with tf.GradientTape() as tape:` "
                "block that computes the loss, and keep it in TensorFlow ops"),
        Mistake("wrong-value", _cg_sign_flipped,
                "the Wasserstein term has the wrong sign: the critic loss is mean(critic(fake)) - "
                "mean(critic(real)), not mean(critic(real)) - mean(critic(fake))",
                "compute `tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * penalty`"),
        # critic_gradients calls the student's own gradient_penalty: its norm mistakes show up here too.
        Mistake("wrong-norm-axis", _cg_whole_batch,
                "the penalty inside the loss (your gradient_penalty) takes one norm over the whole batch",
                "fix gradient_penalty: " + _NORM_FIX),
        Mistake("wrong-norm-axis", _cg_axis_one,
                "the penalty inside the loss (your gradient_penalty) takes the norm over axis 1 only, which is "
                "wrong for (batch, h, w, c) images", "fix gradient_penalty: " + _NORM_FIX),
    ),
    hints={
        "tape-outside-context": "call `gradient_penalty(critic, real, fake, alpha)` inside the "
                                "`with tf.GradientTape() as tape:` block that computes the loss, then "
                                "`tape.gradient(loss, critic.trainable_variables)` after it",
    },
)


# =========================================================================== newton_step

_NEWTON_FUNCTIONS = {
    "quadratic": "f(x) = 0.5 x^T A x - b^T x",
    "exp_quadratic": "f(x) = sum(exp(x)) + 0.5 x^T A x - b^T x",
    "exp_ridge": "f(x) = sum(exp(x) - 2 x) + sum(x**2)",
    "logsumexp_ridge": "f(x) = logsumexp(B x) + 0.5 lam |x|^2",
}


def _newton_function(args):
    import tensorflow as tf

    name = args["f"]
    if name == "exp_ridge":
        return lambda x: tf.reduce_sum(tf.exp(x) - 2.0 * x) + tf.reduce_sum(x ** 2)
    if name == "logsumexp_ridge":
        matrix, lam = tf.constant(args["B"]), float(args["lam"])
        return lambda x: tf.reduce_logsumexp(tf.linalg.matvec(matrix, x)) + 0.5 * lam * tf.reduce_sum(x * x)
    matrix, b = tf.constant(args["A"]), tf.constant(args["b"])

    def quadratic(x):
        return 0.5 * tf.reduce_sum(x * tf.linalg.matvec(matrix, x)) - tf.reduce_sum(b * x)
    if name == "quadratic":
        return quadratic
    return lambda x: tf.reduce_sum(tf.exp(x)) + quadratic(x)


def _newton_cases(rng: np.random.Generator):
    def one(id_, f, x, public=False, **params):
        n = len(x)
        args = dict(f=f, x=array(x, "float64"), A=None, b=None, B=None, lam=None)
        args.update({k: (array(v, "float64") if k != "lam" else float(v)) for k, v in params.items()})
        extra = "" if "A" not in params or n <= 2 else f" with a random positive definite ({n}, {n}) A"
        if f == "quadratic":
            extra += " (one step lands on the minimum)"
        if f == "logsumexp_ridge":
            extra = f" with a random {params['B'].shape} B and lam = {params['lam']:g}"
        return case(id_, f"float64 Tensor x of shape ({n},), {_NEWTON_FUNCTIONS[f]}{extra}", "float64",
                    public=public, args=args)

    def spd(n):
        m = rng.normal(size=(n, n))
        return m @ m.T + n * np.eye(n)

    n_mid = int(rng.integers(5, 12))
    return [
        one("quadratic-2", "quadratic", [10.0, -7.0], public=True, A=[[3.0, 1.0], [1.0, 2.0]], b=[1.0, 1.0]),
        one("exp-ridge-3", "exp_ridge", [0.0, 0.0, 0.0], public=True),
        one("quadratic-random", "quadratic", rng.normal(size=n_mid), A=spd(n_mid), b=rng.normal(size=n_mid)),
        one("exp-quadratic-1", "exp_quadratic", rng.normal(size=1), A=spd(1), b=rng.normal(size=1)),
        one("exp-quadratic-50", "exp_quadratic", rng.normal(size=50), A=spd(50), b=rng.normal(size=50)),
        one("logsumexp-ridge", "logsumexp_ridge", rng.normal(size=6), B=rng.normal(size=(8, 6)), lam=0.5),
        # Each case costs a pfor `tape.jacobian` (0.1 s): a mid-size exp-quadratic and a random exp-ridge would
        # only repeat quadratic-random / exp-quadratic-50 and the public exp-ridge-3 (every mistake model here
        # gives other values on all of them).
    ]


def _probe_newton(newton_step, args):
    x = tensor(args["x"])
    return {"x_new": _vector(newton_step(_newton_function(args), x), "the new x", like=x)}


def _newton_parts(f, x):
    import tensorflow as tf

    with tf.GradientTape(persistent=True) as outer:  # row by row: no pfor function traced per case (0.06 s)
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return g, outer.jacobian(g, x, experimental_use_pfor=False)


def _newton_multiplied(f, x):
    import tensorflow as tf

    g, hessian = _newton_parts(f, x)
    return x - tf.linalg.matvec(hessian, g)


def _newton_sign(f, x):
    import tensorflow as tf

    g, hessian = _newton_parts(f, x)
    return x + tf.linalg.solve(hessian, g[:, tf.newaxis])[:, 0]


def _newton_gradient_step(f, x):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return x - tape.gradient(y, x)


NEWTON_STEP = Exercise(
    id="newton_step",
    params=("f", "x"),
    points=2.0,
    make_cases=_newton_cases,
    probe=_probe_newton,
    outputs=(Output("x_new", "the new x", check_dtype=True),),
    mistakes=(
        Mistake("wrong-value", _newton_multiplied,
                "the step multiplies the gradient by the Hessian (x - H g) instead of solving H s = g",
                "solve for the step: `s = tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]`, then return `x - s`"),
        Mistake("wrong-value", _newton_sign,
                "the step has the wrong sign: x + H^-1 g climbs instead of descending",
                "return `x - s` where `s` solves H s = g"),
        Mistake("wrong-value", _newton_gradient_step,
                "the step is a plain gradient step x - g: the Hessian is not used",
                "compute H = `outer.jacobian(g, x)` and return `x - tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]`"),
    ),
    hints={
        "tape-outside-context": "compute `g = inner.gradient(y, x)` inside the outer tape's `with` block, then "
                                "`H = outer.jacobian(g, x)`",
    },
)


ASSIGNMENT = Assignment(
    id="higher_order",
    title="Higher-order derivatives",
    exercises=(DERIVATIVES, HESSIAN_VECTOR_PRODUCT, GRADIENT_PENALTY, CRITIC_GRADIENTS, NEWTON_STEP),
)
