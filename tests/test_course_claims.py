"""What the notebooks say TensorFlow and Keras do, checked in real TensorFlow and Keras.

The teaching rests on behaviour that a new release could change: the gradient of each kink's op at 0 (a
convention, not a one-sided derivative), Keras's per-weight `clipnorm=` against `global_clipnorm=`, which
gradient kernels return 0 for a zero upstream under a `tf.where` guard, the NaN of `tf.norm` at a zero row,
the allocator statistics that measure `tf.recompute_grad`'s memory, `float()` as a cut in eager code and a
cast in a `tf.function`, Keras 3 variables under `tape.watch` and `unconnected_gradients=ZERO`, the order of a
row norm's vector-Jacobian product, `tf.test.compute_gradient`'s default step, and per-example gradients at
the exercise's size. One subprocess (TensorFlow imported after the allocator is chosen, as the notebooks'
setup cells do) reports them all as JSON; each test reads one claim. What a notebook prints about its own
demos (numbers its text quotes) is checked on the executed notebooks, in tests/test_notebooks.py.
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
guards = {"sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt, "reciprocal": tf.math.reciprocal, "log": tf.math.log,
          "divide": lambda s: 1.0 / s, "power": lambda s: s ** 0.5}
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

# safe_norm's vector-Jacobian product: multiplied first or divided first, rows of 1e-30 and 1e30 (float32)
x = tf.constant([[3e-30, 4e-30], [3e30, 4e30]])
norm, up = tf.constant([5e-30, 5e30]), tf.constant([1e-9, 1e9])
found["multiply_first"] = [str(v) for v in (up[:, None] * x / norm[:, None]).numpy().ravel()]
found["divide_first"] = (up[:, None] * (x / norm[:, None])).numpy().ravel().tolist()

# float(): a Python number in eager code, a cast (AutoGraph) in a tf.function
def float_times_itself(t):
    return float(t) * t
t = tf.constant(3.0)
for name, fn in [("eager", float_times_itself), ("function", tf.function(float_times_itself))]:
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
    found["float_" + name] = float(tape.gradient(y, t))

# Keras 3 variables: not tf.Variables; tape.watch refuses them; ZERO raises once one is unconnected
used, unused = keras.layers.Dense(2), keras.layers.Dense(2)
used.build((None, 3)), unused.build((None, 3))
found["keras_variable_is_tf_variable"] = isinstance(used.kernel, tf.Variable)
try:
    with tf.GradientTape() as tape:
        tape.watch(used.kernel)
    found["watch"] = "ok"
except Exception as error:
    found["watch"] = f"{type(error).__name__}: {error}"
zero = tf.UnconnectedGradients.ZERO
for method in ("gradient", "jacobian"):
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(used(tf.ones([1, 3])))
    try:
        getattr(tape, method)(out, used.trainable_variables + unused.trainable_variables, unconnected_gradients=zero)
        found["zero_" + method] = "ok"
    except Exception as error:
        found["zero_" + method] = f"{type(error).__name__}: {error}"
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(used(tf.ones([1, 3])))
    found["connected_zero_" + method] = len(getattr(tape, method)(out, used.trainable_variables,
                                                                 unconnected_gradients=zero))
plain = tf.Variable(1.0)
with tf.GradientTape() as tape:
    out = tf.reduce_sum(used(tf.ones([1, 3])))
found["tf_variable_zero"] = float(tape.gradient(out, plain, unconnected_gradients=zero))
found["zeros_like_keras_variable"] = list(tf.zeros_like(unused.kernel).shape)
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    keras.optimizers.SGD(0.1).apply_gradients([(tf.ones([3, 2]), used.kernel), (None, used.bias)])
found["none_gradient_warning"] = [str(w.message) for w in caught]

# tf.test.compute_gradient's default step: (f(1 + d) - f(1 - d)) / 2d - 3 = d**2 for f = x**3
_, (numerical,) = tf.test.compute_gradient(lambda v: v ** 3, [tf.constant([1.0], tf.float64)])
found["compute_gradient_excess"] = float(numerical[0, 0]) - 3.0

# per-example gradients at the exercise's size: three ways, the same rows; the loop's time against vmap's
import time
tf.get_logger().setLevel("ERROR")
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)])
images = tf.random.stateless_normal([256, 784], seed=[1, 2])
digits = tf.one_hot(tf.random.stateless_uniform([256], seed=[3, 4], maxval=10, dtype=tf.int32), 10)
def loss_fn(y, logits):
    return tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)
def by_jacobian():
    with tf.GradientTape() as tape:
        losses = loss_fn(digits, model(images))
    return tape.jacobian(losses, model.trainable_variables)
def by_vectorized_map():
    def one(example):
        x_i, y_i = example
        with tf.GradientTape() as tape:
            loss = loss_fn(y_i[None], model(x_i[None]))
        return tape.gradient(loss, model.trainable_variables)
    return tf.vectorized_map(one, (images, digits))
def by_loop():
    rows = []
    for i in range(256):
        with tf.GradientTape() as tape:
            loss = loss_fn(digits[i:i + 1], model(images[i:i + 1]))
        rows.append(tape.gradient(loss, model.trainable_variables))
    return [tf.stack(column) for column in zip(*rows)]
found["weights"] = model.count_params()
results, seconds = {}, {}
for name, way in [("jacobian", by_jacobian), ("vectorized_map", by_vectorized_map), ("loop", by_loop)]:
    times = []
    for _ in range(2):
        start = time.perf_counter()
        results[name] = way()
        times.append(time.perf_counter() - start)
    seconds[name] = min(times)
found["per_example_seconds"] = seconds
found["per_example_same_rows"] = all(np.allclose(a, b, atol=1e-5) for rows in results.values()
                                     for a, b in zip(results["jacobian"], rows))

# mixed precision: float16 keeps subnormals on CPU; small gradients underflow without loss scaling
found["float16_subnormal_kept"] = float(tf.constant(1e-6, tf.float16)) != 0.0
half = keras.layers.Dense(64, dtype="mixed_float16", kernel_initializer=keras.initializers.GlorotUniform(seed=1))
features16 = tf.random.stateless_normal([4096, 32], seed=[1, 2])
targets16 = 0.1 * tf.random.stateless_normal([4096, 64], seed=[3, 4])
def scaled_gradients(scale):
    with tf.GradientTape() as tape:
        out = half(features16)
        tape.watch(out)
        loss = 0.01 * tf.reduce_mean(tf.square(tf.cast(out, tf.float32) - targets16)) * scale
    d_out, d_kernel = tape.gradient(loss, [out, half.kernel])
    return d_out.numpy(), d_kernel.numpy()
found["mixed"] = {}
for k in (0, 15, 32):
    d_out, d_kernel = scaled_gradients(2.0 ** k)
    found["mixed"][str(k)] = [float(np.mean(d_out == 0)), float(np.mean(~np.isfinite(d_kernel))), str(d_out.dtype)]
optimizer = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1))
optimizer.build(half.trainable_variables)
found["loss_scale_steps"] = []
for spoil in (False, True):
    with tf.GradientTape() as tape:
        scaled = optimizer.scale_loss(0.01 * tf.reduce_mean(tf.square(tf.cast(half(features16), tf.float32) - targets16)))
    grads = tape.gradient(scaled, half.trainable_variables)
    if spoil:
        grads = [grads[0] * np.inf] + grads[1:]
    before, scale = half.kernel.numpy(), float(optimizer.dynamic_scale.numpy())
    optimizer.apply(grads, half.trainable_variables)
    found["loss_scale_steps"].append([scale, float(optimizer.dynamic_scale.numpy()),
                                      not np.array_equal(before, half.kernel.numpy())])

# a tf.while_loop keeps every iteration for the backward pass; tf.cond differentiates one branch, tf.where both
W_loop = tf.random.stateless_normal([256, 256], seed=[1, 1]) / 16.0
h_start = tf.random.stateless_normal([512, 256], seed=[2, 2])
@tf.function
def looped(h, steps):
    for _ in tf.range(steps):
        h = tf.tanh(h @ W_loop)
    return tf.reduce_sum(h)
def loop_peak(steps):
    tf.config.experimental.reset_memory_stats("CPU:0")
    before = tf.config.experimental.get_memory_info("CPU:0")["current"]
    with tf.GradientTape() as tape:
        tape.watch(h_start)
        total = looped(h_start, tf.constant(steps))
    tape.gradient(total, h_start)
    return (tf.config.experimental.get_memory_info("CPU:0")["peak"] - before) / 2**20
found["loop_peaks"] = {str(k): loop_peak(k) for k in (20, 40, 80)}
@tf.function
def log_or_zero_cond(x):
    return tf.cond(x > 0, lambda: tf.math.log(x), lambda: tf.zeros_like(x))
@tf.function
def log_or_zero_where(x):
    return tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
for fn in (log_or_zero_cond, log_or_zero_where):
    zero = tf.constant(0.0)
    with tf.GradientTape() as tape:
        tape.watch(zero)
        value = fn(zero)
    found[fn.__name__] = str(tape.gradient(value, zero).numpy())

# tf.custom_gradient with variables=: the tf.Variables inside a Keras layer, their gradients returned
dense = keras.layers.Dense(2, kernel_initializer=keras.initializers.GlorotUniform(seed=7))
dense.build((None, 2))
rows = tf.constant([[1.0, 0.5], [2.0, -1.0]])
seen = []
@tf.custom_gradient
def dense_recomputed(x):
    y = dense(x)
    def grad_fn(upstream, variables=None):
        seen[:] = [type(v).__name__ for v in variables]
        with tf.GradientTape() as inner:
            inner.watch(x)
            again = dense(x)
        grads = inner.gradient(again, [x] + list(variables), output_gradients=upstream)
        return grads[0], grads[1:]
    return y, grad_fn
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(dense_recomputed(rows) ** 2)
custom = tape.gradient(loss, dense.trainable_variables)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(dense(rows) ** 2)
plain = tape.gradient(loss, dense.trainable_variables)
found["custom_gradient_variables"] = [seen, all(np.allclose(a, b) for a, b in zip(custom, plain))]

# Keras 3 variables and forward mode: refused; the tf.Variable inside (v.value) works
try:
    with tf.autodiff.ForwardAccumulator(primals=dense.kernel, tangents=tf.ones([2, 2])):
        pass
    found["forward_keras_variable"] = "ok"
except Exception as error:
    found["forward_keras_variable"] = type(error).__name__
with tf.autodiff.ForwardAccumulator(primals=dense.kernel.value, tangents=tf.ones([2, 2])) as acc:
    out = dense(rows)
found["forward_value"] = acc.jvp(out).numpy().tolist()
with tf.GradientTape() as tape:
    tape.watch(dense.kernel.value)
    out = tf.reduce_sum(dense(rows))
found["watch_value"] = tape.gradient(out, dense.kernel.value) is not None

# tf.function traces per Python scalar value, per shape until it relaxes; a tape's jacobian in one tf.function
traces = {"n": 0}
@tf.function
def td_target(reward, next_q, gamma):
    traces["n"] += 1
    return reward + gamma * tf.reduce_max(next_q, axis=-1)
reward, next_q = tf.constant([1.0, 0.0]), tf.constant([[1.0, 2.0], [3.0, 0.5]])
found["traces"] = {}
for name, gammas in [("floats", [0.9, 0.99, 0.9, 0.999]), ("tensors", [tf.constant(g) for g in (0.9, 0.99, 0.9, 0.999)])]:
    traces["n"] = 0
    for gamma in gammas:
        td_target(reward, next_q, gamma)
    found["traces"][name] = traces["n"]
for name, fn in [("shapes", td_target), ("reduce_retracing", tf.function(td_target.python_function, reduce_retracing=True))]:
    traces["n"] = 0
    for size in (2, 3, 4, 5):
        fn(tf.zeros([size]), tf.zeros([size, 2]), tf.constant(0.9))
    found["traces"][name] = traces["n"]
point = tf.constant([1.0, 2.0, 3.0])
def eager_jacobian(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sin(x) * x
    return tape.jacobian(y, x)
traced_jacobian = tf.function(eager_jacobian)
found["jacobian_seconds"] = {}
for name, fn in [("eager", eager_jacobian), ("traced", traced_jacobian)]:
    start = time.perf_counter()
    for _ in range(10):
        fn(point)
    found["jacobian_seconds"][name] = time.perf_counter() - start
found["jacobian_traces"] = traced_jacobian.experimental_get_tracing_count()
print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def claims(tmp_path_factory) -> dict:
    # a file, not `python -c`: AutoGraph converts a function only where it can read its source, as in a notebook
    probe = tmp_path_factory.mktemp("claims") / "probe.py"
    probe.write_text(PROBE)
    done = subprocess.run([sys.executable, str(probe)], env=quiet_env(TF_CPU_ALLOCATOR_USE_BFC="true"),
                          capture_output=True, text=True, timeout=600)
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


def test_a_where_guard_saves_sqrt_rsqrt_and_reciprocal_only_and_tf_norm_is_nan_at_a_zero_row(claims):
    """Both notebooks: the gradient kernels of Sqrt, Rsqrt and Reciprocal return 0 for a zero upstream (the
    unused branch of a tf.where); log, a division and a power do not."""
    for op in ("sqrt", "rsqrt", "reciprocal"):
        assert claims["where_" + op] == [0.0, 0.0], op
    for op in ("log", "divide", "power"):
        assert all(v != v for v in claims["where_" + op]), op  # NaN
    assert all(v != v for v in claims["norm_zero_row"])


def test_a_row_norms_vjp_must_divide_before_it_multiplies(claims):
    """custom_gradients section 6: upstream * x first underflows (1e-9 * 3e-30, flushed to 0) and overflows
    (1e9 * 3e30); x / norm first gives the gradient, 6e-10 and 6e8."""
    assert claims["multiply_first"] == ["0.0", "0.0", "inf", "inf"]
    assert claims["divide_first"] == pytest.approx([6e-10, 8e-10, 6e8, 8e8], rel=1e-6)


def test_float_is_a_cut_in_eager_code_and_a_cast_in_a_tf_function(claims):
    assert claims["float_eager"] == 3.0 and claims["float_function"] == 6.0


def test_keras_3_variables_refuse_tape_watch_and_unconnected_gradients_zero(claims):
    """jacobians and higher_order: a Keras 3 variable is no tf.Variable; tape.watch raises a ValueError, and
    ZERO raises an AttributeError in gradient and jacobian as soon as one variable is unconnected (with all of
    them connected it does not, and with a tf.Variable it gives 0). tf.zeros_like works; Keras optimizers skip
    a None gradient with a warning."""
    assert claims["keras_variable_is_tf_variable"] is False
    assert claims["watch"].startswith("ValueError: Passed in object")
    for method in ("gradient", "jacobian"):
        assert claims["zero_" + method].startswith("AttributeError")
        assert "'str' object has no attribute '_type_enum'" in claims["zero_" + method]
        assert claims["connected_zero_" + method] == 2
    assert claims["tf_variable_zero"] == 0.0 and claims["zeros_like_keras_variable"] == [3, 2]
    assert any("Gradients do not exist for variables" in w for w in claims["none_gradient_warning"])


def test_compute_gradient_steps_by_one_1024th(claims):
    """custom_gradients section 1: the central difference of x**3 at 1 exceeds 3 by delta**2."""
    assert claims["compute_gradient_excess"] == pytest.approx((1 / 1024) ** 2, rel=1e-3)
    assert claims["compute_gradient_excess"] != pytest.approx(1e-6, rel=1e-2)


def test_per_example_gradients_three_ways_agree_at_the_exercises_size_and_the_loop_is_slowest(claims):
    """jacobians section 6: 101,770 weights, batch 256; tape.jacobian, tf.vectorized_map and a loop give the same
    rows, and the loop (256 eager passes) takes longer than vectorized_map (best of two runs each; measured
    5-10 times longer, so load on the machine does not turn the order round)."""
    assert claims["weights"] == 101_770 and claims["per_example_same_rows"]
    seconds = claims["per_example_seconds"]
    assert seconds["loop"] > seconds["vectorized_map"], seconds


def test_memory_is_measured_by_the_allocator_not_tracemalloc_and_recompute_grad_saves_it(claims):
    assert claims["tensorflow_current"] >= 2000 * 2000 * 4 > 100 * claims["tracemalloc_peak"]
    assert claims["peak_segments_of_8"] < 0.5 * claims["peak_plain"]


def test_float16_gradients_underflow_without_loss_scaling_and_overflow_with_too_much(claims):
    """custom_gradients section 8: a mixed_float16 layer's output gradients (float16) are a third zeros unscaled,
    none at 2^15; at 2^32 most of the kernel's gradient is inf. CPU float16 keeps subnormals."""
    assert claims["float16_subnormal_kept"]
    unscaled, default, huge = (claims["mixed"][k] for k in ("0", "15", "32"))
    assert unscaled[2] == "float16" and unscaled[0] > 0.2 and unscaled[1] == 0.0
    assert default[0] < 1e-4 and default[1] == 0.0  # (a few entries are 0 in float32 too)
    assert huge[1] > 0.5


def test_loss_scale_optimizer_starts_at_2_to_15_and_halves_and_skips_on_inf(claims):
    (finite, spoiled) = claims["loss_scale_steps"]
    assert finite == [32768.0, 32768.0, True]
    assert spoiled == [32768.0, 16384.0, False]


def test_a_while_loop_keeps_each_iteration_and_tf_cond_differentiates_one_branch(claims):
    peaks = claims["loop_peaks"]
    per_iteration = [(peaks["40"] - peaks["20"]) / 20, (peaks["80"] - peaks["40"]) / 40]
    assert min(per_iteration) > 1.0 and max(per_iteration) < 1.3 * min(per_iteration), peaks  # linear, > 1 MiB each
    assert claims["log_or_zero_cond"] == "0.0" and claims["log_or_zero_where"] == "nan"


def test_custom_gradient_hands_grad_fn_the_tf_variables_inside_a_keras_layer(claims):
    seen, same = claims["custom_gradient_variables"]
    assert seen == ["ResourceVariable", "ResourceVariable"] and same


def test_forward_mode_refuses_a_keras_variable_and_takes_its_value(claims):
    assert claims["forward_keras_variable"] == "AttributeError"
    assert claims["forward_value"] and claims["watch_value"]


def test_tf_function_traces_per_python_scalar_and_a_traced_jacobian_once(claims):
    """jacobians section 7: 4 calls with gamma 0.9, 0.99, 0.9, 0.999 as Python floats trace 3 times, as Tensors
    once; batches of 2..5 trace 3 times (then the shape is relaxed), with reduce_retracing twice; the tape and
    its Jacobian in one tf.function trace once for 10 calls and take less time than 10 eager Jacobians (each of
    which traces pfor again; measured 5 to 7 times longer)."""
    assert claims["traces"] == {"floats": 3, "tensors": 1, "shapes": 3, "reduce_retracing": 2}
    assert claims["jacobian_traces"] == 1
    assert claims["jacobian_seconds"]["eager"] > claims["jacobian_seconds"]["traced"], claims["jacobian_seconds"]
