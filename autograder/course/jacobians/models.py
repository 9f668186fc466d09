"""The models of ``per_example_gradients``, built in the child from plain data, and how each one ran.

A case names its model's kind and carries its weights as plain arrays; the probe builds a Keras Sequential
model, a Keras functional model or a ``tf.Module`` from them here (so the parent never imports TensorFlow).
Every model records, at each Python-level call, what that call saw (``ModelCalls``): the number of
examples of its input and whether it ran eagerly, inside a ``tf.vectorized_map`` trace or inside a
while-loop body. From that record the probe tells a model run once on the whole batch (or vectorized over
the examples) from one called once per example. (Child side: no answer to any exercise here.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

# pfor (tf.vectorized_map, tape.jacobian) traces the function it vectorizes under this name scope
# (tensorflow/python/ops/parallel_for/control_flow_ops.py, `_pfor_impl`).
PFOR_SCOPE = "loop_body"


@dataclass(frozen=True)
class Call:
    """One Python-level call of the model."""

    examples: int | None  # the static length of the input's batch axis; 0 without one; None when unknown
    eager: bool
    vectorized: bool  # traced by pfor: one trace stands for every example at once
    in_while_body: bool  # traced inside a tf.while_loop body (tf.map_fn, an AutoGraph loop): runs per iteration


@dataclass
class ModelCalls:
    """What each call of the probe's model saw, in order."""

    rank: int = 2  # the rank of the probe's x: an input of lower rank holds a single example
    calls: list[Call] = field(default_factory=list)

    def record(self, inputs) -> None:
        import tensorflow as tf

        eager = tf.executing_eagerly()
        graph = None if eager else tf.compat.v1.get_default_graph()
        shape = inputs.shape
        self.calls.append(Call(
            examples=None if shape.rank is None else (0 if shape.rank < self.rank else shape[0]),
            eager=eager,
            vectorized=graph is not None and any(part == PFOR_SCOPE or part.startswith(PFOR_SCOPE + "_")
                                                 for part in graph.get_name_scope().split("/")),
            in_while_body=graph is not None and _inside_while_body(graph)))

    def once_per_example(self, batch: int) -> bool:
        """Whether the model ran once per example: several calls on single examples, or any call on part of
        the batch traced in a while-loop body (tf.map_fn, tf.while_loop, an AutoGraph `for` over a tf.range).
        One call on a single example (a shape check) and calls inside tf.vectorized_map do not count."""
        if batch < 2:
            return False
        partial = [c for c in self.calls if not c.vectorized and c.examples != batch]
        single = [c for c in partial if c.examples in (0, 1)]
        return len(single) >= 2 or any(c.in_while_body for c in partial)


def _inside_while_body(graph) -> bool:
    """Whether a graph is (or is nested in) the body of a tf.while_loop."""
    from tensorflow.python.ops.control_flow_v2_func_graphs import WhileBodyFuncGraph

    while graph is not None:
        if isinstance(graph, WhileBodyFuncGraph):
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


# --------------------------------------------------------------------------- losses

def loss_function(name: str):
    """loss_fn(y, y_pred): one loss per example, shape (batch,)."""
    import tensorflow as tf

    if name == "squared":
        return lambda y, y_pred: tf.reduce_sum(tf.square(y_pred - y), axis=-1)
    if name == "softmax_xent":
        return lambda y, y_pred: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=y_pred)
    raise ValueError(f"unknown loss {name!r}")


LOSS_TEXT = {"squared": "loss_fn = sum of squared errors per example",
             "softmax_xent": "loss_fn = softmax cross-entropy per example (y one-hot)"}


# --------------------------------------------------------------------------- models

def build_model(args: Mapping[str, Any]):
    """The case's model and its record of calls."""
    spec = args["model"]
    calls = ModelCalls(rank=len(np.shape(args["x"])))
    kind = spec["kind"]
    if kind == "sequential":
        return _sequential(spec, calls), calls
    if kind == "functional":
        return _functional(spec, calls), calls
    if kind == "module":
        return _module(spec, calls), calls
    raise ValueError(f"unknown model kind {kind!r}")


def _recorder(calls: ModelCalls, dtype: str):
    """An identity Keras layer, first in the model, that records every call of the model."""
    import tensorflow as tf

    class CallRecorder(tf.keras.layers.Layer):
        def call(self, inputs):
            calls.record(inputs)
            return inputs

    return CallRecorder(dtype=dtype)


def _dense(layer_spec, dtype: str):
    import tensorflow as tf

    kernel, bias, activation = layer_spec
    return tf.keras.layers.Dense(kernel.shape[1], activation=activation, use_bias=bias is not None, dtype=dtype)


def _set(layers_and_specs) -> None:
    for layer, (kernel, bias, _) in layers_and_specs:
        layer.set_weights([kernel] if bias is None else [kernel, bias])


def _sequential(spec, calls: ModelCalls):
    """Input -> (Flatten) -> Dense ... -> Dense(k)."""
    import tensorflow as tf

    dtype = spec["dtype"]
    dense = [_dense(layer, dtype) for layer in spec["layers"]]
    flatten = [tf.keras.layers.Flatten(dtype=dtype)] if len(spec["input_shape"]) > 1 else []
    model = tf.keras.Sequential([tf.keras.Input(shape=tuple(spec["input_shape"]), dtype=dtype),
                                 _recorder(calls, dtype), *flatten, *dense])
    _set(zip(dense, spec["layers"]))
    calls.calls.clear()  # building the model traced it once
    return model


def _functional(spec, calls: ModelCalls):
    """Input -> Flatten -> trunk Dense ... -> Dense(k), plus a linear skip Dense(k) from the flattened input."""
    import tensorflow as tf

    dtype = spec["dtype"]
    inputs = tf.keras.Input(shape=tuple(spec["input_shape"]), dtype=dtype)
    flat = tf.keras.layers.Flatten(dtype=dtype)(_recorder(calls, dtype)(inputs))
    trunk = [_dense(layer, dtype) for layer in spec["layers"]]
    hidden = flat
    for layer in trunk:
        hidden = layer(hidden)
    skip = _dense(spec["skip"], dtype)
    outputs = tf.keras.layers.Add(dtype=dtype)([hidden, skip(flat)])
    model = tf.keras.Model(inputs, outputs)
    _set([*zip(trunk, spec["layers"]), (skip, spec["skip"])])
    calls.calls.clear()
    return model


def _module(spec, calls: ModelCalls):
    """A tf.Module: tanh(x @ kernel + bias) * scale / temperature (temperature not trainable), and optionally a
    trainable variable it never uses. tf.Module lists its variables sorted by attribute name: bias, kernel,
    scale (then spare), so a reversed list has the same shapes and other values."""
    import tensorflow as tf

    class Affine(tf.Module):
        def __init__(self):
            super().__init__(name="affine")
            self.bias = tf.Variable(spec["bias"], name="bias")
            self.kernel = tf.Variable(spec["kernel"], name="kernel")
            self.scale = tf.Variable(spec["scale"], name="scale")
            self.temperature = tf.Variable(spec["temperature"], name="temperature", trainable=False)
            if spec.get("spare") is not None:
                self.spare = tf.Variable(spec["spare"], name="spare")

        def __call__(self, x, training=None):  # `training`, as a Keras model takes it, changes nothing here
            calls.record(x)
            return tf.tanh(tf.matmul(x, self.kernel) + self.bias) * self.scale / self.temperature

    return Affine()


def variable_count(spec) -> int:
    if spec["kind"] == "module":
        return 3 + (spec.get("spare") is not None)
    layers = list(spec["layers"]) + ([spec["skip"]] if spec["kind"] == "functional" else [])
    return sum(1 if bias is None else 2 for _, bias, _ in layers)


def weight_count(spec) -> int:
    if spec["kind"] == "module":
        return sum(int(np.size(spec[name])) for name in ("bias", "kernel", "scale", "spare") if spec.get(name) is not None)
    layers = list(spec["layers"]) + ([spec["skip"]] if spec["kind"] == "functional" else [])
    return sum(int(np.size(kernel)) + (0 if bias is None else int(np.size(bias))) for kernel, bias, _ in layers)
