"""What the custom_gradients notebook says TensorFlow and Keras do, checked in real TensorFlow and Keras.

The notebook's teaching rests on behaviour that a new release could change: the gradient of each kink's op
at 0 (a convention, not a one-sided derivative), Keras's per-weight `clipnorm=` against `global_clipnorm=`,
TensorFlow's Sqrt gradient at 0, the NaN of `tf.norm` at a zero row, and the allocator statistics that
measure `tf.recompute_grad`'s memory. One subprocess (TensorFlow imported after the allocator is chosen, as
the notebook's setup cell does) reports them all as JSON; the test reads each claim.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import quiet_env

pytestmark = pytest.mark.slow

PROBE = r'''
import json, os, tracemalloc
import numpy as np
import tensorflow as tf
import keras

found = {}
zero = tf.constant(0.0)
for name, op in [("abs", tf.abs), ("maximum", lambda t: tf.maximum(t, 0.0)), ("relu", tf.nn.relu)]:
    with tf.GradientTape() as tape:
        tape.watch(zero)
        y = op(zero)
    with tf.autodiff.ForwardAccumulator(zero, tf.constant(1.0)) as accumulator:
        forward = op(zero)
    found[name] = [float(tape.gradient(y, zero)), float(accumulator.jvp(forward))]
x = tf.constant([0.0, 100.0])
for name, kink in [("maximum", lambda t: tf.maximum(t, 0.0)), ("relu", tf.nn.relu)]:
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = kink(x) + tf.math.log1p(tf.exp(-tf.abs(x)))
    found["softplus_" + name] = tape.gradient(y, x).numpy().tolist()

grads = [tf.constant([3.0, 4.0]), tf.constant([[0.0, 12.0]])]
for option in ("clipnorm", "global_clipnorm"):
    weights = [tf.Variable(tf.zeros([2])), tf.Variable(tf.zeros([1, 2]))]
    keras.optimizers.SGD(learning_rate=1.0, **{option: 6.5}).apply_gradients(zip(grads, weights))
    found[option] = [(0.0 - w).numpy().ravel().tolist() for w in weights]

rows = tf.constant([[0.0, 0.0], [3.0, 4.0]])
guards = {"sqrt": tf.sqrt, "log": tf.math.log}
for name, op in guards.items():
    with tf.GradientTape() as tape:
        tape.watch(rows)
        s = tf.reduce_sum(tf.square(rows), axis=1)
        y = tf.where(s > 0, op(s), tf.zeros_like(s))
    found["where_" + name] = tape.gradient(y, rows).numpy()[0].tolist()
with tf.GradientTape() as tape:
    tape.watch(rows)
    y = tf.norm(rows, axis=1)
found["norm_zero_row"] = tape.gradient(y, rows).numpy()[0].tolist()

tracemalloc.start()
big = tf.random.normal([2000, 2000])
found["tracemalloc_peak"] = tracemalloc.get_traced_memory()[1]
found["tensorflow_current"] = tf.config.experimental.get_memory_info("CPU:0")["current"]
del big

weights = [tf.Variable(tf.random.normal([64, 64]) / 8.0) for _ in range(64)]
inputs = tf.random.normal([1024, 64])
def blocks(first, last):
    def run(h):
        for w in weights[first:last]:
            h = tf.tanh(h @ w)
        return h
    return run
def peak(segment):
    parts = [blocks(k, k + segment) for k in range(0, 64, segment)]
    parts = [tf.recompute_grad(p) for p in parts] if segment < 64 else parts
    tf.config.experimental.reset_memory_stats("CPU:0")
    before = tf.config.experimental.get_memory_info("CPU:0")["current"]
    with tf.GradientTape() as tape:
        h = inputs
        for part in parts:
            h = part(h)
        loss = tf.reduce_sum(h)
    tape.gradient(loss, weights)
    return tf.config.experimental.get_memory_info("CPU:0")["peak"] - before
found["peak_plain"], found["peak_segments_of_8"] = peak(64), peak(8)
print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def claims() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], env=quiet_env(TF_CPU_ALLOCATOR_USE_BFC="true"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_at_a_kink_each_op_has_its_convention_in_both_modes(claims):
    assert claims["abs"] == [0.0, 0.0]  # sign(0) = 0: neither side's -1 or +1
    assert claims["maximum"] == [1.0, 1.0]  # the tie goes to the first argument
    assert claims["relu"] == [0.0, 0.0]
    # so softplus written with each (its true slope at 0 is 0.5) gets 1.0 or 0.0 there, and 1.0 at 100
    assert claims["softplus_maximum"] == [1.0, 1.0] and claims["softplus_relu"] == [0.0, 1.0]


def test_keras_clipnorm_clips_each_weight_and_global_clipnorm_the_whole_list(claims):
    assert claims["clipnorm"] == [[3.0, 4.0], [0.0, 6.5]]  # norms 5 and 12: only the second is clipped
    assert sum(claims["global_clipnorm"], []) == pytest.approx([1.5, 2.0, 0.0, 6.0])  # global norm 13 -> 6.5


def test_a_where_guard_saves_tf_sqrt_but_not_tf_log_and_tf_norm_is_nan_at_a_zero_row(claims):
    assert claims["where_sqrt"] == [0.0, 0.0]
    assert all(v != v for v in claims["where_log"] + claims["norm_zero_row"])  # NaN


def test_memory_is_measured_by_the_allocator_not_tracemalloc_and_recompute_grad_saves_it(claims):
    assert claims["tensorflow_current"] >= 2000 * 2000 * 4 > 100 * claims["tracemalloc_peak"]
    assert claims["peak_segments_of_8"] < 0.5 * claims["peak_plain"]
