"""Assignment ``custom_gradients``: cases, probes and mistake models of its five exercises."""
from __future__ import annotations

import numpy as np

from autograder.exercises.common import array, case, kind, require_tensor, tensor, uniform, weighted_gradient
from autograder.spec import Assignment, ContractError, Exercise, Mistake, Output

VALUE = Output("value", "the value", check_dtype=True)
GRADIENT = Output("gradient", "the gradient with respect to x", gradient=True)


# =========================================================================== log1pexp

def _log1pexp_cases(rng: np.random.Generator):
    edges32 = [100.0, 1000.0, -1000.0, 88.0, 89.0, -100.0, 0.0, 30.0, -30.0]
    edges64 = [100.0, 710.0, 1000.0, -1000.0, -745.0, 0.0, 40.0]
    shape = tuple(int(n) for n in rng.integers(2, 5, size=2))
    return [
        case("f32-small", "float32 Tensor x = [-3, -1, 0, 1, 3], loss = sum(y)", args=dict(
            x=array([-3, -1, 0, 1, 3], "float32"), upstream=None), public=True),
        case("f32-large", "float32 Tensor x with large values (x = 100, 1000, -1000, 88, 89, ...)", tags=("large",),
             args=dict(x=array(edges32, "float32"), upstream=None)),
        case("f64-large", "float64 Tensor x with large values (x = 710, 1000, -1000, -745, ...)", "float64",
             tags=("large",), args=dict(x=array(edges64, "float64"), upstream=None)),
        case("f32-upstream", f"float32 Tensor x of shape {shape}, weighted loss sum(w * y)", tags=("upstream",),
             args=dict(x=uniform(rng, shape, -6, 6, "float32"), upstream=uniform(rng, shape, -2, 2, "float32"))),
        case("f64-variable", f"float64 Variable x of shape {shape}, weighted loss sum(w * y)", "float64",
             tags=("variable", "upstream"),
             args=dict(x=uniform(rng, shape, -20, 20, "float64"), variable=True,
                       upstream=uniform(rng, shape, -2, 2, "float64"))),
        case("f32-3d", "float32 Tensor x of shape (2, 3, 2), loss = sum(y)",
             args=dict(x=uniform(rng, (2, 3, 2), -50, 50, "float32"), upstream=None)),
    ]


def _probe_elementwise(function, args):
    value, gradient = weighted_gradient(function, args, lambda fn, x: fn(x), args.get("upstream"))
    return {"value": value, "gradient": gradient}


def _log1pexp_ignores_upstream(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        def grad_fn(upstream):
            return tf.sigmoid(x)
        return tf.nn.softplus(x), grad_fn
    return inner(x)


def _log1pexp_naive(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        def grad_fn(upstream):
            return upstream * tf.exp(x) / (1 + tf.exp(x))
        return tf.math.log(1 + tf.exp(x)), grad_fn
    return inner(x)


LOG1PEXP = Exercise(
    id="log1pexp",
    params=("x",),
    points=2.0,
    make_cases=_log1pexp_cases,
    probe=_probe_elementwise,
    outputs=(VALUE, GRADIENT),
    requires_custom_gradient=True,
    mistakes=(
        Mistake("ignores-upstream", _log1pexp_ignores_upstream,
                "your grad_fn returns sigmoid(x) without the upstream gradient",
                "return `upstream * tf.sigmoid(x)` from grad_fn: the chain rule multiplies by the gradient "
                "that arrives from the loss"),
        Mistake("unstable-gradient", _log1pexp_naive,
                "the value and the gradient are computed from exp(x), which overflows for large x",
                "compute the value as `tf.maximum(x, 0) + tf.math.log1p(tf.exp(-tf.abs(x)))` and the gradient "
                "as `upstream * tf.sigmoid(x)`"),
    ),
    hints={
        "unstable-value": "exp(x) overflows float32 for x > 88.7 (float64: x > 709.8); use "
                          "`tf.maximum(x, 0) + tf.math.log1p(tf.exp(-tf.abs(x)))`, which never exponentiates a "
                          "positive number",
        "unstable-gradient": "e^x / (1 + e^x) is inf / inf = NaN for large x; write the gradient as "
                             "`upstream * tf.sigmoid(x)`, which is exactly 1.0 there",
        "no-custom-gradient": "decorate log1pexp with `@tf.custom_gradient` and return `(value, grad_fn)`; "
                              "the exercise is about writing the gradient yourself",
    },
)


# =========================================================================== straight_through_round

def _round_cases(rng: np.random.Generator):
    def no_ties(shape, low, high, dtype):
        x = uniform(rng, shape, low, high, dtype)
        return np.where(np.abs(x - np.floor(x) - 0.5) < 0.05, x + 0.2, x).astype(x.dtype)
    return [
        case("f32-small", "float32 Tensor x = [-1.7, -0.4, 0.3, 0.8, 2.2], loss = sum(y)", public=True,
             args=dict(x=array([-1.7, -0.4, 0.3, 0.8, 2.2], "float32"), upstream=None)),
        case("f32-upstream", "float32 Tensor x of shape (4, 3), weighted loss sum(w * y)", tags=("upstream",),
             args=dict(x=no_ties((4, 3), -5, 5, "float32"), upstream=uniform(rng, (4, 3), -2, 2, "float32"))),
        case("f64-variable", "float64 Variable x of shape (6,), weighted loss sum(w * y)", "float64",
             tags=("variable", "upstream"),
             args=dict(x=no_ties((6,), -10, 10, "float64"), variable=True,
                       upstream=uniform(rng, (6,), -3, 3, "float64"))),
        case("f32-large", "float32 Tensor x with large values, loss = sum(y)", tags=("large",),
             args=dict(x=array([1e6 + 0.3, -12345.7, 3e7], "float32"), upstream=None)),
    ]


def _round_plain(x):
    import tensorflow as tf

    return tf.round(x)


def _round_ignores_upstream(x):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.round(x), lambda upstream: tf.ones_like(x)
    return inner(x)


STRAIGHT_THROUGH_ROUND = Exercise(
    id="straight_through_round",
    params=("x",),
    points=2.0,
    make_cases=_round_cases,
    probe=_probe_elementwise,
    outputs=(VALUE, GRADIENT),
    mistakes=(
        Mistake("no-gradient", _round_plain,
                "plain `tf.round` has no gradient, so nothing flows back",
                "pass the upstream gradient through unchanged: `@tf.custom_gradient` with "
                "`grad_fn = lambda upstream: upstream`, or `x + tf.stop_gradient(tf.round(x) - x)`"),
        Mistake("ignores-upstream", _round_ignores_upstream,
                "your grad_fn returns ones instead of the upstream gradient",
                "the straight-through estimator passes the upstream gradient on: `return upstream`"),
    ),
)


# =========================================================================== clip_gradient_norm

def _clip_cases(rng: np.random.Generator):
    big = uniform(rng, (5,), -4, 4, "float32")
    return [
        case("f32-clipped", "float32 Tensor x of shape (5,), upstream with norm above max_norm = 1.0",
             tags=("upstream",), public=True,
             args=dict(x=array([1, -2, 3, 0.5, 0], "float32"), upstream=array([3, 4, 0, 0, 0], "float32"),
                       max_norm=1.0)),
        case("f32-unclipped", "float32 Tensor x of shape (5,), upstream with norm below max_norm = 10.0",
             tags=("upstream",),
             args=dict(x=uniform(rng, (5,), -3, 3, "float32"), upstream=big, max_norm=10.0)),
        case("f64-matrix", "float64 Variable x of shape (3, 4), max_norm = 0.5 over the whole tensor", "float64",
             tags=("variable", "upstream"),
             args=dict(x=uniform(rng, (3, 4), -3, 3, "float64"), variable=True,
                       upstream=uniform(rng, (3, 4), -2, 2, "float64"), max_norm=0.5)),
        case("f32-large", "float32 Tensor x with large values (1e4), upstream norm 50, max_norm = 2.0",
             tags=("upstream", "large"),
             args=dict(x=array([1e4, -2e4, 3e4], "float32"), upstream=array([30, 40, 0], "float32"), max_norm=2.0)),
    ]


def _probe_clip(function, args):
    value, gradient = weighted_gradient(function, args, lambda fn, x: fn(x, float(args["max_norm"])),
                                        args.get("upstream"))
    return {"value": value, "gradient": gradient}


def _clip_value_too(x, max_norm):
    import tensorflow as tf

    return tf.clip_by_norm(x, max_norm)


def _clip_ignores_upstream(x, max_norm):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.identity(x), lambda upstream: tf.clip_by_norm(tf.ones_like(x), max_norm)
    return inner(x)


def _clip_per_element(x, max_norm):
    import tensorflow as tf

    @tf.custom_gradient
    def inner(x):
        return tf.identity(x), lambda upstream: tf.clip_by_value(upstream, -max_norm, max_norm)
    return inner(x)


CLIP_GRADIENT_NORM = Exercise(
    id="clip_gradient_norm",
    params=("x", "max_norm"),
    points=2.0,
    make_cases=_clip_cases,
    probe=_probe_clip,
    outputs=(VALUE, GRADIENT),
    mistakes=(
        Mistake("clips-value", _clip_value_too,
                "the forward value is clipped too, so the layer is no longer the identity",
                "return `tf.identity(x)` as the value and clip only in grad_fn: "
                "`tf.clip_by_norm(upstream, max_norm)`",
                outputs=("value",)),  # whatever the gradient does, a clipped forward value is this mistake
        Mistake("ignores-upstream", _clip_ignores_upstream,
                "your grad_fn clips a tensor of ones instead of the upstream gradient",
                "clip the gradient that arrives: `tf.clip_by_norm(upstream, max_norm)`"),
        Mistake("wrong-value", _clip_per_element,
                "the gradient is clipped element by element (`tf.clip_by_value`), not by its L2 norm",
                "use `tf.clip_by_norm(upstream, max_norm)`, which rescales the whole tensor"),
    ),
)


# =========================================================================== td_loss

def _td_cases(rng: np.random.Generator):
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


def _probe_td(function, args):
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


def _td_no_stop_gradient(q, reward, next_q, gamma):
    import tensorflow as tf

    return tf.reduce_mean(tf.square(q - (reward + gamma * tf.reduce_max(next_q, axis=-1))))


TD_LOSS = Exercise(
    id="td_loss",
    params=("q", "reward", "next_q", "gamma"),
    points=2.0,
    make_cases=_td_cases,
    probe=_probe_td,
    outputs=(
        Output("value", "the loss", check_dtype=True),
        Output("grad_q", "the gradient with respect to q", gradient=True),
        Output("grad_next_q", "the gradient with respect to next_q", none_means_zero=True, gradient=True),
    ),
    mistakes=(
        Mistake("missing-stop-gradient", _td_no_stop_gradient,
                "the target is not wrapped in `tf.stop_gradient`, so the gradient flows into next_q",
                "compute `target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))`"),
    ),
)


# =========================================================================== checkpointed

def _checkpoint_cases(rng: np.random.Generator):
    return [
        case("f32-variable-f", "float32 x of shape (4,), f(x) = tanh(w * x) * x reads a tf.Variable w", public=True,
             args=dict(x=array([1.0, -2.0, 0.5, 3.0], "float32"), w=array([0.5, -1.0, 2.0, 0.1], "float32"),
                       form="variable", upstream=None)),
        case("f64-matrix-f", "float64 x of shape (3, 5), f(x) = sin(x @ W) reads a tf.Variable W, weighted loss",
             "float64", tags=("upstream",),
             args=dict(x=uniform(rng, (3, 5), -1, 1, "float64"), w=uniform(rng, (5, 2), -1, 1, "float64"),
                       form="matmul", upstream=uniform(rng, (3, 2), -2, 2, "float64"))),
        case("f32-pure-f", "float32 x of shape (6,), f(x) = x ** 3 - exp(-x) with no variables",
             args=dict(x=uniform(rng, (6,), -2, 2, "float32"), w=None, form="pure", upstream=None)),
    ]


def _probe_checkpointed(checkpointed, args):
    import tensorflow as tf

    calls = [0]
    w = None if args["w"] is None else tf.Variable(args["w"], name="w")

    def f(x):
        calls[0] += 1
        if args["form"] == "variable":
            return tf.tanh(w * x) * x
        if args["form"] == "matmul":
            return tf.sin(tf.matmul(x, w))
        return x ** 3 - tf.exp(-x)

    g = checkpointed(f)
    if not callable(g):
        raise ContractError(f"checkpointed(f) must return a function, got a {type(g).__name__}")
    x = tensor(args["x"])
    sources = [x] if w is None else [x, w]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = require_tensor(g(x), "g(x)", like=x)
        weights = tf.ones_like(y) if args["upstream"] is None else tf.constant(args["upstream"], dtype=y.dtype)
        loss = tf.reduce_sum(weights * y)
    forward_calls = calls[0]
    gradients = tape.gradient(loss, sources)
    outputs = {"value": y, "grad_x": gradients[0], "recomputed": calls[0] > forward_calls}
    if w is not None:
        outputs["grad_w"] = gradients[1]
    return outputs


def _checkpoint_identity(f):
    return f


CHECKPOINTED = Exercise(
    id="checkpointed",
    params=("f",),
    points=2.0,
    make_cases=_checkpoint_cases,
    probe=_probe_checkpointed,
    outputs=(
        Output("value", "g(x)", check_dtype=True),
        Output("grad_x", "the gradient with respect to x", gradient=True),
        Output("grad_w", "the gradient with respect to the variable f reads", gradient=True),
        Output("recomputed", "whether f runs again during the backward pass", exact=True),
    ),
    mistakes=(
        Mistake("not-recomputed", _checkpoint_identity,
                "f is returned as it is, so its intermediates are kept and it never runs again on the backward pass",
                "return `tf.recompute_grad(f)`"),
    ),
)

ASSIGNMENT = Assignment(
    id="custom_gradients",
    title="Custom gradients",
    exercises=(LOG1PEXP, STRAIGHT_THROUGH_ROUND, CLIP_GRADIENT_NORM, TD_LOSS, CHECKPOINTED),
)
